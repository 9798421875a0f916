// The constraint-evaluation kernel of one AIR (architecture.md, "Generated kernels"; issue 9): the
// prover's hottest loop. Made at keygen from the AIR's DAG: run-time kernels, one per chunk of
// constraints, each with two bodies:
//   - Vulkan: GLSL generated from the DAG (stages/compiler/eval_glsl.cpp), compiled in process with
//     glslang (SPIR-V cached on disk by the source's content, so a second run compiles nothing);
//   - CPU: the DAG as a compact instruction stream over blocks of rows, one instruction applied to
//     8 or 16 rows at once with the field layer's SIMD lanes (stages/compiler/eval_cpu.cpp).
// Both are bit-identical to the host evaluator (stages/air/eval.hpp).
//
// Evaluates every row r of a trace of height H = 2^log_height:
//   out[r] = sum_i lambda_powers[i] * C_i(row view of r)
// with C_i the i-th constraint (constraint_idx order), selectors from r (is_first_row = [r == 0],
// is_last_row = [r == H - 1], is_transition = [r != H - 1]) and the next row (r + 1) mod H.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "kernels/types.hpp"
#include "runtime/graph.hpp"
#include "runtime/kernel.hpp"
#include "stages/air/air.hpp"
#include "stages/air/dag.hpp"
#include "stages/compiler/schedule.hpp"

