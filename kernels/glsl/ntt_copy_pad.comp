#version 460
#extension GL_GOOGLE_include_directive : require
#include "abi/ntt_copy_pad.glsl"
// NttCopyPad (kernels/ntt.hpp): dst[c][i] = i < src_count ? src[c][i] : 0 for i < grid_x, c = grid.y index.

void main() {
  const uint i = vks_index_x();
  if (i >= pc.grid_x) return;
  const uint c = vks_index_y();
  dst_[pc.dst_off + c * pc.dst_stride + i] = i < pc.src_count ? src_[pc.src_off + c * pc.src_stride + i] : 0u;
}
