// Blocks of kLanes chunks (detail/chunk_blocks.hpp), shared by the portable bodies and the ones
// compiled per ISA: include inside an anonymous namespace of vkstark::chunk_detail, after the packed
// arithmetic of the level (kernels/field/detail/packed_*.inl: Vec of LANES Montgomery forms). Every
// field operation returns the canonical element, so every level gives the same bits, and the same
// as the device (kernels/glsl/zerocheck_coset_extend.comp's extend16, ple_fold_columns.comp). Nothing here calls a
// standard-library template (its out-of-line copies could carry one ISA's code into another's callers).

constexpr uint32_t kVecs = kLanes / LANES;  // vectors per row of the block
static_assert(kLanes % LANES == 0);

// a <- DFT_16(a) over the block's lanes, twiddles tw[j] = w^j (Montgomery forms): radix 2,
// decimation in time from bit-reversed order, natural order out.
[[gnu::always_inline]] inline void dft16_lanes(Vec (&a)[16][kVecs], const uint32_t* tw) {
  constexpr uint32_t rev[16] = {0, 8, 4, 12, 2, 10, 6, 14, 1, 9, 5, 13, 3, 11, 7, 15};
  Vec b[16][kVecs];
#pragma GCC unroll 16
  for (uint32_t i = 0; i < 16; ++i)
    for (uint32_t v = 0; v < kVecs; ++v) b[i][v] = a[rev[i]][v];
#pragma GCC unroll 4
  for (uint32_t s = 1; s <= 4; ++s) {
    const uint32_t m = 1u << s, half = m >> 1;
#pragma GCC unroll 16
    for (uint32_t k = 0; k < 16; k += m) {
#pragma GCC unroll 8
      for (uint32_t j = 0; j < half; ++j) {
        const Vec w = vbroadcast(tw[j * (16 / m)]);
        for (uint32_t v = 0; v < kVecs; ++v) {
          const Vec u = b[k + j][v], t = j == 0 ? b[k + j + half][v] : vmul(b[k + j + half][v], w);
          b[k + j][v] = vadd(u, t);
          b[k + j + half][v] = vsub(u, t);
        }
      }
    }
  }
#pragma GCC unroll 16
  for (uint32_t i = 0; i < 16; ++i)
    for (uint32_t v = 0; v < kVecs; ++v) a[i][v] = b[i][v];
}

inline void extend16_blocks(const Extend16& e, uint64_t begin, uint64_t end) {
  const uint64_t mask = (uint64_t(1) << e.log_height) - 1, h = mask + 1;
  const uint64_t blocks_per_col = (e.chunks + kLanes - 1) / kLanes, m = e.chunks * 16;
  const auto* fft = reinterpret_cast<const uint32_t*>(e.fft);  // Montgomery forms
  const auto* in = reinterpret_cast<const uint32_t*>(e.in);
  auto* out = reinterpret_cast<uint32_t*>(e.out);
  alignas(64) uint32_t rows[16][kLanes];
  Vec a[16][kVecs];
  for (uint64_t blk = begin; blk < end; ++blk) {
    const uint64_t c = blk / blocks_per_col, x0 = (blk % blocks_per_col) * kLanes;
    const uint64_t lanes = e.chunks - x0 < kLanes ? e.chunks - x0 : kLanes;
    const uint32_t* col = in + c * h;
    // The block transposed: rows[i][l] = row (first_chunk + x0 + l) 16 + i + shift of the column.
    for (uint64_t l = 0; l < kLanes; ++l) {
      const uint64_t first = (e.first_chunk + x0 + (l < lanes ? l : lanes - 1)) * 16 + e.shift;
      if (first + 16 <= h) {
        for (uint64_t i = 0; i < 16; ++i) rows[i][l] = col[first + i];
      } else {
        for (uint64_t i = 0; i < 16; ++i) rows[i][l] = col[(first + i) & mask];
      }
    }
    for (uint32_t i = 0; i < 16; ++i)
      for (uint32_t v = 0; v < kVecs; ++v) a[i][v] = vload(&rows[i][v * LANES]);
    dft16_lanes(a, fft + 8);  // 16 x the coefficients
    for (uint32_t j = 0; j < 16; ++j) {
      const Vec s = vbroadcast(fft[16 + j]);
      for (uint32_t v = 0; v < kVecs; ++v) a[j][v] = vmul(a[j][v], s);
    }
    dft16_lanes(a, fft);  // the values at g^c omega^k
    uint32_t* o = out + c * m + x0;
    if (lanes == kLanes && (reinterpret_cast<uintptr_t>(o) & (LANES * 4 - 1)) == 0 && e.chunks % LANES == 0) {
      // Written once and read by the next dispatch: past the caches (no read for ownership).
      for (uint64_t k = 0; k < 16; ++k, o += e.chunks)
        for (uint32_t v = 0; v < kVecs; ++v) vstream(o + v * LANES, a[k][v]);
    } else if (lanes == kLanes) {
      for (uint64_t k = 0; k < 16; ++k, o += e.chunks)
        for (uint32_t v = 0; v < kVecs; ++v) vstoreu(o + v * LANES, a[k][v]);
    } else {
      for (uint32_t k = 0; k < 16; ++k)
        for (uint32_t v = 0; v < kVecs; ++v) vstore(&rows[k][v * LANES], a[k][v]);
      for (uint64_t k = 0; k < 16; ++k, o += e.chunks)
        for (uint64_t l = 0; l < lanes; ++l) o[l] = rows[k][l];
    }
  }
  vstream_fence();  // before the task ends (and another thread reads)
}

