// Packed BabyBear arithmetic on 8 lanes of AVX2: the operations of packed_avx512.inl (see there) for
// CPU kernels compiled for SimdLevel::Avx2. Include <immintrin.h>, then this file inside an
// anonymous namespace.

using Vec = __m256i;
constexpr uint32_t LANES = 8;

inline Vec vbroadcast(uint32_t x) { return _mm256_set1_epi32(static_cast<int>(x)); }
inline Vec vload(const uint32_t* p) { return _mm256_load_si256(reinterpret_cast<const __m256i*>(p)); }
inline Vec vloadu(const uint32_t* p) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)); }
inline void vstore(uint32_t* p, Vec v) { _mm256_store_si256(reinterpret_cast<__m256i*>(p), v); }
inline void vstoreu(uint32_t* p, Vec v) { _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v); }
// 32-byte aligned, non-temporal
inline void vstream(uint32_t* p, Vec v) { _mm256_stream_si256(reinterpret_cast<__m256i*>(p), v); }
inline void vstream_fence() { _mm_sfence(); }  // orders the non-temporal stores before later ones

inline Vec vadd(Vec a, Vec b) {
  const Vec s = _mm256_add_epi32(a, b);
  return _mm256_min_epu32(s, _mm256_sub_epi32(s, vbroadcast(Fp::P)));
}

inline Vec vsub(Vec a, Vec b) {
  const Vec d = _mm256_sub_epi32(a, b);
  return _mm256_min_epu32(d, _mm256_add_epi32(d, vbroadcast(Fp::P)));
}

// Bitwise and shifts of each 32-bit lane.
inline Vec vand(Vec a, Vec b) { return _mm256_and_si256(a, b); }
inline Vec vsrli(Vec a, int k) { return _mm256_srli_epi32(a, k); }
inline Vec vslli(Vec a, int k) { return _mm256_slli_epi32(a, k); }

// Extension elements side by side (4 words each, a 128-bit unit): dword shuffles and blends that
// repeat in every unit, and the even / odd units of a:b (a's first).
template <int imm>
inline Vec vshuffle32(Vec v) {
  return _mm256_shuffle_epi32(v, imm);
}
template <int m>
inline Vec vblend4(Vec a, Vec b) {  // word k of each unit from b where bit k of m is set
  return _mm256_blend_epi32(a, b, m | m << 4);
}
inline Vec veven128(Vec a, Vec b) { return _mm256_permute2x128_si256(a, b, 0x20); }
inline Vec vodd128(Vec a, Vec b) { return _mm256_permute2x128_si256(a, b, 0x31); }

inline Vec vneg(Vec a) { return vsub(_mm256_setzero_si256(), a); }

inline Vec vmul(Vec a, Vec b) {
  const Vec mu = vbroadcast(Fp::MONTY_MU), p = vbroadcast(Fp::P);
  const Vec a_odd = _mm256_srli_epi64(a, 32), b_odd = _mm256_srli_epi64(b, 32);
  const Vec t_evn = _mm256_mul_epu32(a, b), t_odd = _mm256_mul_epu32(a_odd, b_odd);
  const Vec q_evn = _mm256_mul_epu32(t_evn, mu), q_odd = _mm256_mul_epu32(t_odd, mu);
  const Vec qp_evn = _mm256_mul_epu32(q_evn, p), qp_odd = _mm256_mul_epu32(q_odd, p);
  const Vec t_hi = _mm256_blend_epi32(_mm256_srli_epi64(t_evn, 32), t_odd, 0xAA);
  const Vec qp_hi = _mm256_blend_epi32(_mm256_srli_epi64(qp_evn, 32), qp_odd, 0xAA);
  const Vec r = _mm256_sub_epi32(t_hi, qp_hi);
  return _mm256_min_epu32(r, _mm256_add_epi32(r, p));
}

inline void vmul_acc_wide(uint64_t* acc, Vec a, Vec b) {
  const Vec evn = _mm256_mul_epu32(a, b);
  const Vec odd = _mm256_mul_epu32(_mm256_srli_epi64(a, 32), _mm256_srli_epi64(b, 32));
  auto* w = reinterpret_cast<__m256i*>(acc);
  _mm256_store_si256(w, _mm256_add_epi64(_mm256_load_si256(w), evn));
  _mm256_store_si256(w + 1, _mm256_add_epi64(_mm256_load_si256(w + 1), odd));
}

inline void wide_reduce(uint64_t* acc) {
  const Vec r = _mm256_set1_epi64x(Fp::R_MOD_P), lo_mask = _mm256_set1_epi64x(0xffffffff);
  auto* w = reinterpret_cast<__m256i*>(acc);
  for (int h = 0; h < 2; ++h) {
    const Vec s = _mm256_load_si256(w + h);
    _mm256_store_si256(w + h,
                       _mm256_add_epi64(_mm256_mul_epu32(_mm256_srli_epi64(s, 32), r), _mm256_and_si256(s, lo_mask)));
  }
}

#include "kernels/field/detail/packed_wide.inl"
