#version 460
#extension GL_GOOGLE_include_directive : require
#include "abi/zerocheck_round0_polys.glsl"
#include "fp4.glsl"
// ZerocheckRound0Polys (kernels/batch_constraint.hpp): coefficient j of s_p = eq# s'_p, s_q = eq# s'_q
// (f = 0, 1) or s_zc = eq_D(xi_0, .) s'_zc (f = 2), s'_zc[b] = q[b - N] - q[b] for b <
// trace_degree (N - 1) + 1; the products run over the b with 0 <= j - b < N.

void main() {
  const uint o = vks_index_x();
  if (o >= pc.grid_x) return;
  const uint n = 1u << pc.log_n, len = pc.polys_len / 3u, kk = pc.coeffs_len / 3u;
  const uint f = o / len, j = o - f * len, lo = j >= n ? j - n + 1u : 0u;
  uvec4 acc = FP4_ZERO;
  if (f < 2u) {
    const uint src = pc.coeffs_off + (f + 1u) * kk, hi = min(j, kk - 1u);
    for (uint b = lo; b <= hi; ++b) acc = fp4_add(acc, fp4_mul(eq_polys_[pc.eq_polys_off + j - b], coeffs_[src + b]));
  } else {
    const uint q = pc.coeffs_off, hi = min(j, pc.trace_degree * (n - 1u));
    for (uint b = lo; b <= hi; ++b) {
      uvec4 t = b < kk ? fp4_neg(coeffs_[q + b]) : FP4_ZERO;
      if (b >= n && b - n < kk) t = fp4_add(t, coeffs_[q + b - n]);
      acc = fp4_add(acc, fp4_mul(eq_polys_[pc.eq_polys_off + n + j - b], t));
    }
  }
  polys_[pc.polys_off + o] = acc;
}
