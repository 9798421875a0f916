#version 460
#extension GL_GOOGLE_include_directive : require
#include "runtime.glsl"
#include "fp4.glsl"
// Fp4Scale (kernels/elementwise.hpp): out[i] = a[i] * c[0] over Fp4, the challenge c read from a buffer.
layout(set = 0, binding = 0) readonly buffer A { uvec4 a[]; };
layout(set = 0, binding = 1) readonly buffer C { uvec4 c[]; };
layout(set = 0, binding = 2) writeonly buffer Out { uvec4 o[]; };
VKS_PUSH_BEGIN VKS_VIEW(a) VKS_VIEW(c) VKS_VIEW(out) VKS_PUSH_END

void main() {
  uint i = vks_index_x();
  if (i >= pc.grid_x) return;
  o[pc.out_off + i] = fp4_mul(a[pc.a_off + i], c[pc.c_off]);
}
