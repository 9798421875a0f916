#version 460
#extension GL_GOOGLE_include_directive : require
#include "abi/stacked_round0_sums.glsl"
#include "stacked_reduction.glsl"
// StackedRound0Sums (kernels/stacked_reduction.hpp): sums[t N + a] = N^-1 sum_S omega^(-S a)
// sum_p partials[(3p + t) N + S] (the partial sums added, then the iDFT over D); with mobius, the
// sum over the subsets S of a of (-1)^|a \ S| sum_p partials[(3p + t) N + S].

void main() {
  const uint i = vks_index_x();
  if (i >= pc.grid_x) return;
  const uint n = 1u << pc.l_skip, t = i >> pc.l_skip, a = i & (n - 1u);
  const uint parts = pc.partials_len / (3u * n);
  if (pc.mobius != 0u) {
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
    return;
  }
  const uint step = fp_pow(sr_root(pc.l_skip), (n - a) & (n - 1u));  // omega^(-a)
  uvec4 acc = FP4_ZERO;
  uint pw = FP_ONE;
  for (uint s = 0u; s < n; ++s, pw = fp_mul(pw, step)) {
    uvec4 v = FP4_ZERO;
    for (uint p = 0u; p < parts; ++p) v = fp4_add(v, partials_[pc.partials_off + (3u * p + t) * n + s]);
    acc = fp4_add(acc, fp4_scale(v, pw));
  }
  sums_[pc.sums_off + i] = sr_halve_k(acc, pc.l_skip);
}
