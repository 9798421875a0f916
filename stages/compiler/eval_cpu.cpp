// The CPU constraint evaluator (stages/compiler/eval_cpu.hpp): the DAG's compiler to the
// instruction stream, the portable block body, the dispatch over blocks at the current SIMD level,
// and the constraint kernel's CPU body (constraint_kernel.hpp).
#include "stages/compiler/eval_cpu.hpp"

#include <fmt/format.h>
#include <tbb/enumerable_thread_specific.h>

#include <algorithm>
#include <array>
#include <limits>
#include <memory>
#include <new>

#include "kernels/cpu/parallel.hpp"
#include "kernels/field/simd_level.hpp"
#include "runtime/error.hpp"
#include "stages/air/eval.hpp"
#include "stages/compiler/constraint_kernel.hpp"

namespace vkstark {

namespace eval_cpu_detail {
namespace {
#include "kernels/field/detail/packed_scalar.inl"
#include "stages/compiler/detail/eval_cpu_blocks.inl"
}  // namespace
}  // namespace eval_cpu_detail

using eval_cpu_detail::Instr;
using eval_cpu_detail::kBlockRows;
using eval_cpu_detail::Op;

namespace {

constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();
static_assert(uint32_t(NodeKind::IsLastRow) == uint32_t(NodeKind::IsFirstRow) + 1 &&
              uint32_t(NodeKind::IsTransition) == uint32_t(NodeKind::IsFirstRow) + 2 &&
              eval_cpu_detail::kFirstFixed == 3);

bool is_binary(NodeKind k) { return k == NodeKind::Add || k == NodeKind::Sub || k == NodeKind::Mul; }
bool is_binary_op(Op op) { return op == Op::Add || op == Op::Sub || op == Op::Mul; }
Op arithmetic_op(NodeKind k) { return k == NodeKind::Add ? Op::Add : k == NodeKind::Sub ? Op::Sub : Op::Mul; }
bool is_trace_variable(const DagNode& n) {
  return n.kind == NodeKind::Variable && (n.var.entry == EntryKind::Preprocessed || n.var.entry == EntryKind::Main);
}

// Row-view part of a trace variable, checked against the shape.
uint32_t checked_part(const Variable& v, const AirShape& shape, const std::vector<uint32_t>& widths) {
  const bool ok_entry = v.entry == EntryKind::Main ? v.part <= shape.num_cached() : shape.preprocessed_width > 0;
  const uint32_t part = ok_entry ? row_view_part(v, shape) : kNone;
  if (part >= widths.size() || v.index >= widths[part] || v.offset > 1)
    throw InputError(fmt::format("constraint DAG: variable {} does not fit the AIR's trace parts", to_string(v)));
  return part;
}

// The instruction stream over values (node indices), in the schedule's order: a trace variable is
// loaded right before its first read and kept until its last (a reload would read the trace again,
// and columns lie 4 H bytes apart, a power of two, so the lines of one block's rows compete for the
// same few cache sets and are gone by then: reloads measured twice as slow on the Keccak-like bench).
// Each constraint is folded right after its node.
std::vector<Instr> build_stream(const SymbolicDag& dag, const ConstraintSchedule& schedule, const AirShape& shape,
                                const std::vector<uint32_t>& widths) {
  const uint32_t n = static_cast<uint32_t>(dag.nodes.size());
  std::vector<Instr> stream;
  std::vector<uint8_t> loaded(n, 0);
  auto operand = [&](uint32_t node) {
    const DagNode& x = dag.nodes[node];
    if (is_trace_variable(x) && !loaded[node]) {
      stream.push_back(
          {x.var.offset ? Op::LoadNext : Op::LoadLocal, node, checked_part(x.var, shape, widths), x.var.index});
      loaded[node] = 1;
    }
    return node;
  };
  schedule.walk(
      [&](uint32_t i) {
        const DagNode& node = dag.nodes[i];
        if (is_binary(node.kind)) {
          const uint32_t a = operand(node.left), b = operand(node.right);
          stream.push_back({arithmetic_op(node.kind), i, a, b});
        } else if (node.kind == NodeKind::Neg) {
          stream.push_back({Op::Neg, i, operand(node.left), 0});
        }
      },
      [&](uint32_t f, const ConstraintFold& fold) {
        // Four products fit a lazy sum after each reduction (packed_avx512.inl, wide_reduce).
        stream.push_back({f > 0 && f % 4 == 0 ? Op::FoldReduce : Op::Fold, 0, operand(fold.node), fold.constraint});
      });
  return stream;
}

bool defines(const Instr& in) { return in.op != Op::Fold && in.op != Op::FoldReduce; }

// The values an instruction reads: a, then b (kNone where there is none; b also where it is a, so
// that each read counts one of the schedule's uses).
std::array<uint32_t, 2> reads(const Instr& in) {
  switch (in.op) {
    case Op::LoadLocal:
    case Op::LoadNext:
      return {kNone, kNone};
    case Op::Neg:
    case Op::Fold:
    case Op::FoldReduce:
      return {in.a, kNone};
    default:
      return {in.a, in.b};
  }
}

// Registers by liveness (linear scan): a value's register is free at the read that takes its uses
// (ConstraintSchedule::uses: the stream reads each value as often) to zero, and the most recently
// freed one is taken first, so the working set stays small and hot. Values with a fixed register
// keep it. Registers from `first` on; `num_regs` becomes one past the last used.
std::vector<Instr> allocate_registers(std::vector<Instr> stream, std::vector<uint32_t> uses,
                                      const std::vector<uint32_t>& fixed_reg, uint32_t first, uint32_t& num_regs) {
  std::vector<uint32_t> reg(fixed_reg.size(), kNone), free_regs;
  num_regs = first;
  for (Instr& in : stream) {
    const std::array<uint32_t, 2> vs = reads(in);
    std::array<uint32_t, 2> r = {kNone, kNone};
    for (int j = 0; j < 2; ++j) {
      if (vs[j] == kNone) continue;
      r[j] = fixed_reg[vs[j]] != kNone ? fixed_reg[vs[j]] : reg[vs[j]];
      if (--uses[vs[j]] == 0 && fixed_reg[vs[j]] == kNone) free_regs.push_back(r[j]);
    }
    if (in.op != Op::LoadLocal && in.op != Op::LoadNext) {
      in.a = r[0];
      if (is_binary_op(in.op)) in.b = r[1];
    }
    if (defines(in)) {
      if (free_regs.empty()) {
        reg[in.dst] = num_regs++;
      } else {
        reg[in.dst] = free_regs.back();
        free_regs.pop_back();
      }
      in.dst = reg[in.dst];
    }
  }
  return stream;
}

}  // namespace

CompiledConstraints::CompiledConstraints(const SymbolicDag& dag, const AirShape& shape)
    : CompiledConstraints(dag, schedule_constraints(dag), shape) {}

CompiledConstraints::CompiledConstraints(const SymbolicDag& dag, const ConstraintSchedule& schedule,
                                         const AirShape& shape)
    : widths_(shape.row_view_widths()), num_constraints_(dag.num_constraints()), num_nodes_(schedule.live_nodes) {
  const size_t n = dag.nodes.size();
  if (n >= kNone) throw InputError("constraint DAG: too many nodes");
  check_schedule(dag, schedule);

  // Fixed registers: the three selectors, then constants and public values.
  std::vector<uint32_t> fixed_reg(n, kNone);
  for (size_t i = 0; i < n; ++i) {
    const DagNode& node = dag.nodes[i];
    if (!schedule.live[i]) continue;
    const uint32_t next_fixed = eval_cpu_detail::kFirstFixed + static_cast<uint32_t>(fixed_.size());
    if (node.kind == NodeKind::IsFirstRow || node.kind == NodeKind::IsLastRow || node.kind == NodeKind::IsTransition) {
      fixed_reg[i] = uint32_t(node.kind) - uint32_t(NodeKind::IsFirstRow);
    } else if (node.kind == NodeKind::Constant) {
      fixed_reg[i] = next_fixed;
      fixed_.push_back({false, node.constant.mont()});
    } else if (node.kind == NodeKind::Variable && node.var.entry == EntryKind::Public) {
      if (node.var.index >= shape.num_public_values)
        throw InputError(fmt::format("constraint DAG: public value {} of {}", node.var.index, shape.num_public_values));
      fixed_reg[i] = next_fixed;
      fixed_.push_back({true, node.var.index});
      num_public_values_ = std::max(num_public_values_, node.var.index + 1);
    } else if (node.kind == NodeKind::Variable && node.var.entry == EntryKind::Challenge) {
      throw InputError("the constraint DAG reads a challenge variable, which vkstark does not support");
    }
  }
  regs_.num_fixed = static_cast<uint32_t>(fixed_.size());

  std::vector<Instr> stream = build_stream(dag, schedule, shape, widths_);
  code_ = allocate_registers(std::move(stream), schedule.uses, fixed_reg,
                             eval_cpu_detail::kFirstFixed + regs_.num_fixed, regs_.num_regs);
}

eval_cpu_detail::Program CompiledConstraints::program() const {
  eval_cpu_detail::Program p = regs_;
  p.code = code_.data();
  p.code_size = code_.size();
  return p;
}

std::vector<uint32_t> CompiledConstraints::fixed_values(std::span<const Fp> public_values) const {
  std::vector<uint32_t> v(fixed_.size());
  for (size_t i = 0; i < fixed_.size(); ++i)
    v[i] = fixed_[i].is_public ? public_values[fixed_[i].value].mont() : fixed_[i].value;
  return v;
}

std::string CompiledConstraints::summary() const {
  std::array<uint64_t, 8> by_op{};
  for (const Instr& in : code_) ++by_op[size_t(in.op)];
  return fmt::format(
      "{} nodes, {} constraints -> {} instructions ({} loads, {} add, {} sub, {} neg, {} mul, {} folds), {} block "
      "registers ({} fixed) of {} rows",
      num_nodes_, num_constraints_, code_.size(), by_op[size_t(Op::LoadLocal)] + by_op[size_t(Op::LoadNext)],
      by_op[size_t(Op::Add)], by_op[size_t(Op::Sub)], by_op[size_t(Op::Neg)], by_op[size_t(Op::Mul)],
      by_op[size_t(Op::Fold)] + by_op[size_t(Op::FoldReduce)], regs_.num_regs,
      eval_cpu_detail::kFirstFixed + regs_.num_fixed, kBlockRows);
}

namespace {

// 64-byte aligned scratch of one run of blocks.
class ScratchMemory {
 public:
  explicit ScratchMemory(uint32_t num_regs)
      : regs_(allocate<uint32_t>(size_t(num_regs) * kBlockRows)), acc_(allocate<uint64_t>(4 * kBlockRows)) {}
  eval_cpu_detail::Scratch scratch() const { return {regs_.get(), acc_.get()}; }

