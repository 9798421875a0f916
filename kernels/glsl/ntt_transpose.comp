#version 460
#extension GL_GOOGLE_include_directive : require
#include "runtime.glsl"
// NttTranspose (kernels/ntt.hpp): row-major rows x cols -> column-major, dst[c * rows + r] = src[r * cols + c].
layout(set = 0, binding = 0) readonly buffer Src { uint src_[]; };
layout(set = 0, binding = 1) writeonly buffer Dst { uint dst_[]; };
VKS_PUSH_BEGIN VKS_VIEW(src) VKS_VIEW(dst) uint rows; uint cols; VKS_PUSH_END

void main() {
  const uint i = vks_index_x();
  if (i >= pc.grid_x) return;
  const uint c = i / pc.rows;
  const uint r = i - c * pc.rows;
  dst_[pc.dst_off + i] = src_[pc.src_off + r * pc.cols + c];
}
