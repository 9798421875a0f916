#version 460
#extension GL_GOOGLE_include_directive : require
#include "runtime.glsl"
#include "fp.glsl"
// FpAdd (kernels/elementwise.hpp): out[i] = a[i] + b[i] over Fp (Montgomery form).
layout(set = 0, binding = 0) readonly buffer A { uint a[]; };
layout(set = 0, binding = 1) readonly buffer B { uint b[]; };
layout(set = 0, binding = 2) writeonly buffer Out { uint o[]; };
VKS_PUSH_BEGIN VKS_VIEW(a) VKS_VIEW(b) VKS_VIEW(out) VKS_PUSH_END

void main() {
  uint i = vks_index_x();
  if (i >= pc.grid_x) return;
  o[pc.out_off + i] = fp_add(a[pc.a_off + i], b[pc.b_off + i]);
}
