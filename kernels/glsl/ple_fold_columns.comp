#version 460
#extension GL_GOOGLE_include_directive : require
#include "abi/ple_fold_columns.glsl"
#include "fp4.glsl"
// PleFoldColumns (kernels/mle_tables.hpp): out[c B + x] = sum_{i < N} w[i] in[c H + (((first_chunk + x) N
// + i + shift) mod H)], B = 2^log_chunks.

void main() {
  uint o = vks_index_x();
  if (o >= pc.grid_x) return;
  const uint h = 1u << pc.log_height, n = 1u << pc.log_n;
  const uint c = o >> pc.log_chunks, x = pc.first_chunk + (o & ((1u << pc.log_chunks) - 1u));
  uvec4 acc = FP4_ZERO;
  for (uint i = 0u; i < n; ++i) {
    const uint row = (x * n + i + pc.shift) & (h - 1u);
    acc = fp4_add(acc, fp4_scale(weights_[pc.weights_off + i], in_[pc.in_off + c * h + row]));
  }
  out_[pc.out_off + o] = acc;
}
