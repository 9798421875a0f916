#version 460
#extension GL_GOOGLE_include_directive : require
#include "abi/fp4_mul.glsl"
#include "fp4.glsl"
// Fp4Mul (kernels/elementwise.hpp): out[i] = a[i] * b[i] over Fp4 (uvec4 of Montgomery coefficients).

void main() {
  uint i = vks_index_x();
  if (i >= pc.grid_x) return;
  out_[pc.out_off + i] = fp4_mul(a_[pc.a_off + i], b_[pc.b_off + i]);
}
