#version 460
#extension GL_GOOGLE_include_directive : require
#include "runtime.glsl"
#include "fp4.glsl"
// FoldPairsFp4 (kernels/whir.hpp): dst[y] = src[2y] + alpha (src[2y+1] - src[2y]).
layout(set = 0, binding = 0) readonly buffer Src { uvec4 src[]; };
layout(set = 0, binding = 1) readonly buffer Alpha { uvec4 alpha[]; };
layout(set = 0, binding = 2) writeonly buffer Dst { uvec4 dst[]; };
VKS_PUSH_BEGIN VKS_VIEW(src) VKS_VIEW(alpha) VKS_VIEW(dst) VKS_PUSH_END

void main() {
  uint y = vks_index_x();
  if (y >= pc.grid_x) return;
  uvec4 a = src[pc.src_off + 2u * y], b = src[pc.src_off + 2u * y + 1u];
  dst[pc.dst_off + y] = fp4_add(a, fp4_mul(alpha[pc.alpha_off], fp4_sub(b, a)));
}
