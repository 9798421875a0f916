#version 460
#extension GL_GOOGLE_include_directive : require
#include "abi/fp_scale.glsl"
#include "fp.glsl"
// FpScale (kernels/elementwise.hpp): out[i] = a[i] * c[0] over Fp (Montgomery form).

void main() {
  uint i = vks_index_x();
  if (i >= pc.grid_x) return;
  out_[pc.out_off + i] = fp_mul(a_[pc.a_off + i], c_[pc.c_off]);
}
