// AVX-512 packed Poseidon2 (16 states per vector). Compiled with -mavx512f; only called after a
// run-time CPU check (poseidon2_batch.cpp).
#include <immintrin.h>

#include "kernels/hash/poseidon2_batch.hpp"

namespace vkstark {
namespace {
using Vec = __m512i;
constexpr size_t LANES = 16;

inline Vec vbroadcast(uint32_t x) { return _mm512_set1_epi32(static_cast<int>(x)); }
inline Vec vload(const uint32_t* p) { return _mm512_load_si512(p); }
inline void vstore(uint32_t* p, Vec v) { _mm512_store_si512(p, v); }

// a + b mod p for a, b < p: min(s, s - p) over unsigned lanes.
inline Vec vadd(Vec a, Vec b) {
  Vec s = _mm512_add_epi32(a, b);
  return _mm512_min_epu32(s, _mm512_sub_epi32(s, vbroadcast(Fp::P)));
}

// Montgomery product per lane, as Fp::mont_mul: even and odd lanes through 32x32->64 multiplies,
// high halves recombined, then hi(t) - hi(u*p) corrected by +p on borrow.
inline Vec vmul(Vec a, Vec b) {
  const Vec mu = vbroadcast(Fp::MONTY_MU), p = vbroadcast(Fp::P);
  Vec a_odd = _mm512_srli_epi64(a, 32), b_odd = _mm512_srli_epi64(b, 32);
  Vec t_evn = _mm512_mul_epu32(a, b), t_odd = _mm512_mul_epu32(a_odd, b_odd);
  Vec q_evn = _mm512_mul_epu32(t_evn, mu), q_odd = _mm512_mul_epu32(t_odd, mu);
  Vec qp_evn = _mm512_mul_epu32(q_evn, p), qp_odd = _mm512_mul_epu32(q_odd, p);
  // High 32 bits of each 64-bit product into its u32 lane: even from >>32, odd already in place.
  const __mmask16 odd = 0xAAAA;
  Vec t_hi = _mm512_mask_blend_epi32(odd, _mm512_srli_epi64(t_evn, 32), t_odd);
  Vec qp_hi = _mm512_mask_blend_epi32(odd, _mm512_srli_epi64(qp_evn, 32), qp_odd);
  Vec r = _mm512_sub_epi32(t_hi, qp_hi);
  return _mm512_min_epu32(r, _mm512_add_epi32(r, p));
}

#include "kernels/hash/poseidon2_simd.inl"
}  // namespace

size_t poseidon2_permute_avx512(Poseidon2State* states, size_t n) { return permute_all(states, n); }

}  // namespace vkstark
