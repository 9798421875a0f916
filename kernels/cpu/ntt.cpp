// CPU bodies of kernels/ntt.hpp. The same algorithms as kernels/glsl/ntt*.{glsl,comp}; since every
// field operation returns the canonical element, any evaluation order gives the same bits.
#include "kernels/ntt.hpp"

#include <algorithm>
#include <array>
#include <type_traits>

#include "kernels/cpu/parallel.hpp"
#include "kernels/field/dft.hpp"

namespace vkstark {

namespace {

uint32_t reverse_bits(uint32_t i, uint32_t bits) {
  uint32_t r = 0;
  for (uint32_t b = 0; b < bits; ++b, i >>= 1) r = (r << 1) | (i & 1);
  return r;
}

// omega_N^e (or omega_N^-e) for any e, N = 2^log_tw, from the NttTwiddles table of N/2 entries.
struct Twiddles {
  const Fp* tw;
  uint64_t half;  // N/2
  bool inverse;
  Fp operator()(uint64_t e) const {
    const uint64_t mask = 2 * half - 1;
    e &= mask;
    if (inverse) e = (0 - e) & mask;
    return e < half ? tw[e] : -tw[e - half];
  }
};

// n^-1 = p - (p - 1) / n for n = 2^log_n, since n * ((p - 1) / n) = -1.
Fp inverse_of_power_of_two(uint32_t log_n) { return Fp::from_canonical_unchecked(Fp::P - ((Fp::P - 1) >> log_n)); }

// What one Stockham pass needs, prepared once per dispatch.
template <class T, uint32_t LR>
struct Pass {
  static constexpr uint32_t R = 1u << LR;
  const T* src;
  T* dst;
  uint64_t src_stride, dst_stride;
  uint32_t log_groups;  // log2(n / R)
  uint64_t src_len;     // source entries per column; the rest read as 0
  uint32_t stage;
  uint32_t outer_shift;  // omega_{n/s}^p = omega_N^(p << outer_shift)
  Twiddles tw;
  Fp first;                 // output k is scaled by first * omega_{n/s}^(p k): n^-1 at the end of an inverse
  std::array<Fp, R> inner;  // inner[h + j] = omega_{2h}^j, the decimation-in-time twiddles of half-size h
  std::array<uint32_t, R> rev;
};

// Blocks [begin, end) of W consecutive groups (invocations) i of one column each. v[j][l] holds
// entry j of lane l, so the butterflies run over W independent lanes (vectorisable); when s >= W
// the W lanes share p and so their twiddles, and loads and stores are W-contiguous.
template <class T, uint32_t LR, uint32_t W>
[[gnu::always_inline]] inline void stockham_blocks(const Pass<T, LR>& P, uint64_t begin, uint64_t end) {
  constexpr uint32_t R = Pass<T, LR>::R;
  const uint64_t groups = uint64_t(1) << P.log_groups;
  const uint64_t blocks_per_column = groups / W;
  const uint64_t s = uint64_t(1) << P.stage;
  for (uint64_t b = begin; b < end; ++b) {
    const uint64_t c = b / blocks_per_column;
    const uint64_t i0 = (b % blocks_per_column) * W;
    const T* in = P.src + c * P.src_stride;
    T* out = P.dst + c * P.dst_stride;
    T v[R][W];
    // Bit-reversed load, so that the in-place decimation in time ends in natural order.
    for (uint32_t jj = 0; jj < R; ++jj) {
      const uint64_t at = i0 + uint64_t(P.rev[jj]) * groups;
      if (at + W <= P.src_len) {
        for (uint32_t l = 0; l < W; ++l) v[jj][l] = in[at + l];
      } else {
        for (uint32_t l = 0; l < W; ++l) v[jj][l] = at + l < P.src_len ? in[at + l] : T{};
      }
    }
    for (uint32_t t = 0; t < LR; ++t) {
      const uint32_t h = 1u << t;
#pragma GCC unroll 16
      for (uint32_t j = 0; j < R; ++j) {
        if (j & h) continue;
        const Fp w = P.inner[h + (j & (h - 1))];
        for (uint32_t l = 0; l < W; ++l) {
          const T u = v[j][l];
          const T x = v[j + h][l] * w;
          v[j][l] = u + x;
          v[j + h][l] = u - x;
        }
      }
    }
    // Lane l's outputs are scaled by first * w1[l]^k, w1[l] = omega_{n/s}^p for its p.
    Fp w1[W], wk[W];
    if (s >= W) {
      const Fp w = P.tw((i0 >> P.stage) << P.outer_shift);
      for (uint32_t l = 0; l < W; ++l) w1[l] = w;
    } else {
      for (uint32_t l = 0; l < W; ++l) w1[l] = P.tw(((i0 + l) >> P.stage) << P.outer_shift);
    }
    for (uint32_t l = 0; l < W; ++l) wk[l] = P.first;
    for (uint32_t k = 0; k < R; ++k) {
      for (uint32_t l = 0; l < W; ++l) v[k][l] = v[k][l] * wk[l];
      for (uint32_t l = 0; l < W; ++l) wk[l] = wk[l] * w1[l];
    }
    if (s >= W) {
      T* o = out + (i0 & (s - 1)) + s * R * (i0 >> P.stage);
      for (uint32_t k = 0; k < R; ++k)
        for (uint32_t l = 0; l < W; ++l) o[s * k + l] = v[k][l];
    } else {
      for (uint32_t l = 0; l < W; ++l) {
        const uint64_t i = i0 + l;
        T* o = out + (i & (s - 1)) + s * R * (i >> P.stage);
        for (uint32_t k = 0; k < R; ++k) o[s * k] = v[k][l];
      }
    }
  }
}

constexpr uint32_t kLanes = 8;

// The wide-block bodies, compiled for AVX-512 and AVX2 as well where the compiler can (chosen at
// load time by the CPU); the scalar one handles transforms with fewer than kLanes groups.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define VKSTARK_NTT_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define VKSTARK_NTT_CLONES
#endif
#define VKSTARK_NTT_WIDE(T, LR)                                                                          \
  VKSTARK_NTT_CLONES void stockham_wide_##T##_##LR(const Pass<T, LR>& P, uint64_t begin, uint64_t end) { \
    stockham_blocks<T, LR, kLanes>(P, begin, end);                                                       \
  }
VKSTARK_NTT_WIDE(Fp, 1)
VKSTARK_NTT_WIDE(Fp, 2)
VKSTARK_NTT_WIDE(Fp, 3)
VKSTARK_NTT_WIDE(Fp, 4)
VKSTARK_NTT_WIDE(Fp, 5)
VKSTARK_NTT_WIDE(Fp, 6)
VKSTARK_NTT_WIDE(Fp, 7)
VKSTARK_NTT_WIDE(Fp, 8)
VKSTARK_NTT_WIDE(Fp4, 1)
VKSTARK_NTT_WIDE(Fp4, 2)
VKSTARK_NTT_WIDE(Fp4, 3)
VKSTARK_NTT_WIDE(Fp4, 4)
VKSTARK_NTT_WIDE(Fp4, 5)
VKSTARK_NTT_WIDE(Fp4, 6)
VKSTARK_NTT_WIDE(Fp4, 7)
VKSTARK_NTT_WIDE(Fp4, 8)
#undef VKSTARK_NTT_WIDE

template <class T, uint32_t LR>
void stockham_wide(const Pass<T, LR>& P, uint64_t begin, uint64_t end) {
#define VKSTARK_NTT_CALL(U, K) \
  if constexpr (std::is_same_v<T, U> && LR == K) return stockham_wide_##U##_##K(P, begin, end);
  VKSTARK_NTT_CALL(Fp, 1)
  VKSTARK_NTT_CALL(Fp, 2)
  VKSTARK_NTT_CALL(Fp, 3)
  VKSTARK_NTT_CALL(Fp, 4)
  VKSTARK_NTT_CALL(Fp, 5)
  VKSTARK_NTT_CALL(Fp, 6)
  VKSTARK_NTT_CALL(Fp, 7)
  VKSTARK_NTT_CALL(Fp, 8)
  VKSTARK_NTT_CALL(Fp4, 1)
  VKSTARK_NTT_CALL(Fp4, 2)
  VKSTARK_NTT_CALL(Fp4, 3)
  VKSTARK_NTT_CALL(Fp4, 4)
  VKSTARK_NTT_CALL(Fp4, 5)
  VKSTARK_NTT_CALL(Fp4, 6)
  VKSTARK_NTT_CALL(Fp4, 7)
  VKSTARK_NTT_CALL(Fp4, 8)
#undef VKSTARK_NTT_CALL
}

template <class T, uint32_t LR, class Args>
void stockham_pass(const Args& a, const CpuContext& ctx) {
  using PassT = Pass<T, LR>;
  constexpr uint32_t R = PassT::R;
  const Grid grid = ctx.grid();
  const Twiddles tw{ctx.span(a.tw).data(), (uint64_t(1) << a.log_tw) / 2, a.inverse != 0};
  PassT P{.src = ctx.span(a.src).data(),
          .dst = ctx.span(a.dst).data(),
          .src_stride = a.src_stride,
          .dst_stride = a.dst_stride,
          .log_groups = a.log_n - LR,
          .src_len = uint64_t(1) << a.log_src,
          .stage = a.stage,
          .outer_shift = a.log_tw - a.log_n + a.stage,
          .tw = tw,
          .first = a.inverse != 0 && a.stage + LR == a.log_n ? inverse_of_power_of_two(a.log_n) : Fp::one(),
          .inner = {},
          .rev = {}};
  for (uint32_t t = 0; t < LR; ++t)
    for (uint32_t j = 0; j < (1u << t); ++j) P.inner[(1u << t) + j] = tw(uint64_t(j) << (a.log_tw - t - 1));
  for (uint32_t j = 0; j < R; ++j) P.rev[j] = reverse_bits(j, LR);

  const uint64_t groups = uint64_t(1) << P.log_groups;  // = grid.x
  if (groups >= kLanes) {
    cpu::for_each_chunk(
        uint64_t(grid.y) * (groups / kLanes), [&](uint64_t b, uint64_t e) { stockham_wide<T, LR>(P, b, e); },
        std::max<uint64_t>(1, 512 >> LR));
  } else {
    cpu::for_each_chunk(
        uint64_t(grid.y) * groups, [&](uint64_t b, uint64_t e) { stockham_blocks<T, LR, 1>(P, b, e); },
        std::max<uint64_t>(1, 4096 >> LR));
  }
}

// The register and the shared-memory passes compute the same map; their check() statics hold the
// radix and the stages to what both bodies compute.
template <class T, class Args>
void stockham(const Args& a, const CpuContext& ctx) {
  switch (a.log_radix) {
    case 1:
      return stockham_pass<T, 1>(a, ctx);
    case 2:
      return stockham_pass<T, 2>(a, ctx);
    case 3:
      return stockham_pass<T, 3>(a, ctx);
    case 4:
      return stockham_pass<T, 4>(a, ctx);
    case 5:
      return stockham_pass<T, 5>(a, ctx);
    case 6:
      return stockham_pass<T, 6>(a, ctx);
    case 7:
      return stockham_pass<T, 7>(a, ctx);
    default:
      return stockham_pass<T, 8>(a, ctx);
  }
}

template <class T, class Args>
void zeta(const Args& a, const CpuContext& ctx) {
  auto data = ctx.span(a.data);
  const Grid grid = ctx.grid();
  const uint32_t nb = a.num_bits;
  const uint64_t groups = grid.x;
  const uint64_t lo_mask = (uint64_t(1) << a.bit_lo) - 1;
  const bool mobius = a.mobius != 0;
  cpu::for_each_chunk(
      uint64_t(grid.y) * groups,
      [&](uint64_t begin, uint64_t end) {
        for (uint64_t f = begin; f < end; ++f) {
          const uint64_t c = f / groups;
          const uint64_t g = f % groups;
          T* col = data.data() + c * a.col_stride;
          const uint64_t base = ((g & ~lo_mask) << nb) | (g & lo_mask);
          const uint32_t n = 1u << nb;
          std::array<T, 1u << kNttMaxLogRadix> v;
          for (uint32_t j = 0; j < n; ++j) v[j] = col[base + (uint64_t(j) << a.bit_lo)];
          for (uint32_t t = 0; t < nb; ++t)
            for (uint32_t j = 0; j < n; ++j)
              if ((j >> t) & 1) v[j] = mobius ? v[j] - v[j ^ (1u << t)] : v[j] + v[j ^ (1u << t)];
          for (uint32_t j = 0; j < n; ++j) col[base + (uint64_t(j) << a.bit_lo)] = v[j];
        }
      },
      256);
}

}  // namespace

