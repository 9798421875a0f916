#version 460
#extension GL_GOOGLE_include_directive : require
#include "abi/fill_u32.glsl"
// FillU32 (kernels/basic.hpp): out[i] = value.

void main() {
  uint i = vks_index_x();
  if (i >= pc.grid_x) return;
  out_[pc.out_off + i] = pc.value;
}
