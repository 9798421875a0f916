#version 460
#extension GL_GOOGLE_include_directive : require
#include "abi/fp_mul.glsl"
#include "fp.glsl"
// FpMul (kernels/elementwise.hpp): out[i] = a[i] * b[i] over Fp (Montgomery form).

void main() {
  uint i = vks_index_x();
  if (i >= pc.grid_x) return;
  out_[pc.out_off + i] = fp_mul(a_[pc.a_off + i], b_[pc.b_off + i]);
}
