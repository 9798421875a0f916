#version 460
#extension GL_GOOGLE_include_directive : require
#include "abi/mle_eval_columns_partials.glsl"
#include "fp4.glsl"
// MleEvalColumnsPartials (kernels/mle.hpp): partials[i * width + c] = sum_{b = i mod grid_x} matrix[c][b] * eq[b].

void main() {
  uint i = vks_index_x();
  if (i >= pc.grid_x) return;
  uint c = vks_index_y();
  uvec4 acc = uvec4(0u);
  uint base = pc.matrix_off + c * pc.col_stride;
  for (uint b = i; b < pc.rows; b += pc.grid_x) acc = fp4_add(acc, fp4_scale(eq_[pc.eq_off + b], matrix_[base + b]));
  partials_[pc.partials_off + i * pc.grid_y + c] = acc;
}
