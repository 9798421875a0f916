// The bodies of detail/fp4_blocks.hpp compiled per ISA: include inside an anonymous namespace of
// vkstark::fp4_detail, after the packed arithmetic of the level (kernels/field/detail/packed_avx2.inl
// or packed_avx512.inl). An extension element is a 128-bit unit of a vector, its 4 coefficients in
// order, as stored: F4S = LANES / 4 elements a vector. With X^4 = W,
//   (a b)_k = sum_{j <= k} a_{k-j} b_j + W sum_{j > k} a_{k-j+4} b_j,
// so a product is 4 lane products of b_j (broadcast in its unit) by a rotated (W times the wrapped
// coefficients). Tails shorter than a vector go to the portable bodies (*_scalar, compiled without
// ISA flags). Nothing here calls a standard-library template (its out-of-line copies could carry
// one ISA's code into another's callers).

constexpr uint32_t F4S = LANES / 4;
static_assert(F4S >= 2);

inline Vec f4_load(const Fp4* p) { return vloadu(reinterpret_cast<const uint32_t*>(p)); }
inline void f4_store(Fp4* p, Vec v) { vstoreu(reinterpret_cast<uint32_t*>(p), v); }

// Coefficient j of every element, in each of its 4 words.
template <int j>
inline Vec f4_coeff(Vec v) {
  return vshuffle32<j * 0x55>(v);
}
// a's coefficients rotated up by j in each unit (word k holds a_{(k - j) mod 4}).
template <int j>
inline Vec f4_rotate(Vec v) {
  return vshuffle32<((0 - j) & 3) | ((1 - j) & 3) << 2 | ((2 - j) & 3) << 4 | ((3 - j) & 3) << 6>(v);
}

// Multiplication by one element a (every unit): C_j, word k = a_{k-j} (k >= j) or W a_{k-j+4}.
struct F4Const {
  Vec c[4];
};
inline F4Const f4_const(const Fp4& a) {
  const Fp w = Fp::from_canonical_unchecked(Fp4::W);
  F4Const r;
  for (int j = 0; j < 4; ++j) {
    alignas(64) uint32_t words[LANES];
    for (uint32_t k = 0; k < 4; ++k) {
      const Fp x = int(k) >= j ? a.c[k - j] : a.c[k + 4 - j] * w;
      for (uint32_t u = 0; u < F4S; ++u) words[4 * u + k] = x.mont();
    }
    r.c[j] = vload(words);
  }
  return r;
}
inline Vec f4_mul(Vec b, const F4Const& a) {
  Vec r = vmul(f4_coeff<0>(b), a.c[0]);
  r = vadd(r, vmul(f4_coeff<1>(b), a.c[1]));
  r = vadd(r, vmul(f4_coeff<2>(b), a.c[2]));
  return vadd(r, vmul(f4_coeff<3>(b), a.c[3]));
}
// Element by element.
inline Vec f4_mul(Vec a, Vec b) {
  const Vec aw = vmul(a, vbroadcast(Fp::from_canonical_unchecked(Fp4::W).mont()));
  Vec r = vmul(f4_coeff<0>(b), a);
  r = vadd(r, vmul(f4_coeff<1>(b), vblend4<0x1>(f4_rotate<1>(a), f4_rotate<1>(aw))));
  r = vadd(r, vmul(f4_coeff<2>(b), vblend4<0x3>(f4_rotate<2>(a), f4_rotate<2>(aw))));
  return vadd(r, vmul(f4_coeff<3>(b), vblend4<0x7>(f4_rotate<3>(a), f4_rotate<3>(aw))));
}
inline Fp4 f4_sum_units(Vec v) {
  alignas(64) uint32_t words[LANES];
  vstore(words, v);
  Fp4 s;
  for (uint32_t u = 0; u < F4S; ++u)
    s += Fp4{Fp::from_mont(words[4 * u]), Fp::from_mont(words[4 * u + 1]), Fp::from_mont(words[4 * u + 2]),
             Fp::from_mont(words[4 * u + 3])};
  return s;
}

