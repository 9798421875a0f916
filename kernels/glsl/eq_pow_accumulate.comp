#version 460
#extension GL_GOOGLE_include_directive : require
#include "abi/eq_pow_accumulate.glsl"
#include "fp4.glsl"
// EqPowAccumulate (kernels/whir.hpp): w[b] += sum_i gamma^(i+1) eq(b, pow(points[i])), with
// pow(z) = (z, z^2, ..., z^(2^(m-1))) and eq(b, x) = prod_k (b_k ? x_k : 1 - x_k). Points in the
// base field (the query points) take a base-field path; the branch is uniform across invocations.

void main() {
  uint b = vks_index_x();
  if (b >= pc.grid_x) return;
  uvec4 g = gamma_[pc.gamma_off];
  uvec4 weight = g;  // gamma^(i+1)
  uvec4 acc = w_[pc.w_off + b];
  for (uint i = 0u; i < pc.points_len; ++i) {
    uvec4 z = points_[pc.points_off + i];
    if (z.y == 0u && z.z == 0u && z.w == 0u) {
      uint x = z.x, e = FP_ONE;
      for (uint k = 0u; k < pc.m; ++k) {
        e = fp_mul(e, ((b >> k) & 1u) != 0u ? x : fp_sub(FP_ONE, x));
        x = fp_square(x);
      }
      acc = fp4_add(acc, fp4_scale(weight, e));
    } else {
      uvec4 x = z, e = FP4_ONE;
      for (uint k = 0u; k < pc.m; ++k) {
        e = fp4_mul(e, ((b >> k) & 1u) != 0u ? x : fp4_sub(FP4_ONE, x));
        x = fp4_square(x);
      }
      acc = fp4_add(acc, fp4_mul(weight, e));
    }
    weight = fp4_mul(weight, g);
  }
  w_[pc.w_off + b] = acc;
}
