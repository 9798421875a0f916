#version 460
#extension GL_GOOGLE_include_directive : require
#include "runtime.glsl"
// NttCopyPad (kernels/ntt.hpp): dst[c][i] = i < src_count ? src[c][i] : 0 for i < grid_x, c = grid.y index.
layout(set = 0, binding = 0) readonly buffer Src { uint src_[]; };
layout(set = 0, binding = 1) writeonly buffer Dst { uint dst_[]; };
VKS_PUSH_BEGIN VKS_VIEW(src) VKS_VIEW(dst) uint src_stride; uint dst_stride; uint src_count; VKS_PUSH_END

void main() {
  const uint i = vks_index_x();
  if (i >= pc.grid_x) return;
  const uint c = vks_index_y();
  dst_[pc.dst_off + c * pc.dst_stride + i] = i < pc.src_count ? src_[pc.src_off + c * pc.src_stride + i] : 0u;
}
