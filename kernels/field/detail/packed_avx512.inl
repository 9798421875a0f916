// Packed BabyBear arithmetic on 16 lanes of AVX-512 (Montgomery form, every lane < p in and out):
// the field layer's SIMD operations for CPU kernels compiled for SimdLevel::Avx512. A translation
// unit compiled for the ISA includes <immintrin.h>, then this file inside an anonymous namespace,
// so that nothing here can leak into objects compiled for another ISA (tests/check_isa_symbols.cmake).
// packed_avx2.inl and packed_scalar.inl define the same names for the other levels.

using Vec = __m512i;
constexpr uint32_t LANES = 16;

inline Vec vbroadcast(uint32_t x) { return _mm512_set1_epi32(static_cast<int>(x)); }
inline Vec vload(const uint32_t* p) { return _mm512_load_si512(p); }  // 64-byte aligned
inline Vec vloadu(const uint32_t* p) { return _mm512_loadu_si512(p); }
inline void vstore(uint32_t* p, Vec v) { _mm512_store_si512(p, v); }
inline void vstoreu(uint32_t* p, Vec v) { _mm512_storeu_si512(p, v); }
// 64-byte aligned, non-temporal
inline void vstream(uint32_t* p, Vec v) { _mm512_stream_si512(reinterpret_cast<__m512i*>(p), v); }
inline void vstream_fence() { _mm_sfence(); }  // orders the non-temporal stores before later ones

// a + b mod p: min(s, s - p) over unsigned lanes.
inline Vec vadd(Vec a, Vec b) {
  const Vec s = _mm512_add_epi32(a, b);
  return _mm512_min_epu32(s, _mm512_sub_epi32(s, vbroadcast(Fp::P)));
}

// a - b mod p: d = a - b wraps above p exactly when a < b, and then d + p (mod 2^32) is the smaller.
inline Vec vsub(Vec a, Vec b) {
  const Vec d = _mm512_sub_epi32(a, b);
  return _mm512_min_epu32(d, _mm512_add_epi32(d, vbroadcast(Fp::P)));
}

// Bitwise and shifts of each 32-bit lane.
inline Vec vand(Vec a, Vec b) { return _mm512_and_si512(a, b); }
inline Vec vsrli(Vec a, unsigned k) { return _mm512_srli_epi32(a, k); }
inline Vec vslli(Vec a, unsigned k) { return _mm512_slli_epi32(a, k); }

// Extension elements side by side (4 words each, a 128-bit unit): dword shuffles and blends that
// repeat in every unit, and the even / odd units of a:b (a's first).
template <int imm>
inline Vec vshuffle32(Vec v) {
  return _mm512_shuffle_epi32(v, static_cast<_MM_PERM_ENUM>(imm));
}
template <int m>
inline Vec vblend4(Vec a, Vec b) {  // word k of each unit from b where bit k of m is set
  return _mm512_mask_blend_epi32(static_cast<__mmask16>(m | m << 4 | m << 8 | m << 12), a, b);
}
inline Vec veven128(Vec a, Vec b) { return _mm512_shuffle_i32x4(a, b, 0x88); }
inline Vec vodd128(Vec a, Vec b) { return _mm512_shuffle_i32x4(a, b, 0xDD); }

inline Vec vneg(Vec a) { return vsub(_mm512_setzero_si512(), a); }

// Montgomery product per lane, as Fp::mont_mul: even and odd lanes through 32x32->64 multiplies,
// high halves recombined, then hi(t) - hi(u*p) corrected by +p on borrow (the low halves of t and
// u*p are equal, so no borrow crosses).
inline Vec vmul(Vec a, Vec b) {
  const Vec mu = vbroadcast(Fp::MONTY_MU), p = vbroadcast(Fp::P);
  const Vec a_odd = _mm512_srli_epi64(a, 32), b_odd = _mm512_srli_epi64(b, 32);
  const Vec t_evn = _mm512_mul_epu32(a, b), t_odd = _mm512_mul_epu32(a_odd, b_odd);
  const Vec q_evn = _mm512_mul_epu32(t_evn, mu), q_odd = _mm512_mul_epu32(t_odd, mu);
  const Vec qp_evn = _mm512_mul_epu32(q_evn, p), qp_odd = _mm512_mul_epu32(q_odd, p);
  const __mmask16 odd = 0xAAAA;
  const Vec t_hi = _mm512_mask_blend_epi32(odd, _mm512_srli_epi64(t_evn, 32), t_odd);
  const Vec qp_hi = _mm512_mask_blend_epi32(odd, _mm512_srli_epi64(qp_evn, 32), qp_odd);
  const Vec r = _mm512_sub_epi32(t_hi, qp_hi);
  return _mm512_min_epu32(r, _mm512_add_epi32(r, p));
}

// Lazy sums of products (as Fp4LazySum, in 64 bits): `acc` holds LANES sums, the even lanes' first,
// then the odd lanes' (lane 2j at acc[j], lane 2j + 1 at acc[LANES / 2 + j]). acc += a * b adds the
// raw products of the Montgomery forms (each < p^2 < 0.88 * 2^62).
inline void vmul_acc_wide(uint64_t* acc, Vec a, Vec b) {
  const Vec evn = _mm512_mul_epu32(a, b);
  const Vec odd = _mm512_mul_epu32(_mm512_srli_epi64(a, 32), _mm512_srli_epi64(b, 32));
  _mm512_store_si512(acc, _mm512_add_epi64(_mm512_load_si512(acc), evn));
  _mm512_store_si512(acc + 8, _mm512_add_epi64(_mm512_load_si512(acc + 8), odd));
}

// Each sum s = hi 2^32 + lo becomes hi (2^32 mod p) + lo < 2^60 + 2^32 (the same residue), so four
// more products fit below 2^64.
inline void wide_reduce(uint64_t* acc) {
  const Vec r = _mm512_set1_epi64(Fp::R_MOD_P), lo_mask = _mm512_set1_epi64(0xffffffff);
  for (int h = 0; h < 16; h += 8) {
    const Vec s = _mm512_load_si512(acc + h);
    const Vec x = _mm512_add_epi64(_mm512_mul_epu32(_mm512_srli_epi64(s, 32), r), _mm512_and_si512(s, lo_mask));
    _mm512_store_si512(acc + h, x);
  }
}

#include "kernels/field/detail/packed_wide.inl"
