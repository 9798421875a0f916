// The constraint-evaluation kernel of one AIR (architecture.md, "Generated kernels"; issue 9): the
// prover's hottest loop. Made at keygen from the AIR's DAG, a run-time kernel with two bodies:
//   - Vulkan: GLSL generated from the DAG (stages/air/eval_glsl.cpp), compiled in process with
//     glslang (SPIR-V cached on disk by the source's content, so a second run compiles nothing);
//   - CPU: the DAG as a compact instruction stream over blocks of rows, one instruction applied to
//     8 or 16 rows at once with the field layer's SIMD lanes (stages/air/eval_cpu.cpp).
// Both are bit-identical to the host evaluator (stages/air/eval.hpp).
//
// One dispatch evaluates every row r of a trace of height H = 2^log_height:
//   out[r] = sum_i lambda_powers[i] * C_i(row view of r)
// with C_i the i-th constraint (constraint_idx order), selectors from r (is_first_row = [r == 0],
// is_last_row = [r == H - 1], is_transition = [r != H - 1]) and the next row (r + 1) mod H.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "kernels/types.hpp"
#include "runtime/graph.hpp"
#include "runtime/kernel.hpp"
#include "stages/air/air.hpp"
#include "stages/air/dag.hpp"

namespace vkstark {

// The ABI of every constraint kernel (kernel_abi<ConstraintKernelArgs>()); the kernel is dispatched
// with DynamicArgs in this order.
struct ConstraintKernelArgs {
  InArray<Fp, kMaxViewArray> parts;  // row-view order (protocol.md 9.1); each column-major, width_p x H
  In<Fp> public_values;              // num_public_values values (a zero-count view when there are none)
  In<Fp4> lambda_powers;             // at least num_constraints values: 1, lambda, lambda^2, ...
  Out<Fp4> out;                      // H values
  uint32_t log_height = 0;
};

// The GLSL body (after the generated interface) of the AIR's constraint kernel.
std::string constraint_glsl_body(const SymbolicDag& dag, const AirShape& shape);

// The CPU body: the DAG compiled once into an instruction stream; the returned function evaluates a
// dispatch (ConstraintKernelArgs through CpuContext), parallel over blocks of rows.
std::function<void(const CpuContext&)> constraint_cpu_body(const SymbolicDag& dag, const AirShape& shape);

// The run-time kernel "<air>_constraints" (name made a GLSL-safe identifier). InputError naming
// the AIR when it has more row-view parts than kMaxViewArray, or when the DAG reads what the shape
// does not have (a column, part or public value past the shape, a challenge). Compiles (or loads
// from the on-disk cache) the SPIR-V. The returned handle also carries the shape and constraint
// count that eval_constraints checks against (nothing to pass along by hand).
std::shared_ptr<const KernelInfo> make_constraint_kernel(const std::string& air, const SymbolicDag& dag,
                                                         const AirShape& shape);

// Adds the dispatch: `parts` in row-view order (each width_p << log_height values), `out` 1 <<
// log_height values, `public_values` exactly num_public_values values, `lambda_powers` at least
// num_constraints values. An AIR without public values takes a zero-count view, of any buffer or of
// none (View<Fp>{}): the dispatch then binds a zero-count view of a buffer it reads anyway.
// GraphError naming the task when a view's size does not fit, the shape is not the kernel's, or
// `kernel` was not made by make_constraint_kernel.
void eval_constraints(Graph& g, const std::string& name, const std::shared_ptr<const KernelInfo>& kernel,
                      const AirShape& shape, std::span<const View<Fp>> parts, View<Fp> public_values,
                      View<Fp4> lambda_powers, View<Fp4> out, uint32_t log_height);

}  // namespace vkstark
