// The extension-field variant of the constraint kernel (stages/compiler/constraint_kernel.hpp), for
// the MLE rounds of the batch constraint sumcheck (protocol.md 9.5): the DAG evaluated over Fp4
// tables (columns folded at extension-field challenges) at interpolated points:
//   out[o] (+)= sum_k coeffs[k] root_k(point o),   roots = the DAG's constraint_idx,
// point o: Y = max(len / 2, 1) with len = 2^log_len, X = x_first + o / Y, y = o mod Y; a column's
// value t[2y] when X = 0 (t[2y + 1] not read: a table of one entry is a fully folded column), else
// t[2y] + X (t[2y + 1] - t[2y]). The DAG reads local values only and has no selector node (the
// batch sumcheck maps next rows and selectors to columns, stages/batch_constraint/functionals.hpp).
// Both bodies (GLSL with uvec4 values, base-field values kept uint; CPU interpreting Fp4 slots) are
// bit-identical to eval_nodes<Fp4> (stages/air/eval.hpp).
//
// Two modes, with the same chunks and bit-identical results:
//   Generated: one run-time kernel per chunk, straight-line GLSL generated from its DAG;
//   Interpreted: one interpreter kernel for every chunk (ext_interpreter_kernel,
//     stages/compiler/ext_program.hpp) running the chunk's instruction stream from a constant
//     buffer. For devices whose shader compiler is slow (llvmpipe spent about a minute on each
//     Keccak-f chunk; the interpreter compiles once, in well under a second): a loop over Fp4 slots
//     in private memory, every value an Fp4, instead of straight-line code.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "stages/compiler/constraint_kernel.hpp"

namespace vkstark {

//   Fused: the Interpreted programs, all chunks in one dispatch (ext_fused_kernel): chunks side by
//     side whatever the number of points, one dispatch per evaluation instead of one per chunk.
enum class ExtKernelMode : uint8_t { Generated, Interpreted, Fused };

// Operations per chunk for the fused mode: H100, keccakf 2^12 .. 2^15, MLE rounds fastest at 64
// (512: 4.73 .. 7.83 ms, 128: 3.64 .. 6.70, 64: 3.23 .. 6.29, 32: 3.43 .. 6.52; docs/decisions.md
// 2026-11-27).
inline constexpr uint32_t kFusedChunkNodes = 64;

struct ExtConstraintKernel : ConstraintKernel {
  ExtKernelMode mode = ExtKernelMode::Generated;
  // Interpreted: per chunk, its program (encode_ext_program) and the slots it needs. Each chunk's
  // kernel is ext_interpreter_kernel().
  std::vector<std::vector<uint32_t>> programs;
  std::vector<uint32_t> program_slots;
  // Fused: the programs with their directory (encode_fused_programs), one Constant buffer
  // "<kernel name>.programs.<hash>".
  std::vector<uint32_t> fused;
};

// Chunks as make_constraint_kernel; kernel names "<air>_ext_constraints[_<chunk>]" (Interpreted:
// the name of the program buffers). InputError naming the AIR as make_constraint_kernel, and for a
// selector node or a next-row read; Interpreted, also for a chunk whose program needs more slots
// than the interpreter has (kExtInterpreterSlots).
std::shared_ptr<const ExtConstraintKernel> make_ext_constraint_kernel(const std::string& air, const SymbolicDag& dag,
                                                                      const AirShape& shape,
                                                                      uint32_t chunk_nodes = kConstraintChunkNodes,
                                                                      ExtKernelMode mode = ExtKernelMode::Generated,
                                                                      KernelGeneration gen = {});

// Adds the dispatches: `parts` in row-view order (each width_p << log_len values), `coeffs` at least
// one per root, `out` the points (at least one). `out` is zeroed first unless `accumulate`. Chunks
// add side by side into slices of a transient buffer when the points are few (as eval_constraints),
// summed into `out` at the end. With `slices` S > 0 the caller takes the slices unsummed: `out` holds
// S x points values, chunk c adds into slice c mod S (all zeroed first; `accumulate` must be false),
// so a consumer that reads the slices (ZerocheckWeightedSums) saves the summing dispatch.
// GraphError naming the task when a size does not fit or the shape is not the kernel's.
// Interpreted: each chunk's program is a Constant buffer "<kernel name>.program.<chunk>.<hash>",
// added to `g` at its first use and shared by later calls on the same graph.
void eval_ext_constraints(Graph& g, const std::string& name, const ExtConstraintKernel& kernel, const AirShape& shape,
                          std::span<const View<Fp4>> parts, View<Fp> public_values, View<Fp4> coeffs, View<Fp4> out,
                          uint32_t log_len, uint32_t x_first, bool accumulate = false,
                          uint64_t concurrent_points = kConstraintConcurrentRows, uint32_t slices = 0);

// The slices eval_ext_constraints uses on its own for `points` points: min(chunks, max(1,
// concurrent / points)).
[[nodiscard]] uint32_t ext_constraint_slices(const ExtConstraintKernel& kernel, uint64_t points,
                                             uint64_t concurrent_points = kConstraintConcurrentRows);

}  // namespace vkstark
