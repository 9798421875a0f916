// Stockham pass body shared by kernels/cpu/ntt.cpp (portable) and ntt_avx2.cpp / ntt_avx512.cpp
// (compiled for their ISA). Each includes this inside an anonymous namespace of vkstark::ntt_detail,
// after detail/ntt_pass.hpp, so everything here has internal linkage and code compiled for one ISA
// never leaks into another translation unit. Since every field operation returns the canonical
// element, any evaluation order (and so every ISA) gives the same bits.

// omega_N^e (or omega_N^-e) for any e, N = 2^log_tw, from the NttTwiddles table of N/2 entries.
template <class T>
[[gnu::always_inline]] inline Fp twiddle(const Pass<T>& P, uint64_t e) {
  const uint64_t mask = 2 * P.tw_half - 1;
  e &= mask;
  if (P.inverse) e = (0 - e) & mask;
  return e < P.tw_half ? P.tw[e] : -P.tw[e - P.tw_half];
}

// Blocks [begin, end) of W consecutive groups (invocations) i of one column each. v[j][l] holds
// entry j of lane l, so the butterflies run over W independent lanes (vectorisable); when s >= W
// the W lanes share p and so their twiddles, and loads and stores are W-contiguous.
template <class T, uint32_t LR, uint32_t W>
[[gnu::always_inline]] inline void stockham_blocks(const Pass<T>& P, uint64_t begin, uint64_t end) {
  constexpr uint32_t R = 1u << LR;
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
      const Fp w = twiddle(P, (i0 >> P.stage) << P.outer_shift);
      for (uint32_t l = 0; l < W; ++l) w1[l] = w;
    } else {
      for (uint32_t l = 0; l < W; ++l) w1[l] = twiddle(P, ((i0 + l) >> P.stage) << P.outer_shift);
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

// stockham_blocks for the pass's radix; each radix is its own loop nest, compiled separately.
template <class T, uint32_t W>
void stockham_any_radix(const Pass<T>& P, uint64_t begin, uint64_t end) {
  switch (P.log_radix) {
    case 1:
      return stockham_blocks<T, 1, W>(P, begin, end);
    case 2:
      return stockham_blocks<T, 2, W>(P, begin, end);
    case 3:
      return stockham_blocks<T, 3, W>(P, begin, end);
    case 4:
      return stockham_blocks<T, 4, W>(P, begin, end);
    case 5:
      return stockham_blocks<T, 5, W>(P, begin, end);
    case 6:
      return stockham_blocks<T, 6, W>(P, begin, end);
    case 7:
      return stockham_blocks<T, 7, W>(P, begin, end);
    default:
      return stockham_blocks<T, 8, W>(P, begin, end);
  }
}
