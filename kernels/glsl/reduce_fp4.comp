#version 460
#extension GL_GOOGLE_include_directive : require
#include "runtime.glsl"
#include "fp4.glsl"
// ReduceFp4 (kernels/whir.hpp): out[i * width + c] = sum_{j = i mod grid.x, j < n} in[j * width + c].
// Invocation i reads j = i, i + grid.x, ...: adjacent invocations read adjacent rows.
layout(set = 0, binding = 0) readonly buffer In { uvec4 src[]; };
layout(set = 0, binding = 1) writeonly buffer Out { uvec4 o[]; };
VKS_PUSH_BEGIN VKS_VIEW(in) VKS_VIEW(out) uint n; uint width; VKS_PUSH_END

void main() {
  uint i = vks_index_x();
  if (i >= pc.grid_x) return;
  for (uint c = 0u; c < pc.width; ++c) {
    uvec4 s = FP4_ZERO;
    for (uint j = i; j < pc.n; j += pc.grid_x) {
      s = fp4_add(s, src[pc.in_off + j * pc.width + c]);
    }
    o[pc.out_off + i * pc.width + c] = s;
  }
}
