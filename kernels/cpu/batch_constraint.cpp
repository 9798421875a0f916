// CPU bodies of kernels/batch_constraint.hpp. The coset extension is the hot one (keccakf: 2633 columns
// of 2^15 rows, twice per coset). For N = 16 (the app params) it runs the device's two DFTs of 16
// points over blocks of chunks, at the SIMD level of kernels/field/simd_level.hpp
// (detail/chunk_blocks.hpp); other N take the N^2 products of Montgomery forms summed lazily in 64
// bits (reduced once per value), the block's lanes innermost so that the compiler vectorizes them.
#include "kernels/batch_constraint.hpp"

#include <algorithm>
#include <array>
#include <vector>

#include "kernels/cpu/detail/chunk_blocks.hpp"
#include "kernels/cpu/parallel.hpp"
#include "kernels/field/simd_level.hpp"

namespace vkstark {

namespace {

// Chunks extended together: the inner loops run over them (one vector lane each).
constexpr uint64_t kExtendBlock = 16;

// s mod p up to a multiple of p, below 2^61: lo + hi (2^32 mod p) with hi < 2^32, 2^32 mod p < 2^28.
inline uint64_t fold(uint64_t s) { return (s & 0xFFFFFFFFu) + (s >> 32) * uint64_t(Fp::R_MOD_P); }

// out[b] = sum_{i < n} w[i] a[i][b] for b < B, from Montgomery forms: each product is below
// p^2 < 2^62, so four of them fit 64 bits; every group of four is folded into a running sum that
// is folded again before each addition (below 2^62), and the final fold (below 2^61 < p 2^32) is
// Montgomery-reduced: (sum w a R^2) R^-1 is the Montgomery form of sum w a.
template <uint64_t B>
void lazy_dot(const uint32_t* w, const uint32_t (*a)[B], uint64_t n, uint64_t lanes, Fp* out, uint64_t out_stride) {
  uint64_t total[B] = {};
  for (uint64_t i0 = 0; i0 < n; i0 += 4) {
    uint64_t s[B] = {};
    const uint64_t i1 = std::min(n, i0 + 4);
    for (uint64_t i = i0; i < i1; ++i) {
      const uint64_t wi = w[i];
      for (uint64_t b = 0; b < B; ++b) s[b] += wi * a[i][b];
    }
    for (uint64_t b = 0; b < B; ++b) total[b] = fold(total[b]) + fold(s[b]);
  }
  for (uint64_t b = 0; b < lanes; ++b) out[b * out_stride] = Fp::from_mont(Fp::mont_reduce(fold(total[b])));
}

}  // namespace

void ZerocheckCosetExtend::cpu(const Args& a, const CpuContext& ctx) {
  auto in = ctx.span(a.in);
  auto weights = ctx.span(a.weights);
  auto out = ctx.span(a.out);
  const uint64_t n = uint64_t(1) << a.log_n, h = uint64_t(1) << a.log_height, mask = h - 1;
  const uint64_t chunks = uint64_t(1) << a.log_chunks, m = chunks * n;  // this block's chunks
  const uint64_t cols = ctx.grid().x / chunks;
  if (a.log_n == ZerocheckCosetExtend::kFftLogN && ctx.span(a.fft).size() == ZerocheckCosetExtend::kFftTable) {
    using chunk_detail::kLanes;
    const chunk_detail::Extend16 e{.in = in.data(),
                                   .out = out.data(),
                                   .fft = ctx.span(a.fft).data(),
                                   .log_height = a.log_height,
                                   .chunks = chunks,
                                   .first_chunk = a.first_chunk,
                                   .shift = a.shift};
    const SimdLevel level = cpu_simd_level();
    cpu::for_each_chunk(
        cols * ((chunks + kLanes - 1) / kLanes),
        [&](uint64_t begin, uint64_t end) { chunk_detail::extend16(level, e, begin, end); }, 16);
    return;
  }
  const uint64_t blocks_per_col = (chunks + kExtendBlock - 1) / kExtendBlock;
  std::vector<uint32_t> w(weights.size());
  for (size_t i = 0; i < w.size(); ++i) w[i] = weights[i].mont();
  cpu::for_each_index(
      cols * blocks_per_col,
      [&](uint64_t blk) {
        const uint64_t c = blk / blocks_per_col, x0 = (blk % blocks_per_col) * kExtendBlock;
        const uint64_t lanes = std::min(kExtendBlock, chunks - x0);
        // The block's chunks transposed: a[i][b] = row (x0 + b) N + i + shift of column c.
        std::vector<std::array<uint32_t, kExtendBlock>> at(n);
        const Fp* col = in.data() + c * h;
        for (uint64_t b = 0; b < kExtendBlock; ++b) {
          const uint64_t first = (a.first_chunk + x0 + std::min(b, lanes - 1)) * n + a.shift;
          for (uint64_t i = 0; i < n; ++i) at[i][b] = col[(first + i) & mask].mont();
        }
        const auto* rows = reinterpret_cast<const uint32_t(*)[kExtendBlock]>(at.data());
        for (uint64_t k = 0; k < n; ++k)
          lazy_dot<kExtendBlock>(w.data() + k * n, rows, n, lanes, out.data() + c * m + k * chunks + x0, 1);
      },
      std::max<uint64_t>(1, 64 / n));
}

void ZerocheckWeightedSums::cpu(const Args& a, const CpuContext& ctx) {
  auto values = ctx.span(a.values);
  auto eq = ctx.span(a.eq);
  auto partials = ctx.span(a.partials);
  const uint64_t n = a.n, chunks = eq.size(), m = chunks * n;
  const uint64_t groups = partials.size() / (kZerocheckFunctionals * n);  // J
  cpu::for_each_index(
      partials.size(),
      [&](uint64_t w) {
        const uint64_t k = w % n, f = (w / n) % kZerocheckFunctionals, j = w / (kZerocheckFunctionals * n);
        Fp4 s;
        if ((a.present >> f) & 1) {
          for (uint64_t sl = 0; sl < a.slices; ++sl) {
            const Fp4* v = values.data() + (f * a.slices + sl) * m + k * chunks;
            for (uint64_t start = j * kZerocheckLanes; start < chunks; start += kZerocheckLanes * groups) {
              const uint64_t end = std::min<uint64_t>(start + kZerocheckLanes, chunks);
              for (uint64_t x = start; x < end; ++x) s += eq[x] * v[x];
            }
          }
        }
        partials[w] = s;
      },
      1);
}

void ZerocheckInterpolate::cpu(const Args& a, const CpuContext& ctx) {
  auto partials = ctx.span(a.partials);
  auto matrix = ctx.span(a.matrix);
  auto scale = ctx.span(a.scale);
  auto coeffs = ctx.span(a.coeffs);
  const uint64_t n = uint64_t(1) << a.log_n, cosets = scale.size() / kZerocheckFunctionals, kk = cosets * n;
  const uint64_t stride = kZerocheckFunctionals * n, per_coset = a.rows * stride;
  // v(f, m): the partials summed and scaled, once (each coefficient reads all of them).
  std::vector<Fp4> v(kZerocheckFunctionals * kk);
  for (uint64_t f = 0; f < kZerocheckFunctionals; ++f)
    for (uint64_t c = 0; c < cosets; ++c)
      for (uint64_t k = 0; k < n; ++k) {
        Fp4 s;
        for (uint64_t j = 0; j < a.rows; ++j) s += partials[c * per_coset + j * stride + f * n + k];
        v[f * kk + c * n + k] = s * scale[f * cosets + c];
      }
  cpu::for_each_index(
      coeffs.size(),
      [&](uint64_t o) {
        const uint64_t f = o / kk, i = o % kk;
        Fp4 acc;
        for (uint64_t mm = 0; mm < kk; ++mm) acc += v[f * kk + mm] * matrix[i * kk + mm];
        coeffs[o] = acc;
      },
      16);
}

void ZerocheckRound0Polys::cpu(const Args& a, const CpuContext& ctx) {
  auto coeffs = ctx.span(a.coeffs);
  auto eq = ctx.span(a.eq_polys);
  auto polys = ctx.span(a.polys);
  const uint64_t n = uint64_t(1) << a.log_n, len = polys.size() / 3, kk = coeffs.size() / 3;
  const uint64_t zc_len = uint64_t(a.trace_degree) * (n - 1) + 1;
  // s'_zc = (Z^N - 1) q truncated to zc_len coefficients.
  auto zc = [&](uint64_t b) {
    Fp4 t = b < kk ? -coeffs[b] : Fp4();
    if (b >= n && b - n < kk) t += coeffs[b - n];
    return t;
  };
  cpu::for_each_index(
      polys.size(),
      [&](uint64_t o) {
        const uint64_t f = o / len, j = o % len, lo = j >= n ? j - n + 1 : 0;
        Fp4 acc;
        if (f < 2) {
          const Fp4* src = coeffs.data() + (f + 1) * kk;
          for (uint64_t b = lo; b <= std::min(j, kk - 1); ++b) acc += eq[j - b] * src[b];
        } else {
          for (uint64_t b = lo; b <= std::min(j, zc_len - 1); ++b) acc += eq[n + j - b] * zc(b);
        }
        polys[o] = acc;
      },
      64);
}

void ZerocheckEqPolys::cpu(const Args& a, const CpuContext& ctx) {
  auto xi = ctx.span(a.xi);
  auto inv_roots = ctx.span(a.inv_roots);
  auto out = ctx.span(a.out);
  const uint64_t n = uint64_t(1) << a.log_n;
  const Fp n_inv = Fp::from_canonical_unchecked(uint32_t(n)).inverse();
  std::vector<Fp4> e(n);  // eq(xi[0..l], bits_l(k))
  for (uint64_t k = 0; k < n; ++k) {
    Fp4 v = Fp4::one();
    for (uint32_t t = 0; t < a.log_n; ++t) v *= ((k >> t) & 1) ? xi[t] : Fp4::one() - xi[t];
    e[k] = v;
  }
  cpu::for_each_index(
      n,
      [&](uint64_t i) {
        Fp4 acc;
        for (uint64_t k = 0; k < n; ++k) acc += e[k] * inv_roots[(i * k) & (n - 1)];
        out[i] = acc * n_inv;
        out[n + i] = (i == 0 ? Fp4::one() : xi[0].pow(n - i)) * n_inv;
      },
      16);
}

void ZerocheckBatchRound0::cpu(const Args& a, const CpuContext& ctx) {
  auto polys = ctx.span(a.polys);
  const Fp4 mu = ctx.span(a.mu)[0];
  auto coeffs = ctx.span(a.coeffs);
  const uint64_t len = coeffs.size(), traces = polys.size() / (3 * len);
  cpu::for_each_index(
      len,
      [&](uint64_t j) {
        Fp4 acc, pw = Fp4::one();
        for (uint64_t t = 0; t < traces; ++t)
          for (uint64_t f = 0; f < 2; ++f) {  // mu^(2T) s_p, mu^(2T+1) s_q
            acc += pw * polys[(3 * t + f) * len + j];
            pw *= mu;
          }
        for (uint64_t t = 0; t < traces; ++t) {  // mu^(2P+T) s_zc
          acc += pw * polys[(3 * t + 2) * len + j];
          pw *= mu;
        }
        coeffs[j] = acc;
      },
      64);
}

}  // namespace vkstark