// out[c B + x] = sum_{i < N} w[i] in[c H + (((first_chunk + x) N + i + shift) mod H)] (Fp4 w).
inline void ple_fold_blocks(const PleFold& f, uint64_t begin, uint64_t end) {
  const uint64_t mask = (uint64_t(1) << f.log_height) - 1, h = mask + 1, n = uint64_t(1) << f.log_n;
  const uint64_t blocks_per_col = (f.chunks + kLanes - 1) / kLanes;
  const auto* in = reinterpret_cast<const uint32_t*>(f.in);
  alignas(64) uint32_t rows[kMaxFoldN][kLanes];
  alignas(64) uint32_t sums[4][kLanes];
  for (uint64_t blk = begin; blk < end; ++blk) {
    const uint64_t c = blk / blocks_per_col, x0 = (blk % blocks_per_col) * kLanes;
    const uint64_t lanes = f.chunks - x0 < kLanes ? f.chunks - x0 : kLanes;
    const uint32_t* col = in + c * h;
    for (uint64_t l = 0; l < kLanes; ++l) {
      const uint64_t first = (f.first_chunk + x0 + (l < lanes ? l : lanes - 1)) * n + f.shift;
      if (first + n <= h) {
        for (uint64_t i = 0; i < n; ++i) rows[i][l] = col[first + i];
      } else {
        for (uint64_t i = 0; i < n; ++i) rows[i][l] = col[(first + i) & mask];
      }
    }
    Vec acc[4][kVecs];
    for (uint32_t t = 0; t < 4; ++t)
      for (uint32_t v = 0; v < kVecs; ++v) acc[t][v] = vbroadcast(0);
    for (uint64_t i = 0; i < n; ++i)
      for (uint32_t t = 0; t < 4; ++t) {
        const Vec w = vbroadcast(f.w[4 * i + t]);
        for (uint32_t v = 0; v < kVecs; ++v) acc[t][v] = vadd(acc[t][v], vmul(vload(&rows[i][v * LANES]), w));
      }
    for (uint32_t t = 0; t < 4; ++t)
      for (uint32_t v = 0; v < kVecs; ++v) vstore(&sums[t][v * LANES], acc[t][v]);
    uint32_t* o = f.out + 4 * (c * f.chunks + x0);
    for (uint64_t l = 0; l < lanes; ++l)
      for (uint32_t t = 0; t < 4; ++t) o[4 * l + t] = sums[t][l];
  }
}

