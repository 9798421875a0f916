#version 460
#extension GL_GOOGLE_include_directive : require
#include "abi/stacked_round0_sums.glsl"
#include "fp4.glsl"
// StackedRound0Sums (kernels/stacked_reduction.hpp): sums[t N + a] = sum over the subsets S of a of
// (-1)^|a \ S| sum_p partials[(3p + t) N + S] (the partial sums added, then Möbius over the l bits).

void main() {
  const uint i = vks_index_x();
  if (i >= pc.grid_x) return;
  const uint n = 1u << pc.l_skip, t = i >> pc.l_skip, a = i & (n - 1u);
  const uint parts = pc.partials_len / (3u * n);
  uvec4 acc = FP4_ZERO;
  uint s = a;
  for (;;) {
    uvec4 v = FP4_ZERO;
    for (uint p = 0u; p < parts; ++p) v = fp4_add(v, partials_[pc.partials_off + (3u * p + t) * n + s]);
    acc = (bitCount(a ^ s) & 1) != 0 ? fp4_sub(acc, v) : fp4_add(acc, v);
    if (s == 0u) break;
    s = (s - 1u) & a;
  }
  sums_[pc.sums_off + i] = acc;
}
