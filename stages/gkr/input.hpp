// LogUp's GKR input layer (protocol.md 8.1-8.2) on the device: the leaves (p, q) of every
// interaction of every present trace, at its slot of the interaction column, from the trace rows.
// Each interaction's count and message are evaluated by the generated constraint kernel
// (stages/compiler/constraint_kernel.hpp) over a copy of the AIR's DAG whose roots are that
// interaction's nodes, with coefficients from the device: the count's is the lifting normalisation
// 2^-max(l - h, 0); the message fields' are the powers of beta (summed where a node repeats) and a
// constant root carries alpha + beta^len (bus + 1). So the leaves are q = alpha + h_sigma and
// p = count * norm without a hand-written kernel per AIR. Graph builders; thread-compatible.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "runtime/graph.hpp"
#include "stages/air/keygen.hpp"
#include "stages/common/transcript.hpp"
#include "stages/compiler/constraint_kernel.hpp"
#include "stages/proof/proof.hpp"

namespace vkstark {

// The kernels of one AIR's interactions. Immutable; share it.
struct InteractionKernels {
  struct Interaction {
    std::shared_ptr<const ConstraintKernel> count;    // root: the count node
    std::shared_ptr<const ConstraintKernel> message;  // roots: the message nodes (distinct, ascending), then 1
    // For each root of `message` but the last, the message positions j it stands for.
    std::vector<std::vector<uint32_t>> positions;
    uint32_t length = 0;  // message length
    uint16_t bus = 0;
  };
  std::vector<Interaction> interactions;  // vk order
  // The parts the kernels read (LogupInputTrace::parts): the AIR's own, or (compact kernels) per
  // row-view part only the columns `columns[p]` (ascending) that some interaction reads, in that
  // order (a part none reads: its column 0).
  AirShape shape;
  std::vector<std::vector<uint32_t>> columns;  // compact kernels: per row-view part; else empty
};

// Compiles (or loads from the SPIR-V cache) the kernels of `air`'s interactions. `compact`: kernels
// that read compact copies of the parts (InteractionKernels::columns), for parts that lie in
// pieces of their commitment: a copy of the columns the interactions read rather than of the
// whole part.
std::shared_ptr<const InteractionKernels> make_interaction_kernels(const AirProvingKey& air, KernelGeneration gen = {},
                                                                   bool compact = false);

// A present trace as the input layer reads it.
struct LogupInputTrace {
  const InteractionKernels* kernels = nullptr;
  std::vector<View<Fp>> parts;  // row-view order: preprocessed?, cached..., common (kernels->shape's)
  View<Fp> public_values;       // the AIR's public values (a zero-count view when it has none)
  uint32_t log_height = 0;
};

// Writes the leaves of protocol.md 8.2 into p_leaves and q_leaves (2^(l_skip + n_logup) Fp4 each):
// traces in sorted order with their slots at layout.row_start, the padding leaves (0, alpha).
// alpha, beta: one-element views. Tasks "gkr.input.<T>.<sigma>.count" / ".message".
// GraphError when a view's size does not fit.
void add_logup_input_layer(Graph& g, DeviceTranscript& t, std::span<const LogupInputTrace> traces,
                           const LogupLayout& layout, uint32_t l_skip, View<Fp4> alpha, View<Fp4> beta,
                           View<Fp4> p_leaves, View<Fp4> q_leaves);

// The same leaves a range at a time, as often as asked (the low-memory GKR makes them again rather
// than keep them): the constructor records what every range reads (the powers of beta, each
// interaction's coefficients); leaves() records the leaves [first, first + p.count) (a range holds
// every slot it meets whole, or GraphError: slots lie in sorted trace order, each at a multiple of
// its size, so ranges at multiples of largest_slot() do). The traces and layout must outlive it.
class LogupInputLayer {
 public:
  LogupInputLayer(Graph& g, DeviceTranscript& t, std::span<const LogupInputTrace> traces, const LogupLayout& layout,
                  uint32_t l_skip, View<Fp4> alpha, View<Fp4> beta);
  uint64_t leaves() const { return uint64_t(1) << (l_skip_ + layout_.n_logup); }
  uint64_t largest_slot() const { return largest_slot_; }
  // `tag` tells the ranges' tasks apart: "gkr.input<tag>.<T>.<sigma>.count".
  void leaves(uint64_t first, View<Fp4> p, View<Fp4> q, const std::string& tag = "");

 private:
  Graph& g_;
  std::span<const LogupInputTrace> traces_;
  const LogupLayout& layout_;
  const uint32_t l_skip_;
  View<Fp4> alpha_;
  std::vector<View<Fp4>> norms_;                // per trace
  std::vector<std::vector<View<Fp4>>> coeffs_;  // per trace, per interaction
  uint64_t largest_slot_ = 1;
};

}  // namespace vkstark
