// CPU bodies of kernels/ntt.hpp. The same algorithms as kernels/glsl/ntt*.{glsl,comp}; since every
// field operation returns the canonical element, any evaluation order gives the same bits. The
// Stockham passes run at the SIMD level of kernels/field/simd_level.hpp (detail/ntt_pass.hpp).
#include "kernels/ntt.hpp"

#include <algorithm>
#include <array>
#include <span>
#include <type_traits>

#include "kernels/cpu/detail/chunk_blocks.hpp"
#include "kernels/cpu/detail/ntt_pass.hpp"
#include "kernels/cpu/parallel.hpp"
#include "kernels/field/dft.hpp"
#include "kernels/field/simd_level.hpp"

namespace vkstark {

namespace ntt_detail {
namespace {
#include "kernels/cpu/detail/ntt_stockham.inl"
}  // namespace
}  // namespace ntt_detail

static_assert(ntt_detail::kMaxLogRadix == kNttMaxSharedLogRadix && kNttMaxLogRadix <= kNttMaxSharedLogRadix);

namespace {

uint32_t reverse_bits(uint32_t i, uint32_t bits) {
  uint32_t r = 0;
  for (uint32_t b = 0; b < bits; ++b, i >>= 1) r = (r << 1) | (i & 1);
  return r;
}

// n^-1 = p - (p - 1) / n for n = 2^log_n, since n * ((p - 1) / n) = -1.
Fp inverse_of_power_of_two(uint32_t log_n) { return Fp::from_canonical_unchecked(Fp::P - ((Fp::P - 1) >> log_n)); }

// The wide blocks at the current SIMD level.
template <class T>
void stockham_wide(SimdLevel level, const ntt_detail::Pass<T>& P, uint64_t begin, uint64_t end) {
  switch (level) {
    case SimdLevel::Avx512:
      return ntt_detail::stockham_wide_avx512(P, begin, end);
    case SimdLevel::Avx2:
      return ntt_detail::stockham_wide_avx2(P, begin, end);
    case SimdLevel::Scalar:
      return ntt_detail::stockham_any_radix<T, ntt_detail::kLanes>(P, begin, end);
  }
}

template <class T, class Args>
void stockham_pass(const Args& a, const CpuContext& ctx) {
  using ntt_detail::kLanes;
  const uint32_t LR = a.log_radix;
  const Grid grid = ctx.grid();
  ntt_detail::Pass<T> P{
      .src = ctx.span(a.src).data(),
      .dst = ctx.span(a.dst).data(),
      .src_stride = a.src_stride,
      .dst_stride = a.dst_stride,
      .log_radix = LR,
      .log_groups = a.log_n - LR,
      .src_len = uint64_t(1) << a.log_src,
      .stage = a.stage,
      .outer_shift = a.log_tw - a.log_n + a.stage,
      .tw = ctx.span(a.tw).data(),
      .tw_half = (uint64_t(1) << a.log_tw) / 2,
      .inverse = a.inverse != 0,
      .first = a.inverse != 0 && a.stage + LR == a.log_n ? inverse_of_power_of_two(a.log_n) : Fp::one(),
      .inner = {},
      .rev = {}};
  for (uint32_t t = 0; t < LR; ++t)
    for (uint32_t j = 0; j < (1u << t); ++j)
      P.inner[(1u << t) + j] = ntt_detail::twiddle(P, uint64_t(j) << (a.log_tw - t - 1));
  for (uint32_t j = 0; j < (1u << LR); ++j) P.rev[j] = reverse_bits(j, LR);

  const uint64_t groups = uint64_t(1) << P.log_groups;  // = grid.x
  const SimdLevel level = cpu_simd_level();
  // Base-field passes at a SIMD level run blocks of the level's vector (detail/ntt_packed.inl).
  uint64_t lanes = kLanes;
  if constexpr (std::is_same_v<T, Fp>) {
    if (level == SimdLevel::Avx512) lanes = ntt_detail::packed_lanes_avx512();
    if (level == SimdLevel::Avx2) lanes = ntt_detail::packed_lanes_avx2();
  }
  if (groups >= lanes) {
    cpu::for_each_chunk(
        uint64_t(grid.y) * (groups / lanes), [&](uint64_t b, uint64_t e) { stockham_wide(level, P, b, e); },
        std::max<uint64_t>(1, 4096 / (lanes << LR)));
  } else {
    cpu::for_each_chunk(
        uint64_t(grid.y) * groups, [&](uint64_t b, uint64_t e) { ntt_detail::stockham_any_radix<T, 1>(P, b, e); },
        std::max<uint64_t>(1, 4096 >> LR));
  }
}

// The register and the shared-memory passes compute the same map; their check() statics hold the
// radix and the stages to what both bodies compute.
template <class T, class Args>
void stockham(const Args& a, const CpuContext& ctx) {
  stockham_pass<T>(a, ctx);
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

void NttStageVecFp::cpu(const Args& a, const CpuContext& ctx) { stockham<Fp>(ntt_vec_as_fp(a), ctx); }
void NttStageVec0Fp::cpu(const Args& a, const CpuContext& ctx) { stockham<Fp>(ntt_vec_as_fp(a), ctx); }

namespace {
// The group of pass (stage, log_radix) that writes row x (NttMarkRows).
uint64_t ntt_group_of_row(uint64_t x, uint32_t stage, uint32_t log_radix) {
  return (x & ((uint64_t(1) << stage) - 1)) | ((x >> (stage + log_radix)) << stage);
}
void set_mark(std::span<uint32_t> mask, uint64_t g) { mask[g / 32] |= uint32_t(1) << (g % 32); }
}  // namespace

void NttMarkRows::cpu(const Args& a, const CpuContext& ctx) {
  auto idx = ctx.span(a.idx);
  auto mask = ctx.span(a.mask);
  for (uint32_t q : idx)
    for (uint64_t t = 0; t < a.rows_per_query; ++t)
      set_mark(mask, ntt_group_of_row(uint64_t(q) + t * a.query_stride, a.stage, a.log_radix));
}

void NttMarkInputs::cpu(const Args& a, const CpuContext& ctx) {
  auto next = ctx.span(a.next_mask);
  auto mask = ctx.span(a.mask);
  const uint64_t groups = uint64_t(1) << (a.log_n - a.next_log_radix);
  for (uint64_t h = 0; h < groups; ++h)
    if ((next[h / 32] >> (h % 32)) & 1u)
      for (uint64_t j = 0; j < (uint64_t(1) << a.next_log_radix); ++j)
        set_mark(mask, ntt_group_of_row(h + j * groups, a.stage, a.log_radix));
}

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
  const uint64_t chunks = grid.x;
  if (a.log_chunk == 4) {  // l_skip = 4: blocks of chunks over SIMD lanes (detail/chunk_blocks.hpp)
    const Fp omega = two_adic_generator(4);
    const Fp step = a.inverse ? omega : omega.inverse();  // the DFT's direction: forward when inverse
    alignas(64) uint32_t tw[8];
    Fp w = Fp::one();
    for (uint32_t j = 0; j < 8; ++j, w *= step) tw[j] = w.mont();
    const chunk_detail::RsMessage16 r{.data = data.data(),
                                      .col_stride = a.col_stride,
                                      .chunks = chunks,
                                      .tw = tw,
                                      .scale = (a.inverse ? Fp::one() : inverse_of_power_of_two(4)).mont(),
                                      .inverse = a.inverse != 0};
    const uint64_t blocks = (chunks + chunk_detail::kLanes - 1) / chunk_detail::kLanes;
    const SimdLevel level = cpu_simd_level();
    cpu::for_each_chunk(
        uint64_t(grid.y) * blocks, [&](uint64_t b, uint64_t e) { chunk_detail::rs_message16(level, r, b, e); }, 64);
    return;
  }
  const Radix2Dft chunk_dft(a.log_chunk);
  const uint64_t len = chunk_dft.size();
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

void NttRsMessageVecFrom::cpu(const Args& a, const CpuContext& ctx) {
  auto src = ctx.span(a.src);
  auto dst = ctx.span(a.dst);
  cpu::for_each_chunk(
      src.size(), [&](uint64_t b, uint64_t e) { std::copy(src.begin() + b, src.begin() + e, dst.begin() + b); },
      uint64_t(1) << 14);
  NttRsMessage::cpu(NttRsMessageVec::as_fp(on_dst(a)), ctx);
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
