#version 460
#extension GL_GOOGLE_include_directive : require
#include "abi/reduce_fp4.glsl"
#include "fp4.glsl"
// ReduceFp4 (kernels/whir.hpp): out[i * width + c] = sum_{j = i mod grid.x, j < n} in[j * width + c].
// Invocation i reads j = i, i + grid.x, ...: adjacent invocations read adjacent rows.

void main() {
  uint i = vks_index_x();
  if (i >= pc.grid_x) return;
  for (uint c = 0u; c < pc.width; ++c) {
    uvec4 s = FP4_ZERO;
    for (uint j = i; j < pc.n; j += pc.grid_x) {
      s = fp4_add(s, in_[pc.in_off + j * pc.width + c]);
    }
    out_[pc.out_off + i * pc.width + c] = s;
  }
}
