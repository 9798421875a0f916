#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "abi/gkr_sumcheck_partials.glsl"
#include "gkr_sumcheck.glsl"
// GkrSumcheckPartials (kernels/gkr.hpp): workgroup p of 64 invocations writes partials[3p + x - 1]
// = sum eq[y] F(x), x = 1, 2, 3, over the pairs y = 64 p + lane + k 64 P < pairs (P =
// partials.count / 3); pair y reads P[4y .. 4y + 3] and Q[4y .. 4y + 3].

void main() {
  if (gl_WorkGroupSize.x != GKR_LANES) return;  // the partition of the pairs assumes 64 (kernels/gkr.hpp)
  const uint i = vks_index_x(), lane = gl_LocalInvocationID.x;
  const uint parts = pc.partials_len / 3u, stride = GKR_LANES * parts;
  uvec4 s1 = FP4_ZERO, s2 = FP4_ZERO, s3 = FP4_ZERO;
  // grid.x = 64 P: whole workgroups, so every invocation reaches the barriers of gkr_reduce_lanes.
  if (i < pc.grid_x) {
    const uvec4 lambda = lambda_[pc.lambda_off];
    for (uint y = i; y < pc.pairs; y += stride) {
      const uint p0 = pc.p_off + 4u * y, q0 = pc.q_off + 4u * y;
      gkr_add_round_terms(p_[p0], p_[p0 + 1u], p_[p0 + 2u], p_[p0 + 3u], q_[q0], q_[q0 + 1u], q_[q0 + 2u],
                          q_[q0 + 3u], eq_[pc.eq_off + y], lambda, s1, s2, s3);
    }
  }
  gkr_reduce_lanes(lane, s1, s2, s3);
  if (lane == 0u && i < pc.grid_x) {
    const uint o = pc.partials_off + 3u * (i / GKR_LANES);
    partials_[o] = gkr_sum1[0];
    partials_[o + 1u] = gkr_sum2[0];
    partials_[o + 2u] = gkr_sum3[0];
  }
}
