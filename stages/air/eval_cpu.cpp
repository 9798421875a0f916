// CPU body of the constraint kernel (stages/air/constraint_kernel.hpp): row by row through the host
// evaluator. Correct on every AIR; the instruction-stream evaluator over blocks of rows replaces it.
#include <vector>

#include "kernels/cpu/parallel.hpp"
#include "stages/air/constraint_kernel.hpp"
#include "stages/air/eval.hpp"

namespace vkstark {

namespace {

// Slots of the dispatch (ABI order): parts[0..kMaxViewArray), public_values, lambda_powers, out.
constexpr uint32_t kPvSlot = kMaxViewArray, kLambdaSlot = kMaxViewArray + 1, kOutSlot = kMaxViewArray + 2;

class SpanRows final : public RowSource<Fp> {
 public:
  SpanRows(const std::vector<std::span<const Fp>>& parts, std::span<const Fp> pvs, uint32_t log_h)
      : parts_(parts), pvs_(pvs), h_(uint32_t(1) << log_h) {}
  void set_row(uint32_t r) { r_ = r; }
  Fp selector(NodeKind kind) const override {
    const bool v = kind == NodeKind::IsFirstRow ? r_ == 0 : kind == NodeKind::IsLastRow ? r_ == h_ - 1 : r_ != h_ - 1;
    return v ? Fp::one() : Fp::zero();
  }
  Fp value(uint32_t part, uint32_t offset, uint32_t col) const override {
    const uint32_t r = offset == 0 ? r_ : (r_ + 1) & (h_ - 1);
    return parts_[part][size_t(col) * h_ + r];
  }
  Fp public_value(uint32_t i) const override { return pvs_[i]; }

 private:
  const std::vector<std::span<const Fp>>& parts_;
  std::span<const Fp> pvs_;
  uint32_t h_;
  uint32_t r_ = 0;
};

}  // namespace

std::function<void(const CpuContext&)> constraint_cpu_body(const SymbolicDag& dag, const AirShape& shape) {
  return [dag, shape](const CpuContext& ctx) {
    const uint32_t log_h = ctx.scalars()[0];
    const uint32_t nparts = static_cast<uint32_t>(shape.row_view_widths().size());
    std::vector<std::span<const Fp>> parts;
    for (uint32_t p = 0; p < nparts; ++p) parts.push_back(ctx.view<Fp>(p));
    std::span<const Fp> pvs = ctx.view<Fp>(kPvSlot);
    std::span<const Fp4> lambdas = ctx.view<Fp4>(kLambdaSlot);
    std::span<Fp4> out = ctx.view<Fp4>(kOutSlot);
    cpu::for_each_chunk(
        uint64_t(1) << log_h,
        [&](uint64_t begin, uint64_t end) {
          SpanRows rows(parts, pvs, log_h);
          std::vector<Fp> values;
          for (uint64_t r = begin; r < end; ++r) {
            rows.set_row(static_cast<uint32_t>(r));
            eval_nodes(dag, shape, rows, values);
            out[r] = fold_constraints<Fp>(dag, values, lambdas);
          }
        },
        64);
  };
}

}  // namespace vkstark
