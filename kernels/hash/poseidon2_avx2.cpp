// AVX2 packed Poseidon2 (8 states per vector). Compiled with -mavx2; only called after a run-time
// CPU check (poseidon2_batch.cpp).
#include <immintrin.h>

#include "kernels/hash/poseidon2_batch.hpp"

namespace vkstark {
namespace {
using Vec = __m256i;
constexpr size_t LANES = 8;

inline Vec vbroadcast(uint32_t x) { return _mm256_set1_epi32(static_cast<int>(x)); }
inline Vec vload(const uint32_t* p) { return _mm256_load_si256(reinterpret_cast<const __m256i*>(p)); }
inline void vstore(uint32_t* p, Vec v) { _mm256_store_si256(reinterpret_cast<__m256i*>(p), v); }

inline Vec vadd(Vec a, Vec b) {
  Vec s = _mm256_add_epi32(a, b);
  return _mm256_min_epu32(s, _mm256_sub_epi32(s, vbroadcast(Fp::P)));
}

// See poseidon2_avx512.cpp.
inline Vec vmul(Vec a, Vec b) {
  const Vec mu = vbroadcast(Fp::MONTY_MU), p = vbroadcast(Fp::P);
  Vec a_odd = _mm256_srli_epi64(a, 32), b_odd = _mm256_srli_epi64(b, 32);
  Vec t_evn = _mm256_mul_epu32(a, b), t_odd = _mm256_mul_epu32(a_odd, b_odd);
  Vec q_evn = _mm256_mul_epu32(t_evn, mu), q_odd = _mm256_mul_epu32(t_odd, mu);
  Vec qp_evn = _mm256_mul_epu32(q_evn, p), qp_odd = _mm256_mul_epu32(q_odd, p);
  Vec t_hi = _mm256_blend_epi32(_mm256_srli_epi64(t_evn, 32), t_odd, 0xAA);
  Vec qp_hi = _mm256_blend_epi32(_mm256_srli_epi64(qp_evn, 32), qp_odd, 0xAA);
  Vec r = _mm256_sub_epi32(t_hi, qp_hi);
  return _mm256_min_epu32(r, _mm256_add_epi32(r, p));
}

#include "kernels/hash/poseidon2_simd.inl"
}  // namespace

size_t poseidon2_permute_avx2(Poseidon2State* states, size_t n) { return permute_all(states, n); }

}  // namespace vkstark
