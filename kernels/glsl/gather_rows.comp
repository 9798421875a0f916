#version 460
#extension GL_GOOGLE_include_directive : require
#include "abi/gather_rows.glsl"
// GatherRows (kernels/merkle.hpp): invocation i = q * rows_per_query + t copies row
// idx[q] + t * query_stride of the matrix (width values) to out[i * S ..], S = out_stride or width.

void main() {
  uint i = vks_index_x();
  if (i >= pc.grid_x) return;
  uint q = i / pc.rows_per_query;
  uint t = i - q * pc.rows_per_query;
  uint src = pc.matrix_off + (idx_[pc.idx_off + q] + t * pc.query_stride) * pc.row_stride;
  uint dst = pc.out_off + i * (pc.out_stride == 0u ? pc.width : pc.out_stride);
  for (uint c = 0u; c < pc.width; ++c) out_[dst + c] = matrix_[src + c * pc.col_stride];
}
