#version 460
#extension GL_GOOGLE_include_directive : require
#include "runtime.glsl"
// StackColumns (kernels/stacking.hpp): trace entry (i, j) -> stacked column start_col + pos >> log_H,
// row pos & (H - 1), with pos = start_row + j 2^log_slice + i 2^log_stride.
layout(set = 0, binding = 0) readonly buffer Src { uint s[]; };
layout(set = 0, binding = 1) writeonly buffer Dst { uint d[]; };
VKS_PUSH_BEGIN VKS_VIEW(src) VKS_VIEW(dst) uint log_slice; uint log_stride; uint log_stacked_height; uint start_col;
  uint start_row; uint dst_col_stride; VKS_PUSH_END

void main() {
  uint i = vks_index_x();
  if (i >= pc.grid_x) return;
  uint j = vks_index_y();
  uint pos = pc.start_row + (j << pc.log_slice) + (i << pc.log_stride);
  uint col = pc.start_col + (pos >> pc.log_stacked_height);
  uint row = pos & ((1u << pc.log_stacked_height) - 1u);
  d[pc.dst_off + col * pc.dst_col_stride + row] = s[pc.src_off + j * pc.grid_x + i];
}
