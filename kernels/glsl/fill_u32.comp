#version 460
#extension GL_GOOGLE_include_directive : require
#include "runtime.glsl"
// FillU32 (kernels/basic.hpp): out[i] = value.
layout(set = 0, binding = 0) writeonly buffer Out { uint o[]; };
VKS_PUSH_BEGIN VKS_VIEW(out) uint value; VKS_PUSH_END

void main() {
  uint i = vks_index_x();
  if (i >= pc.grid_x) return;
  o[pc.out_off + i] = pc.value;
}
