// LogUp's GKR input layer (protocol.md 8.1-8.2) on the device: the leaves (p, q) of every
// interaction of every present trace, at its slot of the interaction column, from the trace rows.
// Each interaction's count and message are evaluated by the generated constraint kernel over a
// copy of the AIR's DAG whose roots are that interaction's nodes (stages/air/constraint_kernel.hpp),
// with coefficients from the device: the count's is the lifting normalisation 2^-max(l - h, 0); the
// message fields' are the powers of beta (summed where a node repeats) and a constant root carries
// alpha + beta^len (bus + 1). So the leaves are q = alpha + h_sigma and p = count * norm without a
// hand-written kernel per AIR. Graph builders; thread-compatible.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "runtime/graph.hpp"
#include "stages/air/constraint_kernel.hpp"
#include "stages/air/keygen.hpp"
#include "stages/common/transcript.hpp"
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
};

// Compiles (or loads from the SPIR-V cache) the kernels of `air`'s interactions.
std::shared_ptr<const InteractionKernels> make_interaction_kernels(const AirProvingKey& air, KernelGeneration gen = {});

// A present trace as the input layer reads it.
struct LogupInputTrace {
  const AirProvingKey* air = nullptr;
  const InteractionKernels* kernels = nullptr;
  std::vector<View<Fp>> parts;  // row-view order: preprocessed?, cached..., common
  View<Fp> public_values;       // the AIR's public values (a zero-count view when it has none)
  uint32_t log_height = 0;
};

// Writes the leaves of protocol.md 8.2 into p_leaves and q_leaves (2^(l_skip + n_logup) Fp4 each):
// traces in sorted order with their slots at layout.row_start, the padding leaves (0, alpha).
// alpha, beta: one-element views. Tasks "logup.input.<T>.<sigma>.count" / ".message".
// GraphError when a view's size does not fit.
void add_logup_input_layer(Graph& g, DeviceTranscript& t, std::span<const LogupInputTrace> traces,
                           const LogupLayout& layout, uint32_t l_skip, View<Fp4> alpha, View<Fp4> beta,
                           View<Fp4> p_leaves, View<Fp4> q_leaves);

}  // namespace vkstark
