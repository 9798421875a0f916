// CPU bodies of kernels/whir.hpp. These are the CPU prover's WHIR hot paths: eq-like tables are
// built from two half tables (over the low and the high bits of b) with one product per entry, and
// strided partial sums visit memory in order.
#include "kernels/whir.hpp"

#include <algorithm>
#include <vector>

#include "kernels/cpu/detail/fp4_blocks.hpp"
#include "kernels/cpu/parallel.hpp"
#include "kernels/field/lazy_sum.hpp"
#include "kernels/field/simd_level.hpp"

namespace vkstark {

namespace {

// t[b] = init * prod_{k < n} (b_k ? x1[k] : x0[k]) for b < 2^n, by doubling: after step k the
// first 2^(k+1) entries are the table over the first k + 1 coordinates (little-endian, so
// coordinate k is bit k). 2^(n+1) multiplications; used for the small half tables.
template <class T, class X>
void doubling_table(T* t, uint32_t n, const T& init, const X* x0, const X* x1) {
  t[0] = init;
  for (uint32_t k = 0; k < n; ++k) {
    const uint64_t h = uint64_t(1) << k;
    for (uint64_t b = 0; b < h; ++b) {
      t[b + h] = t[b] * x1[k];
      t[b] = t[b] * x0[k];
    }
  }
}

// Split of m coordinates into the low bits (the inner, contiguous half table) and the high bits.
uint32_t low_bits(uint32_t m) { return (m + 1) / 2; }

// out[b] = prod_{k < m} (b_k ? x1[k] : x0[k]) for b < 2^m: half tables over the low and the high
// bits of b, then one product per entry.
void product_table(std::span<Fp4> out, uint32_t m, const std::vector<Fp4>& x0, const std::vector<Fp4>& x1) {
  const uint32_t lb = low_bits(m), hb = m - lb;
  std::vector<Fp4> lo(uint64_t(1) << lb), hi(uint64_t(1) << hb);
  doubling_table(lo.data(), lb, Fp4::one(), x0.data(), x1.data());
  doubling_table(hi.data(), hb, Fp4::one(), x0.data() + lb, x1.data() + lb);
  const uint64_t mask = lo.size() - 1;
  cpu::for_each_chunk(uint64_t(1) << m, [&](uint64_t b0, uint64_t b1) {
    for (uint64_t b = b0; b < b1; ++b) out[b] = lo[b & mask] * hi[b >> lb];
  });
}

// out[i * width + c] = sum_{j = i mod g, j < n} term_c(j) for i < g, c < width, where add(j, acc)
// adds term_c(j) to acc[c]. Rows j = r g .. r g + g - 1 are visited in order of j (streaming the
// inputs); with a narrow grid the rows are split into blocks with partials of their own, summed at
// the end (exact arithmetic: the order of the additions does not change the result).
template <class Add>
void strided_partials(uint64_t n, uint64_t g, uint64_t width, Fp4* out, Add add) {
  if (g == 0) return;
  std::fill(out, out + g * width, Fp4::zero());
  const uint64_t rows = (n + g - 1) / g;
  auto rows_into = [&](Fp4* acc, uint64_t i0, uint64_t i1, uint64_t r0, uint64_t r1) {
    for (uint64_t r = r0; r < r1; ++r) {
      const uint64_t j0 = r * g + i0;
      if (j0 >= n) break;
      const uint64_t e = std::min(i1 - i0, n - j0);
      for (uint64_t k = 0; k < e; ++k) add(j0 + k, acc + k * width);
    }
  };
  constexpr uint64_t kWideGrid = 1024;  // enough columns of partials to spread over threads
  if (g >= kWideGrid || rows * width <= 4096) {
    const uint64_t grain = std::max<uint64_t>(1, 16384 / std::max<uint64_t>(1, rows * width));
    cpu::for_each_chunk(
        g, [&](uint64_t i0, uint64_t i1) { rows_into(out + i0 * width, i0, i1, 0, rows); }, grain);
    return;
  }
  const uint64_t blocks = std::min<uint64_t>(rows, 256);
  std::vector<Fp4> local(blocks * g * width);
  cpu::for_each_index(
      blocks,
      [&](uint64_t blk) {
        rows_into(local.data() + blk * g * width, 0, g, rows * blk / blocks, rows * (blk + 1) / blocks);
      },
      1);
  cpu::for_each_index(g * width, [&](uint64_t x) {
    Fp4 s = Fp4::zero();
    for (uint64_t blk = 0; blk < blocks; ++blk) s += local[blk * g * width + x];
    out[x] = s;
  });
}

bool is_base(const Fp4& z) { return z.c[1].is_zero() && z.c[2].is_zero() && z.c[3].is_zero(); }

}  // namespace

void BatchColumnsExt::cpu(const Args& a, const CpuContext& ctx) {
  auto m = ctx.span(a.matrix);
  const Fp4 mu = ctx.span(a.mu)[0];
  auto acc = ctx.span(a.acc);
  std::vector<Fp4> powers(a.width);
  Fp4 p = mu.pow(a.first_power);
  for (auto& x : powers) {
    x = p;
    p *= mu;
  }
  const fp4_detail::BatchColumns bc{
      .matrix = m.data(), .col_stride = a.col_stride, .powers = powers.data(), .width = a.width, .acc = acc.data()};
  const SimdLevel level = cpu_simd_level();
  cpu::for_each_chunk(
      acc.size(), [&](uint64_t b0, uint64_t b1) { fp4_detail::batch_columns(level, bc, b0, b1); }, 1024);
}

void MobiusEqTable::cpu(const Args& a, const CpuContext& ctx) {
  auto u = ctx.span(a.u);
  std::vector<Fp4> x0(a.m), x1(a.m);
  for (uint32_t k = 0; k < a.m; ++k) {
    x0[k] = Fp4::one() - u[k] - u[k];
    x1[k] = u[k];
  }
  product_table(ctx.span(a.out), a.m, x0, x1);
}

void EqTable::cpu(const Args& a, const CpuContext& ctx) {
  auto u = ctx.span(a.u);
  std::vector<Fp4> x0(a.m), x1(a.m);
  for (uint32_t k = 0; k < a.m; ++k) {
    x0[k] = Fp4::one() - u[k];
    x1[k] = u[k];
  }
  product_table(ctx.span(a.out), a.m, x0, x1);
}

void UCube::cpu(const Args& a, const CpuContext& ctx) {
  auto u = ctx.span(a.u);
  auto cube = ctx.span(a.cube);
  if (u.empty()) return;
  Fp4 x = u[0];
  for (uint32_t j = 0; j < a.l_skip; ++j) {
    cube[j] = x;
    x = x.square();
  }
  for (size_t i = 1; i < u.size(); ++i) cube[a.l_skip + i - 1] = u[i];
}

void SumcheckProductPartials::cpu(const Args& a, const CpuContext& ctx) {
  auto f = ctx.span(a.f);
  auto w = ctx.span(a.w);
  auto partials = ctx.span(a.partials);
  const uint64_t parts = partials.size() / 2, stride = uint64_t(kSumcheckLanes) * parts, pairs = a.pairs;
  const SimdLevel level = cpu_simd_level();
  // Partial p: the blocks of 64 pairs at 64 p, 64 p + stride, ... (the workgroups of the GLSL body).
  cpu::for_each_index(
      parts,
      [&](uint64_t p) {
        Fp4 s1, s2;
        for (uint64_t start = p * kSumcheckLanes; start < pairs; start += stride) {
          const uint64_t end = std::min<uint64_t>(start + kSumcheckLanes, pairs);
          const fp4_detail::ProductSums r = fp4_detail::product_sums(level, f.data(), w.data(), start, end);
          s1 += r.s1;
          s2 += r.s2;
        }
        partials[2 * p] = s1;
        partials[2 * p + 1] = s2;
      },
      1);
}

void ReduceFp4::cpu(const Args& a, const CpuContext& ctx) {
  auto in = ctx.span(a.in);
  const uint64_t width = a.width;
  strided_partials(a.n, ctx.span(a.out).size() / width, width, ctx.span(a.out).data(), [&](uint64_t j, Fp4* acc) {
    for (uint64_t c = 0; c < width; ++c) acc[c] += in[j * width + c];
  });
}

void FoldPairsFp4::cpu(const Args& a, const CpuContext& ctx) {
  auto src = ctx.span(a.src);
  const Fp4 alpha = ctx.span(a.alpha)[0];
  auto dst = ctx.span(a.dst);
  const fp4_detail::FoldPairs f{.src = src.data(), .dst = dst.data(), .alpha = alpha};
  const SimdLevel level = cpu_simd_level();
  cpu::for_each_chunk(
      ctx.grid().x, [&](uint64_t b, uint64_t e) { fp4_detail::fold_pairs(level, f, b, e); }, 1024);
}

void FoldPairs2Fp4::cpu(const Args& a, const CpuContext& ctx) {
  auto f = ctx.span(a.f);
  auto w = ctx.span(a.w);
  const Fp4 alpha = ctx.span(a.alpha)[0];
  auto f_dst = ctx.span(a.f_dst);
  auto w_dst = ctx.span(a.w_dst);
  const fp4_detail::FoldPairs ff{.src = f.data(), .dst = f_dst.data(), .alpha = alpha};
  const fp4_detail::FoldPairs fw{.src = w.data(), .dst = w_dst.data(), .alpha = alpha};
  const SimdLevel level = cpu_simd_level();
  cpu::for_each_chunk(
      ctx.grid().x,
      [&](uint64_t b, uint64_t e) {
        fp4_detail::fold_pairs(level, ff, b, e);
        fp4_detail::fold_pairs(level, fw, b, e);
      },
      1024);
}

void EvalPolyPartials::cpu(const Args& a, const CpuContext& ctx) {
  auto coeffs = ctx.span(a.coeffs);
  const Fp4 z = ctx.span(a.z)[0];
  auto partials = ctx.span(a.partials);
  const uint64_t n = a.n, chunk = a.chunk;
  cpu::for_each_index(
      ctx.grid().x,
      [&](uint64_t i) {
        const uint64_t start = i * chunk, end = std::min(n, start + chunk);
        if (start >= end) {
          partials[i] = Fp4::zero();
          return;
        }
        Fp4 h = coeffs[end - 1];  // Horner over the chunk, then shift by z^start
        for (uint64_t j = end - 1; j > start; --j) h = h * z + coeffs[j - 1];
        partials[i] = h * z.pow(start);
      },
      std::max<uint64_t>(1, 4096 / std::max<uint64_t>(1, chunk)));
}

void QueryPoints::cpu(const Args& a, const CpuContext& ctx) {
  auto idx = ctx.span(a.idx);
  auto points = ctx.span(a.points);
  const Fp g = two_adic_generator(a.log_domain);
  cpu::for_each_index(
      ctx.grid().x, [&](uint64_t q) { points[q] = Fp4(g.pow(idx[q])); }, 256);
}

// Per point z_i: half tables of eq(b, pow(z_i)) over the low bits (unweighted) and the high bits
// (times gamma^(i+1)), so that each entry costs one product per point. Points in the base field
// (the query points z_q) get base-field low tables: an Fp x Fp4 product per entry instead of an
// Fp4 x Fp4 one.
void EqPowAccumulate::cpu(const Args& a, const CpuContext& ctx) {
  auto w = ctx.span(a.w);
  auto points = ctx.span(a.points);
  const Fp4 gamma = ctx.span(a.gamma)[0];
  const uint32_t m = a.m, lb = low_bits(m), hb = m - lb;
  const uint64_t lo_n = uint64_t(1) << lb, hi_n = uint64_t(1) << hb, mask = lo_n - 1;

  std::vector<uint32_t> base_pts, ext_pts;  // point indices
  for (uint32_t i = 0; i < points.size(); ++i) (is_base(points[i]) ? base_pts : ext_pts).push_back(i);
  std::vector<Fp4> weight(points.size());
  Fp4 gp = gamma;
  for (auto& x : weight) {
    x = gp;
    gp *= gamma;
  }
  const uint64_t pb = base_pts.size(), pe = ext_pts.size();
  // Entry-major layouts: lo_*[bl * P + j], hi_*[bh * P + j], so the inner loop over points is contiguous.
  std::vector<Fp> lo_base(lo_n * pb);
  std::vector<Fp4> hi_base(hi_n * pb), lo_ext(lo_n * pe), hi_ext(hi_n * pe);

  auto build = [&]<class T>(const T& z, const Fp4& weight_i, std::vector<T>& lo, std::vector<Fp4>& hi) {
    std::vector<T> x0(m), x1(m);
    T x = z;
    for (uint32_t k = 0; k < m; ++k) {
      x0[k] = T(Fp::one()) - x;
      x1[k] = x;
      x = x * x;
    }
    lo.resize(lo_n);
    std::vector<T> hi_t(hi_n);
    doubling_table(lo.data(), lb, T(Fp::one()), x0.data(), x1.data());
    doubling_table(hi_t.data(), hb, T(Fp::one()), x0.data() + lb, x1.data() + lb);
    hi.resize(hi_n);
    for (uint64_t h = 0; h < hi_n; ++h) hi[h] = weight_i * hi_t[h];
  };
  cpu::for_each_index(
      pb + pe,
      [&](uint64_t j) {
        std::vector<Fp4> hi;
        if (j < pb) {
          std::vector<Fp> lo;
          const Fp4& z = points[base_pts[j]];
          build(z.c[0], weight[base_pts[j]], lo, hi);
          for (uint64_t l = 0; l < lo_n; ++l) lo_base[l * pb + j] = lo[l];
          for (uint64_t h = 0; h < hi_n; ++h) hi_base[h * pb + j] = hi[h];
        } else {
          const uint64_t e = j - pb;
          std::vector<Fp4> lo;
          build(points[ext_pts[e]], weight[ext_pts[e]], lo, hi);
          for (uint64_t l = 0; l < lo_n; ++l) lo_ext[l * pe + e] = lo[l];
          for (uint64_t h = 0; h < hi_n; ++h) hi_ext[h * pe + e] = hi[h];
        }
      },
      1);

  cpu::for_each_chunk(
      uint64_t(1) << m,
      [&](uint64_t b0, uint64_t b1) {
        for (uint64_t b = b0; b < b1; ++b) {
          const uint64_t l = b & mask, h = b >> lb;
          Fp4LazySum base;
          const Fp* lo = lo_base.data() + l * pb;
          const Fp4* hi = hi_base.data() + h * pb;
          for (uint64_t j = 0; j < pb; ++j) base.add(hi[j], lo[j]);
          Fp4 acc = w[b] + base.value();
          const Fp4* lo4 = lo_ext.data() + l * pe;
          const Fp4* hi4 = hi_ext.data() + h * pe;
          for (uint64_t j = 0; j < pe; ++j) acc += hi4[j] * lo4[j];
          w[b] = acc;
        }
      },
      std::max<uint64_t>(16, 65536 / std::max<uint64_t>(1, 4 * pe + pb)));
}

}  // namespace vkstark
