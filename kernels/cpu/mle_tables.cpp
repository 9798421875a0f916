// CPU bodies of kernels/mle_tables.hpp.
#include "kernels/mle_tables.hpp"

#include "kernels/cpu/parallel.hpp"

namespace vkstark {

void EqUniWeights::cpu(const Args& a, const CpuContext& ctx) {
  const Fp4 r = ctx.span(a.r)[0];
  auto roots = ctx.span(a.roots);
  auto out = ctx.span(a.out);
  const Fp inv = Fp::from_canonical_unchecked(1u << a.log_n).inverse();
  cpu::for_each_index(ctx.grid().x, [&](uint64_t i) {
    Fp4 x = r, res = Fp4::one();
    Fp y = roots[i];
    for (uint32_t k = 0; k < a.log_n; ++k) {
      res = (x + y) * res + (x - Fp::one()) * (y - Fp::one());
      x = x.square();
      y = y * y;
    }
    out[i] = res * inv;
  });
}

void PleFoldColumns::cpu(const Args& a, const CpuContext& ctx) {
  auto in = ctx.span(a.in);
  auto w = ctx.span(a.weights);
  auto out = ctx.span(a.out);
  const uint64_t h = uint64_t(1) << a.log_height, n = uint64_t(1) << a.log_n;
  const uint64_t chunks = uint64_t(1) << a.log_chunks;
  cpu::for_each_index(ctx.grid().x, [&](uint64_t o) {
    const uint64_t c = o / chunks, x = a.first_chunk + o % chunks;
    Fp4 acc;
    for (uint64_t i = 0; i < n; ++i) acc += w[i] * in[c * h + ((x * n + i + a.shift) & (h - 1))];
    out[o] = acc;
  });
}

}  // namespace vkstark
