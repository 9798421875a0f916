#version 460
#extension GL_GOOGLE_include_directive : require
#include "abi/fp4_powers.glsl"
#include "fp4.glsl"
// Fp4Powers (kernels/elementwise.hpp): out[i] = a[0]^i.

void main() {
  const uint i = vks_index_x();
  if (i >= pc.grid_x) return;
  out_[pc.out_off + i] = fp4_pow(a_[pc.a_off], i);
}
