#version 460
#extension GL_GOOGLE_include_directive : require
#include "abi/copy_u32.glsl"
// CopyU32 (kernels/basic.hpp): dst[i] = src[i].

void main() {
  uint i = vks_index_x();
  if (i >= pc.grid_x) return;
  dst_[pc.dst_off + i] = src_[pc.src_off + i];
}
