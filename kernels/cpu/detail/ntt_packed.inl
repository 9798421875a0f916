// The Stockham passes of base-field columns over SIMD vectors, for the bodies compiled per ISA
// (ntt_avx512.cpp, ntt_avx2.cpp): include inside an anonymous namespace of vkstark::ntt_detail,
// after the packed arithmetic of the level (kernels/field/detail/packed_*.inl: Vec of LANES
// Montgomery forms) and detail/ntt_stockham.inl. A block is LANES consecutive groups of one column,
// the map of stockham_blocks with W = LANES written on vectors: every field operation returns the
// canonical element, so the bits are the portable body's. Nothing here calls a standard-library
// template (its out-of-line copies could carry one ISA's code into another's callers).

template <uint32_t LR>
[[gnu::always_inline]] inline void stockham_packed_blocks(const Pass<Fp>& P, uint64_t begin, uint64_t end) {
  constexpr uint32_t R = 1u << LR;
  const uint64_t groups = uint64_t(1) << P.log_groups;
  const uint64_t blocks_per_column = groups / LANES;
  const uint64_t s = uint64_t(1) << P.stage;
  Vec inner[R];
  for (uint32_t k = 1; k < R; ++k) inner[k] = vbroadcast(P.inner[k].mont());
  alignas(64) uint32_t lanes_buf[R][LANES];
  Vec v[R];
  for (uint64_t b = begin; b < end; ++b) {
    const uint64_t c = b / blocks_per_column;
    const uint64_t i0 = (b % blocks_per_column) * LANES;
    const uint32_t* in = reinterpret_cast<const uint32_t*>(P.src + c * P.src_stride);
    uint32_t* out = reinterpret_cast<uint32_t*>(P.dst + c * P.dst_stride);
    // Bit-reversed load, so that the in-place decimation in time ends in natural order.
    for (uint32_t jj = 0; jj < R; ++jj) {
      const uint64_t at = i0 + uint64_t(P.rev[jj]) * groups;
      if (at + LANES <= P.src_len) {
        v[jj] = vloadu(in + at);
      } else {
        for (uint32_t l = 0; l < LANES; ++l) lanes_buf[0][l] = at + l < P.src_len ? in[at + l] : 0u;
        v[jj] = vload(lanes_buf[0]);
      }
    }
#pragma GCC unroll 8
    for (uint32_t t = 0; t < LR; ++t) {
      const uint32_t h = 1u << t;
#pragma GCC unroll 128
      for (uint32_t j = 0; j < R; ++j) {
        if (j & h) continue;
        const uint32_t e = j & (h - 1);  // omega_{2h}^e; e = 0 is one
        const Vec u = v[j];
        const Vec x = e == 0 ? v[j + h] : vmul(v[j + h], inner[h + e]);
        v[j] = vadd(u, x);
        v[j + h] = vsub(u, x);
      }
    }
    // Output k of lane l is scaled by first * w1[l]^k, w1[l] = omega_{n/s}^p for its p.
    if (s >= LANES) {  // one p for the block: scalar powers, one product per entry
      const Fp w = twiddle(P, (i0 >> P.stage) << P.outer_shift);
      Fp wk = P.first;
      for (uint32_t k = 0; k < R; ++k, wk *= w)
        if (wk != Fp::one()) v[k] = vmul(v[k], vbroadcast(wk.mont()));
      uint32_t* o = out + (i0 & (s - 1)) + s * R * (i0 >> P.stage);
      for (uint32_t k = 0; k < R; ++k) vstoreu(o + s * k, v[k]);
    } else {
      alignas(64) uint32_t w1_words[LANES];
      for (uint32_t l = 0; l < LANES; ++l) w1_words[l] = twiddle(P, ((i0 + l) >> P.stage) << P.outer_shift).mont();
      const Vec w1 = vload(w1_words);
      Vec wk = vbroadcast(P.first.mont());
      for (uint32_t k = 0; k < R; ++k) {
        vstore(lanes_buf[k], vmul(v[k], wk));
        wk = vmul(wk, w1);
      }
      for (uint32_t l = 0; l < LANES; ++l) {
        const uint64_t i = i0 + l;
        uint32_t* o = out + (i & (s - 1)) + s * R * (i >> P.stage);
        for (uint32_t k = 0; k < R; ++k) o[s * k] = lanes_buf[k][l];
      }
    }
  }
}

// stockham_packed_blocks for the pass's radix; blocks of LANES groups.
inline void stockham_packed(const Pass<Fp>& P, uint64_t begin, uint64_t end) {
  switch (P.log_radix) {
    case 1:
      return stockham_packed_blocks<1>(P, begin, end);
    case 2:
      return stockham_packed_blocks<2>(P, begin, end);
    case 3:
      return stockham_packed_blocks<3>(P, begin, end);
    case 4:
      return stockham_packed_blocks<4>(P, begin, end);
    case 5:
      return stockham_packed_blocks<5>(P, begin, end);
    case 6:
      return stockham_packed_blocks<6>(P, begin, end);
    case 7:
      return stockham_packed_blocks<7>(P, begin, end);
    default:
      return stockham_packed_blocks<8>(P, begin, end);
  }
}