// NttRsMessage over blocks of kLanes chunks of 16 (RsMessage16): the block transposed into lanes,
// the transforms over the lanes, transposed back.
inline void rs_message16_blocks(const RsMessage16& r, uint64_t begin, uint64_t end) {
  const uint64_t blocks_per_col = (r.chunks + kLanes - 1) / kLanes;
  alignas(64) uint32_t rows[16][kLanes];
  Vec a[16][kVecs];
  const Vec scale = vbroadcast(r.scale);
  for (uint64_t blk = begin; blk < end; ++blk) {
    const uint64_t c = blk / blocks_per_col, x0 = (blk % blocks_per_col) * kLanes;
    const uint64_t lanes = r.chunks - x0 < kLanes ? r.chunks - x0 : kLanes;
    uint32_t* col = reinterpret_cast<uint32_t*>(r.data + c * r.col_stride) + x0 * 16;
    for (uint64_t l = 0; l < kLanes; ++l) {
      const uint32_t* chunk = col + 16 * (l < lanes ? l : lanes - 1);
      for (uint64_t i = 0; i < 16; ++i) rows[i][l] = chunk[i];
    }
    for (uint32_t i = 0; i < 16; ++i)
      for (uint32_t v = 0; v < kVecs; ++v) a[i][v] = vload(&rows[i][v * LANES]);
    if (r.inverse) {
#pragma GCC unroll 4
      for (uint32_t b = 4; b-- > 0;)
#pragma GCC unroll 16
        for (uint32_t j = 0; j < 16; ++j)
          if ((j >> b) & 1)
            for (uint32_t v = 0; v < kVecs; ++v) a[j][v] = vsub(a[j][v], a[j ^ (1u << b)][v]);
      dft16_lanes(a, r.tw);
    } else {
      dft16_lanes(a, r.tw);
#pragma GCC unroll 4
      for (uint32_t b = 0; b < 4; ++b)
#pragma GCC unroll 16
        for (uint32_t j = 0; j < 16; ++j)
          if ((j >> b) & 1)
            for (uint32_t v = 0; v < kVecs; ++v) a[j][v] = vadd(a[j][v], a[j ^ (1u << b)][v]);
      for (uint32_t j = 0; j < 16; ++j)
        for (uint32_t v = 0; v < kVecs; ++v) a[j][v] = vmul(a[j][v], scale);
    }
    for (uint32_t i = 0; i < 16; ++i)
      for (uint32_t v = 0; v < kVecs; ++v) vstore(&rows[i][v * LANES], a[i][v]);
    for (uint64_t l = 0; l < lanes; ++l) {
      uint32_t* chunk = col + 16 * l;
      for (uint64_t i = 0; i < 16; ++i) chunk[i] = rows[i][l];
    }
  }
}

// StackedRound0SliceSums rows [begin, end) (SliceSums16): the 16 entries of a chunk over the lanes,
// the 4 coefficients of each sum in their own vectors.
inline void slice_sums16_rows(const SliceSums16& r, uint64_t begin, uint64_t end) {
  constexpr uint32_t kChunkVecs = 16 / LANES;
  static_assert(16 % LANES == 0);
  const uint64_t cmask = (uint64_t(1) << r.log_chunks) - 1;
  const uint64_t log_run = r.log_chunks - r.log_parts, run = uint64_t(1) << log_run;
  alignas(64) uint32_t sums[8][16];
  for (uint64_t row = begin; row < end; ++row) {
    const uint64_t k = row >> r.log_parts, x0 = (row & ((uint64_t(1) << r.log_parts) - 1)) << log_run;
    Vec acc[8][kChunkVecs];  // eq's 4 coefficients, then the differences'
    for (uint32_t t = 0; t < 8; ++t)
      for (uint32_t v = 0; v < kChunkVecs; ++v) acc[t][v] = vbroadcast(0);
    for (uint64_t x = x0; x < x0 + run; ++x) {
      const uint32_t* e = r.eq + 4 * x;
      const uint32_t* ep = r.eq + 4 * ((x - 1) & cmask);
      Vec w[8];
      for (uint32_t t = 0; t < 4; ++t) {
        w[t] = vbroadcast(e[t]);
        w[4 + t] = vsub(vbroadcast(ep[t]), w[t]);
      }
      const uint32_t* chunk = reinterpret_cast<const uint32_t*>(r.trace) + (((k << r.log_chunks) + x) << 4);
      for (uint32_t v = 0; v < kChunkVecs; ++v) {
        const Vec c = vloadu(chunk + v * LANES);
        for (uint32_t t = 0; t < 8; ++t) acc[t][v] = vadd(acc[t][v], vmul(c, w[t]));
      }
    }
    for (uint32_t t = 0; t < 8; ++t)
      for (uint32_t v = 0; v < kChunkVecs; ++v) vstore(&sums[t][v * LANES], acc[t][v]);
    uint32_t* o = r.out + 2 * 16 * 4 * row;
    for (uint32_t half = 0; half < 2; ++half)
      for (uint32_t s = 0; s < 16; ++s)
        for (uint32_t t = 0; t < 4; ++t) o[(16 * half + s) * 4 + t] = sums[4 * half + t][s];
  }
}
