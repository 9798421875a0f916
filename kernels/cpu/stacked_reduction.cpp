// CPU bodies of kernels/stacked_reduction.hpp. The univariate helpers below are the GLSL ones of
// kernels/glsl/stacked_reduction.glsl, step for step (kernels do not include stages/).
#include "kernels/stacked_reduction.hpp"

#include <algorithm>
#include <bit>
#include <span>

#include "kernels/cpu/detail/chunk_blocks.hpp"
#include "kernels/cpu/detail/fp4_blocks.hpp"
#include "kernels/cpu/parallel.hpp"
#include "kernels/field/dft.hpp"

namespace vkstark {

namespace {

Fp4 pow2k(Fp4 x, uint32_t k) {
  for (uint32_t i = 0; i < k; ++i) x = x.square();
  return x;
}

Fp inv_pow2(uint32_t k) { return Fp::from_canonical_unchecked(2).inverse().pow(k); }

// eq_D^(L)(x, y) (protocol.md 5.1).
Fp4 eq_uni(uint32_t L, Fp4 x, Fp4 y) {
  Fp4 res = Fp4::one();
  for (uint32_t k = 0; k < L; ++k) {
    res = (x + y) * res + (x - Fp::one()) * (y - Fp::one());
    x = x.square();
    y = y.square();
  }
  return res * inv_pow2(L);
}

// eq_D^(L)(x, 1).
Fp4 eq_uni_at_one(uint32_t L, Fp4 x) {
  Fp4 res = Fp4::one();
  for (uint32_t k = 0; k < L; ++k) {
    res *= x + Fp::one();
    x = x.square();
  }
  return res * inv_pow2(L);
}

// The lifted D coordinate of a class of log height h: L = min(h, l), y = r_0^(2^(l - L)).
struct ClassPoint {
  uint32_t L;
  Fp4 y;
};
ClassPoint class_point(uint32_t h, uint32_t l, const Fp4& r0) {
  const uint32_t L = std::min(h, l);
  return {L, pow2k(r0, l - L)};
}

}  // namespace

void StackedSliceWeights::cpu(const Args& a, const CpuContext& ctx) {
  const Fp4 lambda = ctx.span(a.lambda)[0];
  auto rot = ctx.span(a.rot);
  auto w = ctx.span(a.weights);
  const Fp4 lambda2 = lambda.square();
  cpu::for_each_chunk(rot.size(), [&](uint64_t i0, uint64_t i1) {
    Fp4 p = lambda2.pow(i0);
    for (uint64_t i = i0; i < i1; ++i, p *= lambda2) {
      w[2 * i] = p;
      w[2 * i + 1] = rot[i] != 0 ? p * lambda : Fp4::zero();
    }
  });
}

void StackedRound0SliceSums::cpu(const Args& a, const CpuContext& ctx) {
  auto trace = ctx.span(a.trace);
  auto eq = ctx.span(a.eq);
  auto out = ctx.span(a.sums);
  const uint64_t n = uint64_t(1) << a.l_skip, cmask = (uint64_t(1) << a.log_chunks) - 1;
  const uint32_t log_run = a.log_chunks - a.log_parts;  // chunks per part
  const uint64_t rows = out.size() / (2 * n), run = uint64_t(1) << log_run;
  // About 2^14 entries per task.
  const uint64_t grain = uint64_t(1) << (14 - std::min<uint32_t>(14, log_run + a.l_skip));
  if (a.l_skip == 4) {  // chunks of 16 over SIMD lanes (detail/chunk_blocks.hpp)
    const chunk_detail::SliceSums16 r{.trace = trace.data(),
                                      .eq = reinterpret_cast<const uint32_t*>(eq.data()),
                                      .out = reinterpret_cast<uint32_t*>(out.data()),
                                      .log_chunks = a.log_chunks,
                                      .log_parts = a.log_parts};
    const SimdLevel level = cpu_simd_level();
    cpu::for_each_chunk(
        rows, [&](uint64_t b, uint64_t e) { chunk_detail::slice_sums16(level, r, b, e); }, grain);
    return;
  }
  cpu::for_each_index(
      rows,
      [&](uint64_t row) {
        const uint64_t k = row >> a.log_parts, x0 = (row & ((uint64_t(1) << a.log_parts) - 1)) << log_run;
        Fp4* ae = out.data() + 2 * row * n;
        Fp4* ad = ae + n;
        std::fill(ae, ae + 2 * n, Fp4::zero());
        for (uint64_t x = x0; x < x0 + run; ++x) {
          const Fp4 e = eq[x], d = eq[(x - 1) & cmask] - e;
          const Fp* chunk = trace.data() + (((k << a.log_chunks) + x) << a.l_skip);
          for (uint64_t s = 0; s < n; ++s) {
            ae[s] += e * chunk[s];
            ad[s] += d * chunk[s];
          }
        }
      },
      grain);
}

void StackedRound0Weigh::cpu(const Args& a, const CpuContext& ctx) {
  auto in = ctx.span(a.sums);
  auto w = ctx.span(a.weights);
  auto out = ctx.span(a.partials);
  const uint64_t n = uint64_t(1) << a.l_skip, rows = in.size() / (2 * n), parts = out.size() / (3 * n);
  cpu::for_each_index(
      parts,
      [&](uint64_t p) {
        Fp4* acc = out.data() + 3 * p * n;
        std::fill(acc, acc + 3 * n, Fp4::zero());
        for (uint64_t row = p; row < rows; row += parts) {
          const uint64_t k = row >> a.log_parts;
          const Fp4 w0 = w[2 * k], w1 = w[2 * k + 1];
          const Fp4* se = in.data() + 2 * row * n;
          const Fp4* sd = se + n;
          for (uint64_t s = 0; s < n; ++s) {
            acc[s] += w0 * se[s];
            acc[n + s] += w1 * se[s];
            acc[2 * n + s] += w1 * sd[s];
          }
        }
      },
      std::max<uint64_t>(1, 256 >> a.l_skip));
}

void StackedRound0Sums::cpu(const Args& a, const CpuContext& ctx) {
  auto in = ctx.span(a.partials);
  auto out = ctx.span(a.sums);
  const uint64_t n = uint64_t(1) << a.l_skip, parts = in.size() / (3 * n);
  const Radix2Dft dft(a.l_skip);
  cpu::for_each_index(
      3,
      [&](uint64_t t) {
        std::span<Fp4> v = out.subspan(t * n, n);
        std::fill(v.begin(), v.end(), Fp4::zero());
        for (uint64_t p = 0; p < parts; ++p)
          for (uint64_t s = 0; s < n; ++s) v[s] += in[(3 * p + t) * n + s];
        if (a.mobius == 0)
          dft.inverse(v);
        else
          subset_mobius(v, 0, a.l_skip);
      },
      1);
}

void StackedRound0Poly::cpu(const Args& a, const CpuContext& ctx) {
  auto classes = ctx.span(a.classes);
  const Fp4 r0 = ctx.span(a.r)[0];
  auto sums = ctx.span(a.sums);
  auto out = ctx.span(a.coeffs);
  const uint32_t l = a.l_skip;
  const uint64_t n = uint64_t(1) << l;
  const Fp omega_l = two_adic_generator(l);
  const Fp4 kd = eq_uni_at_one(l, r0 * omega_l);
  const Fp inv_n = inv_pow2(l);
  cpu::for_each_index(
      out.size(),
      [&](uint64_t m) {
        const uint64_t a_lo = m >= n ? m - n + 1 : 0, a_hi = std::min(m, n - 1);
        Fp4 acc;
        for (uint64_t h = 0; h < classes.size(); ++h) {
          const ClassPoint cp = class_point(classes[h], l, r0);
          const uint64_t nl = uint64_t(1) << cp.L;
          const Fp4 y = cp.y, yr = cp.y * two_adic_generator(cp.L);
          const Fp4* v = sums.data() + 3 * n * h;
          // e = (-(m - a)) mod 2^L goes up by one as a does, wrapping to 0 (power 1).
          uint64_t e = (nl - ((m - a_lo) & (nl - 1))) & (nl - 1);
          Fp4 py = y.pow(e), pyr = yr.pow(e), d;
          for (uint64_t i = a_lo; i <= a_hi; ++i) {
            acc += v[i] * py + v[n + i] * pyr;
            d += v[2 * n + i];
            if (++e == nl) {
              e = 0;
              py = pyr = Fp4::one();
            } else {
              py *= y;
              pyr *= yr;
            }
          }
          acc += d * kd;
        }
        out[m] = acc * inv_n;
      },
      1);
}

void StackedFoldWeights::cpu(const Args& a, const CpuContext& ctx) {
  const Fp4 z = ctx.span(a.z)[0];
  auto out = ctx.span(a.out);
  out[0] = Fp4::one();
  Fp4 x = z;
  for (uint32_t k = 0; k < a.l_skip; ++k, x = x.square()) {
    const uint64_t h = uint64_t(1) << k;
    for (uint64_t b = 0; b < h; ++b) {
      out[b + h] = out[b] * x;
      out[b] = out[b] * (Fp4::one() - x);
    }
  }
}

void StackedFoldChunks::cpu(const Args& a, const CpuContext& ctx) {
  auto msg = ctx.span(a.message);
  auto w = ctx.span(a.weights);
  auto out = ctx.span(a.out);
  const uint64_t n = w.size();
  if (n <= chunk_detail::kMaxFoldN && std::has_single_bit(n) && !msg.empty()) {
    // PleFoldColumns' blocks over SIMD lanes, the message cut into columns of the largest power of
    // two that divides its length (n divides it: StackedFoldChunks::check).
    using chunk_detail::kLanes;
    const uint64_t log_h = uint64_t(std::countr_zero(msg.size())), columns = msg.size() >> log_h;
    const uint64_t per_column = (uint64_t(1) << log_h) / n;
    const chunk_detail::PleFold f{.in = msg.data(),
                                  .out = reinterpret_cast<uint32_t*>(out.data()),
                                  .w = reinterpret_cast<const uint32_t*>(w.data()),
                                  .log_height = log_h,
                                  .log_n = uint64_t(std::countr_zero(n)),
                                  .chunks = per_column,
                                  .first_chunk = 0,
                                  .shift = 0};
    const SimdLevel level = cpu_simd_level();
    cpu::for_each_chunk(
        columns * ((per_column + kLanes - 1) / kLanes),
        [&](uint64_t begin, uint64_t end) { chunk_detail::ple_fold(level, f, begin, end); }, 16);
    return;
  }
  cpu::for_each_index(
      out.size(),
      [&](uint64_t j) {
        Fp4 acc;
        for (uint64_t s = 0; s < n; ++s) acc += w[s] * msg[j * n + s];
        out[j] = acc;
      },
      256);
}

void StackedSliceCoeffs::cpu(const Args& a, const CpuContext& ctx) {
  auto heights = ctx.span(a.log_heights);
  const Fp4 r0 = ctx.span(a.r)[0], u0 = ctx.span(a.u)[0];
  auto w = ctx.span(a.weights);
  auto out = ctx.span(a.coeffs);
  const uint32_t l = a.l_skip;
  const Fp4 gamma = eq_uni_at_one(l, u0) * eq_uni_at_one(l, r0 * two_adic_generator(l));
  cpu::for_each_index(
      heights.size(),
      [&](uint64_t i) {
        const uint32_t h = heights[i];
        const ClassPoint cp = class_point(h, l, r0);
        const Fp4 alpha = eq_uni(cp.L, u0, cp.y), beta = eq_uni(cp.L, u0, cp.y * two_adic_generator(cp.L));
        const Fp4 in = h < l ? eq_uni_at_one(l - h, pow2k(u0, cp.L)) : Fp4::one();
        out[2 * i] = in * (w[2 * i] * alpha + w[2 * i + 1] * beta);
        out[2 * i + 1] = h > l ? w[2 * i + 1] * gamma : Fp4::zero();
      },
      64);
}

void StackedKernelTable::cpu(const Args& a, const CpuContext& ctx) {
  auto eq = ctx.span(a.eq);
  auto c = ctx.span(a.coeffs);
  auto out = ctx.span(a.table);
  const fp4_detail::KernelTable t{.eq = eq.data(), .coeffs = c.data(), .out = out.data(), .log_chunks = a.log_chunks};
  const SimdLevel level = cpu_simd_level();
  cpu::for_each_chunk(
      out.size(), [&](uint64_t b, uint64_t e) { fp4_detail::kernel_table(level, t, b, e); }, 1024);
}

void StackedFoldPartials::cpu(const Args& a, const CpuContext& ctx) {
  auto f = ctx.span(a.f);
  auto w = ctx.span(a.w);
  const Fp4 alpha = ctx.span(a.alpha)[0];
  auto fd = ctx.span(a.f_dst);
  auto wd = ctx.span(a.w_dst);
  auto partials = ctx.span(a.partials);
  const uint64_t parts = partials.size() / 2, stride = uint64_t(kSumcheckLanes) * parts, pairs = a.pairs;
  // Pair y folds f[4y], f[4y + 1] into fd[2y] and f[4y + 2], f[4y + 3] into fd[2y + 1] (w likewise),
  // then adds the products of the folded pair (fd[2y], fd[2y + 1]) and (wd[2y], wd[2y + 1]).
  const fp4_detail::FoldPairs ff{.src = f.data(), .dst = fd.data(), .alpha = alpha};
  const fp4_detail::FoldPairs fw{.src = w.data(), .dst = wd.data(), .alpha = alpha};
  const SimdLevel level = cpu_simd_level();
  cpu::for_each_index(
      parts,
      [&](uint64_t p) {
        Fp4 s1, s2;
        for (uint64_t start = p * kSumcheckLanes; start < pairs; start += stride) {
          const uint64_t end = std::min<uint64_t>(start + kSumcheckLanes, pairs);
          fp4_detail::fold_pairs(level, ff, 2 * start, 2 * end);
          fp4_detail::fold_pairs(level, fw, 2 * start, 2 * end);
          const fp4_detail::ProductSums r = fp4_detail::product_sums(level, fd.data(), wd.data(), start, end);
          s1 += r.s1;
          s2 += r.s2;
        }
        partials[2 * p] = s1;
        partials[2 * p + 1] = s2;
      },
      1);
}

}  // namespace vkstark