inline void fold_pairs_body(const FoldPairs& f, uint64_t begin, uint64_t end) {
  const F4Const alpha = f4_const(f.alpha);
  uint64_t y = begin;
  for (; y + F4S <= end; y += F4S) {
    const Vec a = f4_load(f.src + 2 * y), b = f4_load(f.src + 2 * y + F4S);
    const Vec e = veven128(a, b), o = vodd128(a, b);
    f4_store(f.dst + y, vadd(e, f4_mul(vsub(o, e), alpha)));
  }
  fold_pairs_scalar(f, y, end);
}

inline void kernel_table_body(const KernelTable& t, uint64_t begin, uint64_t end) {
  const uint64_t C = uint64_t(1) << t.log_chunks, cmask = C - 1;
  uint64_t i = begin;
  while (i < end) {
    const uint64_t k = i >> t.log_chunks, x = i & cmask;
    const uint64_t row_end = end < (k + 1) * C ? end : (k + 1) * C;
    const Fp4 c0 = t.coeffs[2 * k], c1 = t.coeffs[2 * k + 1];
    // out = (c0 - c1) eq[x] + c1 eq[x - 1]
    if (x == 0) {  // eq[x - 1] wraps
      kernel_table_scalar(t, i, i + 1);
      ++i;
      continue;
    }
    const F4Const d = f4_const(c0 - c1), c = f4_const(c1);
    for (; i + F4S <= row_end; i += F4S) {
      const uint64_t xi = i & cmask;
      f4_store(t.out + i, vadd(f4_mul(f4_load(t.eq + xi), d), f4_mul(f4_load(t.eq + xi - 1), c)));
    }
    kernel_table_scalar(t, i, row_end);
    i = row_end;
  }
}

inline ProductSums product_sums_body(const Fp4* f, const Fp4* w, uint64_t begin, uint64_t end) {
  Vec s1 = vbroadcast(0), s2 = vbroadcast(0);
  uint64_t y = begin;
  for (; y + F4S <= end; y += F4S) {
    const Vec fa = f4_load(f + 2 * y), fb = f4_load(f + 2 * y + F4S);
    const Vec wa = f4_load(w + 2 * y), wb = f4_load(w + 2 * y + F4S);
    const Vec f0 = veven128(fa, fb), f1 = vodd128(fa, fb), w0 = veven128(wa, wb), w1 = vodd128(wa, wb);
    s1 = vadd(s1, f4_mul(f1, w1));
    s2 = vadd(s2, f4_mul(vsub(vadd(f1, f1), f0), vsub(vadd(w1, w1), w0)));
  }
  const ProductSums tail = product_sums_scalar(f, w, y, end);
  return {f4_sum_units(s1) + tail.s1, f4_sum_units(s2) + tail.s2};
}

// LANES consecutive b at a time: the 4 coefficients' lazy sums (packed_*.inl vmul_acc_wide, four
// products between reductions), one Montgomery reduction at the end.
inline void batch_columns_body(const BatchColumns& bc, uint64_t begin, uint64_t end) {
  const auto* m = reinterpret_cast<const uint32_t*>(bc.matrix);
  const auto* powers = reinterpret_cast<const uint32_t*>(bc.powers);
  uint64_t b = begin;
  alignas(64) uint64_t acc[4][LANES];
  for (; b + LANES <= end; b += LANES) {
    for (uint32_t t = 0; t < 4; ++t)
      for (uint32_t l = 0; l < LANES; ++l) acc[t][l] = 0;
    for (uint64_t c = 0; c < bc.width; ++c) {
      const Vec v = vloadu(m + c * bc.col_stride + b);
      for (uint32_t t = 0; t < 4; ++t) vmul_acc_wide(acc[t], v, vbroadcast(powers[4 * c + t]));
      if (c % 4 == 3)
        for (uint32_t t = 0; t < 4; ++t) wide_reduce(acc[t]);
    }
    for (uint32_t l = 0; l < LANES; ++l) {
      const uint32_t at = (l % 2) * (LANES / 2) + l / 2;  // lane 2j at j, lane 2j + 1 at LANES / 2 + j
      bc.acc[b + l] += Fp4{Fp::from_mont(wide_value(acc[0][at])), Fp::from_mont(wide_value(acc[1][at])),
                           Fp::from_mont(wide_value(acc[2][at])), Fp::from_mont(wide_value(acc[3][at]))};
    }
  }
  batch_columns_scalar(bc, b, end);
}
