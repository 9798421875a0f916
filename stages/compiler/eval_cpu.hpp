// The CPU body of the constraint kernel (stages/compiler/constraint_kernel.hpp; architecture.md,
// "Generated kernels"; issue 9): the constraint DAG compiled once into a compact instruction stream
// over block registers, then evaluated over blocks of kBlockRows rows, one instruction applied to
// a whole block with the SIMD level of kernels/field/simd_level.hpp (8 or 16 rows per vector), in
// parallel over blocks. Bit-identical to the host evaluator (eval_constraints_on_trace) on every
// level: field results are canonical, so evaluation order does not change them.
//
// Compilation: the DAG's schedule (stages/compiler/schedule.hpp): the nodes the constraints reach
// (nodes only interactions read are not this kernel's), in node order. Constants and public values
// live in fixed registers filled once per run of blocks, the three selectors in registers filled
// per block; a trace variable is loaded right before its first use. Each other value gets a block
// register by liveness (the schedule's use counts; linear scan, the most recently freed register
// first, so the working set stays small and hot), and each constraint is folded into four lazy
// 64-bit accumulators per row (Fp4 x Fp = 4 products, reduced once per four terms and once at the
// end of the block).
//
// A CompiledConstraints is immutable once built and may be shared between threads;
// eval_constraints_cpu is thread-safe and parallel inside (TBB).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "kernels/field/fp4.hpp"
#include "stages/air/air.hpp"
#include "stages/air/dag.hpp"
#include "stages/compiler/detail/eval_cpu_program.hpp"
#include "stages/compiler/schedule.hpp"

namespace vkstark {

class CompiledConstraints {
 public:
  // InputError when a variable does not fit `shape` (a part or column it lacks, a public value past
  // num_public_values), reads a challenge, or the DAG is malformed (an operand not before its node,
  // a constraint index past the nodes). `schedule`: the DAG's (schedule_constraints(dag), made here
  // when not given).
  CompiledConstraints(const SymbolicDag& dag, const AirShape& shape);
  CompiledConstraints(const SymbolicDag& dag, const ConstraintSchedule& schedule, const AirShape& shape);

  uint32_t num_constraints() const { return num_constraints_; }
  uint32_t num_parts() const { return static_cast<uint32_t>(widths_.size()); }
  const std::vector<uint32_t>& part_widths() const { return widths_; }  // row-view order
  uint32_t num_public_values() const { return num_public_values_; }
  // DAG nodes the constraints reach: the nodes evaluated per row.
  uint64_t num_nodes() const { return num_nodes_; }
  uint64_t num_instructions() const { return code_.size(); }
  uint32_t num_registers() const { return regs_.num_regs; }  // block registers, fixed ones included
  // One line with the counts above and the instructions by kind.
  std::string summary() const;

  // For eval_constraints_cpu: the program over this object's instructions.
  eval_cpu_detail::Program program() const;
  // The fixed registers' values: constants, and public values read from `public_values`.
  std::vector<uint32_t> fixed_values(std::span<const Fp> public_values) const;

 private:
  struct Fixed {
    bool is_public = false;
    uint32_t value = 0;  // Montgomery word of a constant, or the public value's index
  };
  std::vector<eval_cpu_detail::Instr> code_;
  std::vector<Fixed> fixed_;
  std::vector<uint32_t> widths_;
  eval_cpu_detail::Program regs_;  // the register layout (its code pointer unset: program() sets it)
  uint32_t num_constraints_ = 0;
  uint32_t num_public_values_ = 0;
  uint64_t num_nodes_ = 0;
};

// out[r] = sum_i lambda_powers[i] * C_i(row r) for every row r < H = 2^log_height (the contract of
// constraint_kernel.hpp), or out[r] += that with `accumulate`, at cpu_simd_level(). `parts` in row-view order, each
// column-major with at least width_p * H values. InputError when a span is too short or the part count is wrong.
void eval_constraints_cpu(const CompiledConstraints& c, std::span<const std::span<const Fp>> parts,
                          std::span<const Fp> public_values, std::span<const Fp4> lambda_powers, std::span<Fp4> out,
                          uint32_t log_height, bool accumulate = false);

}  // namespace vkstark
