// AVX2 packed Poseidon2 (8 states per vector). Compiled with -mavx2; only called after a run-time
// CPU check (poseidon2_batch.cpp).
#include <immintrin.h>

#include "kernels/hash/poseidon2_batch.hpp"

namespace vkstark {
namespace {
#include "kernels/field/detail/packed_avx2.inl"
// after the packed arithmetic it uses
#include "kernels/hash/poseidon2_simd.inl"
}  // namespace

size_t poseidon2_permute_avx2(Poseidon2State* states, size_t n) { return permute_all(states, n); }

// One state in two vectors (lanes 0-7 and 8-15), for a transcript's chain of permutations: a
// round's latency is one S-box and a few shuffles, where the scalar permutation runs 16 S-boxes
// and 16 sums one after the other. M4 is circulant (row i: 2 x_i + 3 x_{i+1} + x_{i+2} + x_{i+3}),
// so on each group of 4 (a 128-bit unit) it is s + x + 2 r1, with r1 the group rotated by one and
// s its sum; then every lane adds the sum of its column over the 4 groups. Also the AVX-512
// level's path: the state in one 512-bit vector measured slower (595 against 572 ns, decisions.md).
void poseidon2_permute_one_avx2(Poseidon2State& state) {
  using namespace poseidon2_detail;
  const auto* words = reinterpret_cast<const uint32_t*>(state.data());
  Vec lo = vloadu(words), hi = vloadu(words + 8);
  auto sbox = [](Vec v) {
    const Vec v2 = vmul(v, v), v3 = vmul(v2, v), v4 = vmul(v2, v2);
    return vmul(v4, v3);
  };
  auto group = [](Vec v) {  // M4 on each unit: s + x + 2 r1
    const Vec r1 = _mm256_shuffle_epi32(v, 0x39);
    const Vec t = vadd(v, _mm256_shuffle_epi32(v, 0x4E));
    const Vec s = vadd(t, _mm256_shuffle_epi32(t, 0x39));
    return vadd(vadd(s, v), vadd(r1, r1));
  };
  auto external = [&](Vec& a, Vec& b) {
    a = group(a);
    b = group(b);
    const Vec u = vadd(a, b);  // units 0+2, 1+3
    const Vec cols = vadd(u, _mm256_permute2x128_si256(u, u, 0x01));
    a = vadd(a, cols);
    b = vadd(b, cols);
  };
  const Vec diag_lo = vloadu(DIAG), diag_hi = vloadu(DIAG + 8);
  external(lo, hi);
  auto full_rounds = [&](const uint32_t* rc) {
    for (int r = 0; r < POSEIDON2_HALF_FULL_ROUNDS; ++r) {
      lo = sbox(vadd(lo, vloadu(rc + 16 * r)));
      hi = sbox(vadd(hi, vloadu(rc + 16 * r + 8)));
      external(lo, hi);
    }
  };
  full_rounds(RC_EXT_INIT);
  // Partial rounds with lane 0 apart, in scalar arithmetic: with s the S-box of lane 0 and R the
  // sum of lanes 1..15, the internal layer gives lane 0: R + s + d0 s = R - s (d0 = -2), lanes
  // i >= 1: R + s + d_i x_i, and the next R: 15 (R + s) + sum_{i>=1} d_i x_i. Only lane 0's S-box
  // and one subtraction are on the chain from round to round; the vector products and sums run
  // beside it (about half the latency of the whole state through each round).
  const Vec zero = _mm256_setzero_si256();
  auto rest_sum = [&](Vec a, Vec b) {  // lanes 1..15 of a:b, summed
    Vec t = vadd(_mm256_blend_epi32(a, zero, 1), b);
    t = vadd(t, _mm256_permute2x128_si256(t, t, 0x01));
    t = vadd(t, _mm256_shuffle_epi32(t, 0x4E));
    t = vadd(t, _mm256_shuffle_epi32(t, 0xB1));
    return Fp::from_mont(static_cast<uint32_t>(_mm256_cvtsi256_si32(t)));
  };
  const Fp fifteen = Fp::from_canonical(15);
  Fp x0 = Fp::from_mont(static_cast<uint32_t>(_mm256_cvtsi256_si32(lo)));
  Fp rest = rest_sum(lo, hi);
  for (int r = 0; r < POSEIDON2_PARTIAL_ROUNDS; ++r) {
    const Vec dlo = vmul(lo, diag_lo), dhi = vmul(hi, diag_hi);  // beside the S-box
    const Fp dsum = rest_sum(dlo, dhi);
    const Fp t = x0 + Fp::from_mont(RC_INT[r]);
    const Fp t2 = t * t, t3 = t2 * t, t4 = t2 * t2, s0 = t4 * t3;
    const Fp sum = rest + s0;
    x0 = rest - s0;
    rest = sum * fifteen + dsum;
    const Vec vs = vbroadcast(sum.mont());
    lo = vadd(vs, dlo);
    hi = vadd(vs, dhi);
  }
  lo = _mm256_blend_epi32(lo, vbroadcast(x0.mont()), 1);
  full_rounds(RC_EXT_TERM);
  auto* out = reinterpret_cast<uint32_t*>(state.data());
  vstoreu(out, lo);
  vstoreu(out + 8, hi);
}

}  // namespace vkstark
