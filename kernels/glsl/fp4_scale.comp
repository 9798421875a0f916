#version 460
#extension GL_GOOGLE_include_directive : require
#include "abi/fp4_scale.glsl"
#include "fp4.glsl"
// Fp4Scale (kernels/elementwise.hpp): out[i] = a[i] * c[0] over Fp4, the challenge c read from a buffer.

void main() {
  uint i = vks_index_x();
  if (i >= pc.grid_x) return;
  out_[pc.out_off + i] = fp4_mul(a_[pc.a_off + i], c_[pc.c_off]);
}
