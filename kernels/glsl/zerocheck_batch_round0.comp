#version 460
#extension GL_GOOGLE_include_directive : require
#include "abi/zerocheck_batch_round0.glsl"
#include "fp4.glsl"
// ZerocheckBatchRound0 (kernels/batch_constraint.hpp): coeffs[j] = sum_T mu^(2T) s_p,T[j] + mu^(2T+1)
// s_q,T[j] + mu^(2P+T) s_zc,T[j], trace T's polynomials at polys[3 T L ..].

void main() {
  const uint j = vks_index_x();
  if (j >= pc.grid_x) return;
  const uint len = pc.coeffs_len, traces = pc.polys_len / (3u * len);
  const uvec4 mu = mu_[pc.mu_off];
  uvec4 acc = FP4_ZERO, pw = FP4_ONE;
  for (uint t = 0u; t < traces; ++t) {
    for (uint f = 0u; f < 2u; ++f) {
      acc = fp4_add(acc, fp4_mul(pw, polys_[pc.polys_off + (3u * t + f) * len + j]));
      pw = fp4_mul(pw, mu);
    }
  }
  for (uint t = 0u; t < traces; ++t) {
    acc = fp4_add(acc, fp4_mul(pw, polys_[pc.polys_off + (3u * t + 2u) * len + j]));
    pw = fp4_mul(pw, mu);
  }
  coeffs_[pc.coeffs_off + j] = acc;
}
