#version 460
#extension GL_GOOGLE_include_directive : require
#include "runtime.glsl"
#include "fp4.glsl"
// BatchColumnsExt (kernels/whir.hpp): acc[b] += sum_{c < width} mu^(first_power + c) matrix[c * col_stride + b].
layout(set = 0, binding = 0) readonly buffer Matrix { uint m[]; };
layout(set = 0, binding = 1) readonly buffer Mu { uvec4 mu[]; };
layout(set = 0, binding = 2) buffer Acc { uvec4 acc[]; };
VKS_PUSH_BEGIN VKS_VIEW(matrix) VKS_VIEW(mu) VKS_VIEW(acc) uint width; uint col_stride; uint first_power; VKS_PUSH_END

void main() {
  uint b = vks_index_x();
  if (b >= pc.grid_x) return;
  uvec4 mu0 = mu[pc.mu_off];
  uvec4 p = fp4_pow(mu0, pc.first_power);
  uvec4 s = acc[pc.acc_off + b];
  uint src = pc.matrix_off + b;  // adjacent invocations read adjacent entries of each column
  for (uint c = 0u; c < pc.width; ++c) {
    s = fp4_add(s, fp4_scale(p, m[src]));
    p = fp4_mul(p, mu0);
    src += pc.col_stride;
  }
  acc[pc.acc_off + b] = s;
}
