#version 460
#extension GL_GOOGLE_include_directive : require
#include "abi/eq_uni_weights.glsl"
#include "fp4.glsl"
// EqUniWeights (kernels/mle_tables.hpp): out[i] = eq_D^(L)(r, roots[i]) by the loop of protocol.md
// 5.1: res = (a + b) res + (a - 1)(b - 1) with a = r^(2^k), b = roots[i]^(2^k), then res / 2^L.

void main() {
  uint i = vks_index_x();
  if (i >= pc.grid_x) return;
  uvec4 a = r_[pc.r_off];
  uint b = roots_[pc.roots_off + i];
  uvec4 res = FP4_ONE;
  for (uint k = 0u; k < pc.log_n; ++k) {
    const uvec4 am1 = fp4_sub(a, FP4_ONE);
    const uint bm1 = fp_sub(b, FP_ONE);
    res = fp4_add(fp4_mul(fp4_add_base(a, b), res), fp4_scale(am1, bm1));
    a = fp4_square(a);
    b = fp_mul(b, b);
  }
  // 2^-L: the inverse of 2^L (in Montgomery form through fp_from_canonical).
  out_[pc.out_off + i] = fp4_scale(res, fp_inv(fp_from_canonical(1u << pc.log_n)));
}