void NttTwiddles::cpu(const Args& a, const CpuContext& ctx) {
  auto tw = ctx.span(a.tw);
  const Fp omega = two_adic_generator(a.log_n);
  cpu::for_each_chunk(ctx.grid().x, [&](uint64_t begin, uint64_t end) {
    Fp w = omega.pow(begin);
    for (uint64_t t = begin; t < end; ++t, w *= omega) tw[t] = w;
  });
}

void NttStageFp::cpu(const Args& a, const CpuContext& ctx) { stockham<Fp>(a, ctx); }
void NttStageFp4::cpu(const Args& a, const CpuContext& ctx) { stockham<Fp4>(a, ctx); }
// The tiling is the GLSL body's business: the CPU body computes the same map whatever it is.
void NttStageSharedFp::cpu(const Args& a, const CpuContext& ctx) { stockham<Fp>(a, ctx); }
void NttStageSharedFp4::cpu(const Args& a, const CpuContext& ctx) { stockham<Fp4>(a, ctx); }

void NttCopyPad::cpu(const Args& a, const CpuContext& ctx) {
  auto src = ctx.span(a.src);
  auto dst = ctx.span(a.dst);
  const Grid grid = ctx.grid();
  const uint64_t n = grid.x;
  const uint64_t copied = std::min<uint64_t>(a.src_count, n);
  cpu::for_each_index(
      grid.y,
      [&](uint64_t c) {
        const uint32_t* in = src.data() + c * a.src_stride;
        uint32_t* out = dst.data() + c * a.dst_stride;
        std::copy(in, in + copied, out);
        std::fill(out + copied, out + n, 0u);
      },
      1);
}

