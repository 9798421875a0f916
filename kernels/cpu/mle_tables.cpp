// CPU bodies of kernels/mle_tables.hpp. The PLE fold runs over blocks of chunks at the SIMD level
// of kernels/field/simd_level.hpp (detail/chunk_blocks.hpp).
#include "kernels/mle_tables.hpp"

#include "kernels/cpu/detail/chunk_blocks.hpp"
#include "kernels/cpu/parallel.hpp"
#include "kernels/field/simd_level.hpp"

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
  if (n <= chunk_detail::kMaxFoldN) {  // weights: n of them (PleFoldColumns::check)
    using chunk_detail::kLanes;
    const chunk_detail::PleFold f{.in = in.data(),
                                  .out = reinterpret_cast<uint32_t*>(out.data()),
                                  .w = reinterpret_cast<const uint32_t*>(w.data()),
                                  .log_height = a.log_height,
                                  .log_n = a.log_n,
                                  .chunks = chunks,
                                  .first_chunk = a.first_chunk,
                                  .shift = a.shift};
    const SimdLevel level = cpu_simd_level();
    cpu::for_each_chunk((ctx.grid().x / chunks) * ((chunks + kLanes - 1) / kLanes),
                        [&](uint64_t begin, uint64_t end) { chunk_detail::ple_fold(level, f, begin, end); }, 16);
    return;
  }
  cpu::for_each_index(ctx.grid().x, [&](uint64_t o) {
    const uint64_t c = o / chunks, x = a.first_chunk + o % chunks;
    Fp4 acc;
    for (uint64_t i = 0; i < n; ++i) acc += w[i] * in[c * h + ((x * n + i + a.shift) & (h - 1))];
    out[o] = acc;
  });
}

}  // namespace vkstark
