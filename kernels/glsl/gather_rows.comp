#version 460
#extension GL_GOOGLE_include_directive : require
#include "runtime.glsl"
// GatherRows (kernels/merkle.hpp): invocation i = q * rows_per_query + t copies row
// idx[q] + t * query_stride of the matrix (width values) to out[i * width ..].
layout(set = 0, binding = 0) readonly buffer Idx { uint idx[]; };
layout(set = 0, binding = 1) readonly buffer Matrix { uint m[]; };
layout(set = 0, binding = 2) writeonly buffer Out { uint o[]; };
VKS_PUSH_BEGIN VKS_VIEW(idx) VKS_VIEW(matrix) VKS_VIEW(out) uint width; uint rows_per_query; uint query_stride;
  uint row_stride; uint col_stride; VKS_PUSH_END

void main() {
  uint i = vks_index_x();
  if (i >= pc.grid_x) return;
  uint q = i / pc.rows_per_query;
  uint t = i - q * pc.rows_per_query;
  uint src = pc.matrix_off + (idx[pc.idx_off + q] + t * pc.query_stride) * pc.row_stride;
  uint dst = pc.out_off + i * pc.width;
  for (uint c = 0u; c < pc.width; ++c) o[dst + c] = m[src + c * pc.col_stride];
}
