#version 460
#extension GL_GOOGLE_include_directive : require
#include "abi/stack_columns.glsl"
// StackColumns (kernels/pcs.hpp): trace entry (i, j) -> stacked column start_col + pos >> log_H,
// row pos & (H - 1), with pos = start_row + j 2^log_slice + i 2^log_stride.

void main() {
  uint i = vks_index_x();
  if (i >= pc.grid_x) return;
  uint j = vks_index_y();
  uint pos = pc.start_row + (j << pc.log_slice) + (i << pc.log_stride);
  uint col = pc.start_col + (pos >> pc.log_stacked_height);
  uint row = pos & ((1u << pc.log_stacked_height) - 1u);
  dst_[pc.dst_off + col * pc.dst_col_stride + row] = src_[pc.src_off + j * pc.grid_x + i];
}
