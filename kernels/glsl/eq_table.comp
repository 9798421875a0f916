#version 460
#extension GL_GOOGLE_include_directive : require
#include "runtime.glsl"
#include "fp4.glsl"
// EqTable (kernels/whir.hpp): out[b] = eq(b, u) = prod_{k < m} (b_k ? u_k : 1 - u_k).
layout(set = 0, binding = 0) readonly buffer U { uvec4 u[]; };
layout(set = 0, binding = 1) writeonly buffer Out { uvec4 o[]; };
VKS_PUSH_BEGIN VKS_VIEW(u) VKS_VIEW(out) uint m; VKS_PUSH_END

void main() {
  uint b = vks_index_x();
  if (b >= pc.grid_x) return;
  uvec4 acc = FP4_ONE;
  for (uint k = 0u; k < pc.m; ++k) {
    uvec4 uk = u[pc.u_off + k];
    acc = fp4_mul(acc, ((b >> k) & 1u) != 0u ? uk : fp4_sub(FP4_ONE, uk));
  }
  o[pc.out_off + b] = acc;
}
