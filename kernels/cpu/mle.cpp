// CPU body of kernels/mle.hpp.
#include "kernels/mle.hpp"

#include "kernels/cpu/parallel.hpp"

namespace vkstark {

void MleEvalColumnsPartials::cpu(const Args& a, const CpuContext& ctx) {
  auto m = ctx.span(a.matrix);
  auto eq = ctx.span(a.eq);
  auto out = ctx.span(a.partials);
  const uint64_t parts = ctx.grid().x, width = ctx.grid().y;
  cpu::for_each_index(
      parts * width,
      [&](uint64_t e) {
        const uint64_t c = e / parts, i = e % parts;
        Fp4 acc;
        for (uint64_t b = i; b < a.rows; b += parts) acc += eq[b] * m[c * a.col_stride + b];
        out[i * width + c] = acc;
      },
      64);
}

}  // namespace vkstark
