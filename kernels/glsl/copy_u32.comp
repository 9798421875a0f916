#version 460
#extension GL_GOOGLE_include_directive : require
#include "runtime.glsl"
// CopyU32 (kernels/basic.hpp): dst[i] = src[i].
layout(set = 0, binding = 0) readonly buffer Src { uint s[]; };
layout(set = 0, binding = 1) writeonly buffer Dst { uint d[]; };
VKS_PUSH_BEGIN VKS_VIEW(src) VKS_VIEW(dst) VKS_PUSH_END

void main() {
  uint i = vks_index_x();
  if (i >= pc.grid_x) return;
  d[pc.dst_off + i] = s[pc.src_off + i];
}
