#version 460
#extension GL_GOOGLE_include_directive : require
#include "abi/batch_columns_ext.glsl"
#include "fp4.glsl"
// BatchColumnsExt (kernels/whir.hpp): acc[b] += sum_{c < width} mu^(first_power + c) matrix[c * col_stride + b].

void main() {
  uint b = vks_index_x();
  if (b >= pc.grid_x) return;
  uvec4 mu0 = mu_[pc.mu_off];
  uvec4 p = fp4_pow(mu0, pc.first_power);
  uvec4 s = acc_[pc.acc_off + b];
  uint src = pc.matrix_off + b;  // adjacent invocations read adjacent entries of each column
  for (uint c = 0u; c < pc.width; ++c) {
    s = fp4_add(s, fp4_scale(p, matrix_[src]));
    p = fp4_mul(p, mu0);
    src += pc.col_stride;
  }
  acc_[pc.acc_off + b] = s;
}
