// AVX-512 packed Poseidon2 (16 states per vector). Compiled with -mavx512f; only called after a
// run-time CPU check (poseidon2_batch.cpp).
#include <immintrin.h>

#include "kernels/hash/poseidon2_batch.hpp"

namespace vkstark {
namespace {
#include "kernels/field/detail/packed_avx512.inl"
// after the packed arithmetic it uses
#include "kernels/hash/poseidon2_simd.inl"
}  // namespace

size_t poseidon2_permute_avx512(Poseidon2State* states, size_t n) { return permute_all(states, n); }

// One state in one vector (lane i = word i), for a transcript's chain of permutations: the latency
// of a round is that of one S-box and a few shuffles, where the scalar permutation runs 16 S-boxes
// and 16 sums a round one after the other.
void poseidon2_permute_one_avx512(Poseidon2State& state) {
  using namespace poseidon2_detail;
  Vec x = vloadu(reinterpret_cast<const uint32_t*>(state.data()));
  auto sbox = [](Vec v) {
    const Vec v2 = vmul(v, v), v3 = vmul(v2, v), v4 = vmul(v2, v2);
    return vmul(v4, v3);
  };
  // M4 is circulant (row i: 2 x_i + 3 x_{i+1} + x_{i+2} + x_{i+3}): y = s + x + 2 r1 with rk the
  // group of 4 rotated by k and s its sum; then every lane adds the sum of its column over the 4
  // groups (the 128-bit units).
  auto external = [](Vec v) {
    const Vec r1 = _mm512_shuffle_epi32(v, _MM_PERM_ADCB);  // lane i <- i + 1 (mod 4)
    const Vec t = vadd(v, _mm512_shuffle_epi32(v, _MM_PERM_BADC));  // x_i + x_{i+2}
    const Vec s = vadd(t, _mm512_shuffle_epi32(t, _MM_PERM_ADCB));  // the group's sum, every lane
    const Vec y = vadd(vadd(s, v), vadd(r1, r1));
    const Vec u = vadd(y, _mm512_shuffle_i32x4(y, y, 0x4E));  // units 0+2, 1+3, ...
    return vadd(y, vadd(u, _mm512_shuffle_i32x4(u, u, 0xB1)));
  };
  const Vec diag = vloadu(DIAG);
  x = external(x);
  for (int r = 0; r < POSEIDON2_HALF_FULL_ROUNDS; ++r) x = external(sbox(vadd(x, vloadu(RC_EXT_INIT + 16 * r))));
  for (int r = 0; r < POSEIDON2_PARTIAL_ROUNDS; ++r) {
    const Vec s0 = sbox(vadd(x, _mm512_maskz_set1_epi32(1, static_cast<int>(RC_INT[r]))));
    x = _mm512_mask_blend_epi32(1, x, s0);
    Vec sum = vadd(x, _mm512_shuffle_i32x4(x, x, 0x4E));
    sum = vadd(sum, _mm512_shuffle_i32x4(sum, sum, 0xB1));
    sum = vadd(sum, _mm512_shuffle_epi32(sum, _MM_PERM_BADC));
    sum = vadd(sum, _mm512_shuffle_epi32(sum, _MM_PERM_CDAB));
    x = vadd(sum, vmul(x, diag));
  }
  for (int r = 0; r < POSEIDON2_HALF_FULL_ROUNDS; ++r) x = external(sbox(vadd(x, vloadu(RC_EXT_TERM + 16 * r))));
  vstoreu(reinterpret_cast<uint32_t*>(state.data()), x);
}

}  // namespace vkstark