void NttRsMessage::cpu(const Args& a, const CpuContext& ctx) {
  auto data = ctx.span(a.data);
  const Grid grid = ctx.grid();
  const Radix2Dft chunk_dft(a.log_chunk);
  const uint64_t len = chunk_dft.size();
  const uint64_t chunks = grid.x;
  cpu::for_each_chunk(
      uint64_t(grid.y) * chunks,
      [&](uint64_t begin, uint64_t end) {
        for (uint64_t f = begin; f < end; ++f) {
          const uint64_t c = f / chunks;
          const uint64_t i = f % chunks;
          std::span<Fp> chunk = data.subspan(c * a.col_stride + i * len, len);
          if (a.inverse) {
            subset_mobius(chunk, 0, a.log_chunk);
            chunk_dft.forward(chunk);
          } else {
            chunk_dft.inverse(chunk);
            subset_zeta(chunk, 0, a.log_chunk);
          }
        }
      },
      std::max<uint64_t>(1, 4096 >> a.log_chunk));
}

void NttZetaFp::cpu(const Args& a, const CpuContext& ctx) { zeta<Fp>(a, ctx); }
void NttZetaFp4::cpu(const Args& a, const CpuContext& ctx) { zeta<Fp4>(a, ctx); }

void NttTranspose::cpu(const Args& a, const CpuContext& ctx) {
  auto src = ctx.span(a.src);
  auto dst = ctx.span(a.dst);
  constexpr uint64_t kTile = 64;
  const uint64_t rows = a.rows, cols = a.cols;
  const uint64_t row_tiles = (rows + kTile - 1) / kTile;
  const uint64_t col_tiles = (cols + kTile - 1) / kTile;
  cpu::for_each_index(
      row_tiles * col_tiles,
      [&](uint64_t t) {
        const uint64_t r0 = (t % row_tiles) * kTile, c0 = (t / row_tiles) * kTile;
        const uint64_t r1 = std::min(rows, r0 + kTile), c1 = std::min(cols, c0 + kTile);
        for (uint64_t c = c0; c < c1; ++c)
          for (uint64_t r = r0; r < r1; ++r) dst[c * rows + r] = src[r * cols + c];
      },
      4);
}

}  // namespace vkstark
