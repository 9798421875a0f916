#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "abi/gkr_fold_sumcheck_partials.glsl"
#include "gkr_sumcheck.glsl"
// GkrFoldSumcheckPartials (kernels/gkr.hpp): the invocation of pair y folds P[8y .. 8y + 7] at rho
// into p_dst[4y .. 4y + 3] (entry 2z + b from P[4z + b] and P[4z + 2 + b]; Q likewise) and adds
// the pair's terms to its sums; workgroup p writes the partials of its pairs, as
// gkr_sumcheck_partials.comp.

void main() {
  if (gl_WorkGroupSize.x != GKR_LANES) return;  // the partition of the pairs assumes 64 (kernels/gkr.hpp)
  const uint i = vks_index_x(), lane = gl_LocalInvocationID.x;
  const uint parts = pc.partials_len / 3u, stride = GKR_LANES * parts;
  uvec4 s1 = FP4_ZERO, s2 = FP4_ZERO, s3 = FP4_ZERO;
  if (i < pc.grid_x) {
    const uvec4 lambda = lambda_[pc.lambda_off], rho = rho_[pc.rho_off];
    for (uint y = i; y < pc.pairs; y += stride) {
      uvec4 pf[4], qf[4];
      [[unroll]] for (uint k = 0u; k < 4u; ++k) {
        const uint src = 8u * y + 4u * (k >> 1u) + (k & 1u);  // 4z + b with z = 2y + k / 2
        const uvec4 p0 = p_[pc.p_off + src], p1 = p_[pc.p_off + src + 2u];
        const uvec4 q0 = q_[pc.q_off + src], q1 = q_[pc.q_off + src + 2u];
        pf[k] = fp4_add(p0, fp4_mul(rho, fp4_sub(p1, p0)));
        qf[k] = fp4_add(q0, fp4_mul(rho, fp4_sub(q1, q0)));
        p_dst_[pc.p_dst_off + 4u * y + k] = pf[k];
        q_dst_[pc.q_dst_off + 4u * y + k] = qf[k];
      }
      gkr_add_round_terms(pf[0], pf[1], pf[2], pf[3], qf[0], qf[1], qf[2], qf[3], eq_[pc.eq_off + y], lambda, s1, s2,
                          s3);
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
