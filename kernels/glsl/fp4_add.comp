#version 460
#extension GL_GOOGLE_include_directive : require
#include "runtime.glsl"
#include "fp4.glsl"
// Fp4Add (kernels/elementwise.hpp): out[i] = a[i] + b[i] over Fp4 (uvec4 of Montgomery coefficients).
layout(set = 0, binding = 0) readonly buffer A { uvec4 a[]; };
layout(set = 0, binding = 1) readonly buffer B { uvec4 b[]; };
layout(set = 0, binding = 2) writeonly buffer Out { uvec4 o[]; };
VKS_PUSH_BEGIN VKS_VIEW(a) VKS_VIEW(b) VKS_VIEW(out) VKS_PUSH_END

void main() {
  uint i = vks_index_x();
  if (i >= pc.grid_x) return;
  o[pc.out_off + i] = fp4_add(a[pc.a_off + i], b[pc.b_off + i]);
}