 private:
  struct Free {
    void operator()(void* p) const { ::operator delete(p, std::align_val_t(64)); }
  };
  template <class T>
  static std::unique_ptr<T[], Free> allocate(size_t n) {
    return std::unique_ptr<T[], Free>(static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t(64))));
  }
  std::unique_ptr<uint32_t[], Free> regs_;
  std::unique_ptr<uint64_t[], Free> acc_;
};

void run_blocks_at(SimdLevel level, const eval_cpu_detail::Program& p, const eval_cpu_detail::Dispatch& d,
                   const eval_cpu_detail::Scratch& s, uint64_t begin, uint64_t end) {
  switch (level) {
    case SimdLevel::Avx512:
      return eval_cpu_detail::eval_blocks_avx512(p, d, s, begin, end);
    case SimdLevel::Avx2:
      return eval_cpu_detail::eval_blocks_avx2(p, d, s, begin, end);
    case SimdLevel::Scalar:
      return eval_cpu_detail::run_blocks(p, d, s, begin, end);
  }
}

}  // namespace

void eval_constraints_cpu(const CompiledConstraints& c, std::span<const std::span<const Fp>> parts,
                          std::span<const Fp> public_values, std::span<const Fp4> lambda_powers, std::span<Fp4> out,
                          uint32_t log_height, bool accumulate) {
  if (log_height > Fp::TWO_ADICITY)
    throw InputError(fmt::format("constraint evaluation: log_height {} > {}", log_height, Fp::TWO_ADICITY));
  const uint64_t height = uint64_t(1) << log_height;
  if (parts.size() != c.num_parts())
    throw InputError(
        fmt::format("constraint evaluation: {} trace parts given, the AIR has {}", parts.size(), c.num_parts()));
  std::vector<const uint32_t*> words(parts.size());
  for (size_t p = 0; p < parts.size(); ++p) {
    if (parts[p].size() < c.part_widths()[p] * height)
      throw InputError(fmt::format("constraint evaluation: part {} holds {} values, not width {} x height {}", p,
                                   parts[p].size(), c.part_widths()[p], height));
    words[p] = reinterpret_cast<const uint32_t*>(parts[p].data());
  }
  if (public_values.size() < c.num_public_values())
    throw InputError(fmt::format("constraint evaluation: {} public values given, the constraints read {}",
                                 public_values.size(), c.num_public_values()));
  if (lambda_powers.size() < c.num_constraints())
    throw InputError(fmt::format("constraint evaluation: {} lambda powers for {} constraints", lambda_powers.size(),
                                 c.num_constraints()));
  if (out.size() < height)
    throw InputError(fmt::format("constraint evaluation: an output of {} values for height {}", out.size(), height));
  const std::vector<uint32_t> fixed = c.fixed_values(public_values);
  const eval_cpu_detail::Program program = c.program();
  const eval_cpu_detail::Dispatch d{.parts = words.data(),
                                    .fixed = fixed.data(),
                                    .lambda_powers = reinterpret_cast<const uint32_t*>(lambda_powers.data()),
                                    .out = reinterpret_cast<uint32_t*>(out.data()),
                                    .log_height = log_height,
                                    .accumulate = accumulate};
  const SimdLevel level = cpu_simd_level();
  // One scratch per thread, not per chunk: registers take megabytes for wide AIRs, and fresh pages
  // cost a fault each.
  tbb::enumerable_thread_specific<ScratchMemory> scratch([&] { return ScratchMemory(program.num_regs); });
  cpu::for_each_chunk(
      (height + kBlockRows - 1) / kBlockRows,
      [&](uint64_t begin, uint64_t end) { run_blocks_at(level, program, d, scratch.local().scratch(), begin, end); },
      1);
}

