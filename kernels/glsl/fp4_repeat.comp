#version 460
#extension GL_GOOGLE_include_directive : require
#include "abi/fp4_repeat.glsl"
// Fp4Repeat (kernels/elementwise.hpp): out[i] = a[i mod a.count].

void main() {
  uint i = vks_index_x();
  if (i >= pc.grid_x) return;
  out_[pc.out_off + i] = a_[pc.a_off + i % pc.a_len];
}
