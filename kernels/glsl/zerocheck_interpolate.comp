#version 460
#extension GL_GOOGLE_include_directive : require
#include "abi/zerocheck_interpolate.glsl"
#include "fp4.glsl"
// ZerocheckInterpolate (kernels/batch_constraint.hpp): coeffs[f C N + i] = sum_m matrix[i C N + m] v(f, m),
// v(f, c N + k) = scale[f C + c] sum_{j < rows} partials[c rows 3N + (j 3 + f) N + k].

void main() {
  const uint o = vks_index_x();
  if (o >= pc.grid_x) return;
  const uint n = 1u << pc.log_n, cosets = pc.scale_len / 3u, kk = cosets << pc.log_n;
  const uint f = o / kk, i = o - f * kk;
  const uint stride = 3u * n, per_coset = pc.rows * stride;
  uvec4 acc = FP4_ZERO;
  for (uint c = 0u; c < cosets; ++c) {
    const uint s = scale_[pc.scale_off + f * cosets + c];
    for (uint k = 0u; k < n; ++k) {
      uvec4 v = FP4_ZERO;
      uint at = pc.partials_off + c * per_coset + f * n + k;
      for (uint j = 0u; j < pc.rows; ++j) {
        v = fp4_add(v, partials_[at]);
        at += stride;
      }
      acc = fp4_add(acc, fp4_scale(v, fp_mul(s, matrix_[pc.matrix_off + i * kk + c * n + k])));
    }
  }
  coeffs_[pc.coeffs_off + o] = acc;
}