// Slots of the dispatch (ABI order): parts[0..kMaxViewArray), public_values, lambda_powers, out.
std::function<void(const CpuContext&)> constraint_cpu_body(const SymbolicDag& dag, const AirShape& shape) {
  return constraint_cpu_body(dag, schedule_constraints(dag), shape);
}

std::function<void(const CpuContext&)> constraint_cpu_body(const SymbolicDag& dag, const ConstraintSchedule& schedule,
                                                           const AirShape& shape) {
  constexpr uint32_t kPvSlot = kMaxViewArray, kLambdaSlot = kMaxViewArray + 1, kOutSlot = kMaxViewArray + 2;
  auto compiled = std::make_shared<const CompiledConstraints>(dag, schedule, shape);
  if (compiled->num_parts() > kMaxViewArray)
    throw InputError(
        fmt::format("constraint kernel: {} row-view parts, at most {}", compiled->num_parts(), kMaxViewArray));
  return [compiled](const CpuContext& ctx) {
    std::vector<std::span<const Fp>> parts;
    for (uint32_t p = 0; p < compiled->num_parts(); ++p) parts.push_back(ctx.view<Fp>(p));
    eval_constraints_cpu(*compiled, parts, ctx.view<Fp>(kPvSlot), ctx.view<Fp4>(kLambdaSlot), ctx.view<Fp4>(kOutSlot),
                         ctx.scalars()[0], /*accumulate=*/true);
  };
}

}  // namespace vkstark