namespace vkstark {

// The ABI of every constraint kernel chunk (kernel_abi<ConstraintKernelArgs>()); a chunk is
// dispatched with DynamicArgs in this order and adds its constraints' sum to `out`.
struct ConstraintKernelArgs {
  InArray<Fp, kMaxViewArray> parts;  // row-view order (protocol.md 9.1); each column-major, width_p x H
  In<Fp> public_values;              // num_public_values values (a zero-count view when there are none)
  In<Fp4> lambda_powers;             // the chunk's: lambda^first, lambda^(first+1), ...
  InOut<Fp4> out;                    // H values: out[r] += sum over the chunk's constraints
  uint32_t log_height = 0;
};

// The GLSL body (after the generated interface) adding the constraints of `dag` (all of its
// constraint_idx; constraint k folded with lambda_powers[k]) to out. Each lowering here also takes
// the DAG's schedule (schedule_constraints(dag), stages/compiler/schedule.hpp), made once for all
// of a chunk's bodies; without it, it makes its own.
std::string constraint_glsl_body(const SymbolicDag& dag, const AirShape& shape);
std::string constraint_glsl_body(const SymbolicDag& dag, const ConstraintSchedule& schedule, const AirShape& shape);

// The extension-field variant's ABI (stages/compiler/ext_kernel.hpp) and bodies: the DAG over Fp4
// tables, read interpolated at the dispatch's points; roots folded with coeffs. InputError for a
// DAG with a selector node or a next-row read (the caller maps those to columns first).
struct ExtConstraintKernelArgs {
  InArray<Fp4, kMaxViewArray> parts;  // row-view order; column c of part p at c * 2^log_len
  In<Fp> public_values;
  In<Fp4> coeffs;  // the chunk's, one per root
  InOut<Fp4> out;  // out[o] += sum_k coeffs[k] root_k(point o), o < grid.x
  uint32_t log_len = 0;
  uint32_t x_first = 0;
};
std::string ext_constraint_glsl_body(const SymbolicDag& dag, const AirShape& shape);
std::string ext_constraint_glsl_body(const SymbolicDag& dag, const ConstraintSchedule& schedule, const AirShape& shape);
std::function<void(const CpuContext&)> ext_constraint_cpu_body(const SymbolicDag& dag, const AirShape& shape);
std::function<void(const CpuContext&)> ext_constraint_cpu_body(const SymbolicDag& dag,
                                                               const ConstraintSchedule& schedule,
                                                               const AirShape& shape);
// Its rules (RuntimeKernelDesc::grid and check) for a chunk of `constraints` roots of an AIR of
// `shape`: one invocation per point of out, the parts exactly the AIR's tables (width_p x 2^log_len
// each), its public values, a coefficient per root, ext_points_problem.
[[nodiscard]] Grid ext_constraint_chunk_grid(const ExtConstraintKernelArgs& a);
[[nodiscard]] std::function<std::string(const RuntimeArgs&)> ext_constraint_chunk_check(const AirShape& shape,
                                                                                        uint32_t constraints);
// "" or what is wrong with `points` points from X = x_first over tables of 2^log_len values
// (Y = max(2^log_len / 2, 1) points per X): at least one, below 2^32, X below 2^31.
[[nodiscard]] std::string ext_points_problem(uint32_t log_len, uint32_t x_first, uint64_t points);

// The CPU body: the DAG compiled once into an instruction stream; the returned function evaluates a
// dispatch (ConstraintKernelArgs through CpuContext, adding to out), parallel over blocks of rows.
std::function<void(const CpuContext&)> constraint_cpu_body(const SymbolicDag& dag, const AirShape& shape);
std::function<void(const CpuContext&)> constraint_cpu_body(const SymbolicDag& dag, const ConstraintSchedule& schedule,
                                                           const AirShape& shape);

// Operations (Add, Sub, Mul, Neg nodes) per chunk by default. A driver compiles a pipeline in time
// that grows faster than its size (NVIDIA's did not finish the 39k-node Keccak-f kernel as one
// pipeline in 9 minutes); chunks compile in parallel and run concurrently. docs/decisions.md
// ("Constraint kernels in chunks") has the measurements behind the value.
inline constexpr uint32_t kConstraintChunkNodes = 512;

// Constraints in chunks of consecutive constraint indices [first, first + count): each chunk's
// nodes (the operations its constraints reach, shared ones counted in every chunk that needs
// them) at most max_nodes, except a chunk of one constraint that alone needs more. Greedy, in
// constraint order; empty for a DAG without constraints (its kernel has one chunk of none,
// writing zeros). InputError on a malformed DAG.
struct ConstraintRange {
  uint32_t first = 0;
  uint32_t count = 0;
  uint64_t nodes = 0;  // operations the chunk evaluates per row
};
std::vector<ConstraintRange> partition_constraints(const SymbolicDag& dag, uint32_t max_nodes);

// The constraint-evaluation kernel of one AIR: one run-time kernel per chunk of constraints, each
// adding sum_{k in chunk} lambda^k C_k(r) to its output row by row. Immutable; share it.
struct ConstraintKernel {
  struct Chunk {
    ConstraintRange range;
    std::shared_ptr<const KernelInfo> kernel;  // "<name>" alone, else "<name>_<chunk>"
  };
  std::string name;  // "<air>_constraints", made a GLSL identifier
  std::vector<Chunk> chunks;
  std::vector<uint32_t> widths;  // row-view parts
  uint32_t num_public_values = 0;
  uint32_t num_constraints = 0;
  // A base-field kernel made `interpreted` (make_constraint_kernel): its chunks' programs with
  // their directory (encode_fused_programs, stages/compiler/ext_program.hpp), run by one dispatch
  // of the base-field fused interpreter (base_fused_kernel) instead of a generated kernel per
  // chunk. (The extension-field kernel keeps its own in ExtConstraintKernel::fused.)
  std::vector<uint32_t> base_fused;
};

// The AIR's constraint kernel, chunks of at most `chunk_nodes` operations. InputError naming the
// AIR when it has more row-view parts than kMaxViewArray, or when the DAG reads what the shape
// does not have (a column, part or public value past the shape, a challenge): the error of the
// first chunk in constraint order that has one. Compiles (or loads from the on-disk cache) the
// chunks' SPIR-V in parallel.
// `interpreted`: no generated kernels; the chunks' programs (compile_ext_program: the same
// instruction stream as the extension kernel's, run over base-field slots) in one dispatch of
// base_fused_kernel(), nothing compiled per AIR. Bit-identical results; the DAG must then read
// local rows only and have no selector node (the batch sumcheck's functionals, which map next rows
// and selectors to columns).
// `gen`: how generated chunks get their SPIR-V; with gen.cached_only, null when the SPIR-V cache
// lacks a chunk (an interpreted kernel compiles nothing and is always made).
struct KernelGeneration {
  bool cached_only = false;  // from the SPIR-V cache only (cached_glsl), never compiled
  bool quiet = false;        // no progress reports (runtime/progress.hpp): work in the background
  // False: CPU-only kernels, no GLSL generated or compiled (for an executor whose
  // ExecutorLimits::runs_spirv is false).
  bool spirv = true;
};
std::shared_ptr<const ConstraintKernel> make_constraint_kernel(const std::string& air, const SymbolicDag& dag,
                                                               const AirShape& shape,
                                                               uint32_t chunk_nodes = kConstraintChunkNodes,
                                                               bool interpreted = false, KernelGeneration gen = {});

// The base-field fused interpreter's ABI: grid (H rows, S slices); invocation (r, s) runs chunks
// s, s + S, ... at row r and writes out[s H + r] (sum_k lambda_powers[first_k + k] C_k(row r)).
struct BaseFusedArgs {
  InArray<Fp, kMaxViewArray> parts;  // row-view order, column-major width_p x H
  In<Fp> public_values;
  In<Fp4> lambda_powers;  // every constraint's
  Out<Fp4> out;           // S x H
  In<uint32_t> program;   // encode_fused_programs
  uint32_t log_height = 0;
  uint32_t chunks = 0;
};
[[nodiscard]] const std::shared_ptr<const KernelInfo>& base_fused_kernel();

// The rules of the constraint kernels (RuntimeKernelDesc::grid and check): what their bodies read
// and write, so that a dispatch past a view is refused when the graph is built. A chunk of
// `constraints` constraints of an AIR of `shape`: one invocation per row of out (2^log_height
// values), the parts exactly the AIR's (width_p x H each), its public values, a lambda power per
// constraint of the chunk.
[[nodiscard]] Grid constraint_chunk_grid(const ConstraintKernelArgs& a);
[[nodiscard]] std::function<std::string(const RuntimeArgs&)> constraint_chunk_check(const AirShape& shape,
                                                                                    uint32_t constraints);
// Shared by the rules: "" or what is wrong with parts of these counts for columns of 2^log_len
// values (log_len at most `max_log_len`): each a whole number of columns below 2^32 values; with
// `widths` non-empty, exactly widths[p] columns of part p and as many parts as widths.
[[nodiscard]] std::string constraint_parts_problem(std::span<const uint64_t> counts, uint32_t log_len,
                                                   uint32_t max_log_len, std::span<const uint32_t> widths = {});
// The counts of a view array's used views.
template <class T, uint32_t N, Access A>
std::vector<uint64_t> view_counts(const ViewArray<T, N, A>& views) {
  std::vector<uint64_t> counts;
  for (uint32_t i = 0; i < views.count; ++i) counts.push_back(views.views[i].count);
  return counts;
}

// Rows evaluated side by side: below this height, chunks of a short trace run side by side into
// partial sums (see eval_constraints). An H100 holds 132 x 2048 invocations, yet 2^20 beat 2^18
// (keccakf 2^15: 0.82 against 0.92 ms a pass; 2^18 rows: 6.6 against 7.5 ms): fewer waves, fewer
// barriers. docs/decisions.md, "Constraint kernels in chunks".
inline constexpr uint64_t kConstraintConcurrentRows = uint64_t(1) << 20;

// Adds the dispatches: `parts` in row-view order (each width_p << log_height values), `out` 1 <<
// log_height values, `public_values` exactly num_public_values values, `lambda_powers` at least
// num_constraints values. An AIR without public values takes a zero-count view, of any buffer or of
// none (View<Fp>{}): the dispatch then binds a zero-count view of a buffer it reads anyway.
//
// The chunks add into S = min(chunks, max(1, concurrent_rows / H)) sums: with S = 1, `out` itself
// ("<name>.zero" clears it, then task "<name>.<c>" per chunk adds, one after the other; a kernel
// of one chunk: task `name`); with more,
// S slices of a transient buffer "<name>.partials.<n>" (n: the graph's task count, so that the name
// is unique), chunk c adding into slice c mod S, so S chunks at a time are independent of each
// other and run side by side on a GPU, then "<name>.sum" adds the slices up into `out`. Memory:
// S x H extension elements, at most max(H, concurrent_rows). GraphError naming the task when a
// view's size does not fit or the shape is not the kernel's.
void eval_constraints(Graph& g, const std::string& name, const ConstraintKernel& kernel, const AirShape& shape,
                      std::span<const View<Fp>> parts, View<Fp> public_values, View<Fp4> lambda_powers, View<Fp4> out,
                      uint32_t log_height, uint64_t concurrent_rows = kConstraintConcurrentRows);

}  // namespace vkstark
