#version 460
#extension GL_GOOGLE_include_directive : require
#include "runtime.glsl"
#include "fp4.glsl"
// MleEvalColumnsPartials (kernels/mle.hpp): partials[i * width + c] = sum_{b = i mod grid_x} matrix[c][b] * eq[b].
layout(set = 0, binding = 0) readonly buffer Matrix { uint m[]; };
layout(set = 0, binding = 1) readonly buffer Eq { uvec4 eq[]; };
layout(set = 0, binding = 2) writeonly buffer Partials { uvec4 part[]; };
VKS_PUSH_BEGIN VKS_VIEW(matrix) VKS_VIEW(eq) VKS_VIEW(partials) uint rows; uint col_stride; VKS_PUSH_END

void main() {
  uint i = vks_index_x();
  if (i >= pc.grid_x) return;
  uint c = vks_index_y();
  uvec4 acc = uvec4(0u);
  uint base = pc.matrix_off + c * pc.col_stride;
  for (uint b = i; b < pc.rows; b += pc.grid_x) acc = fp4_add(acc, fp4_scale(eq[pc.eq_off + b], m[base + b]));
  part[pc.partials_off + i * pc.grid_y + c] = acc;
}
