#version 460
#extension GL_GOOGLE_include_directive : require
#include "abi/reduce_fp4.glsl"
#include "fp4.glsl"
// ReduceFp4 (kernels/whir.hpp): out[i * width + c] = sum_{j = i mod G, j < n} in[j * width + c],
// G = out.count / width. Invocation i * width + c makes out[i * width + c]: adjacent invocations
// read adjacent values.

void main() {
  const uint e = vks_index_x();
  if (e >= pc.grid_x) return;
  const uint groups = pc.out_len / pc.width, i = e / pc.width, c = e - i * pc.width;
  uvec4 s = FP4_ZERO;
  for (uint j = i; j < pc.n; j += groups) s = fp4_add(s, in_[pc.in_off + j * pc.width + c]);
  out_[pc.out_off + e] = s;
}
