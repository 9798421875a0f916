#version 460
#extension GL_GOOGLE_include_directive : require
#include "abi/stacked_fold_chunks.glsl"
#include "fp4.glsl"
// StackedFoldChunks (kernels/stacked_reduction.hpp): out[j] = sum_{S < N} message[j N + S] weights[S].

void main() {
  const uint j = vks_index_x();
  if (j >= pc.grid_x) return;
  const uint n = pc.weights_len, src = pc.message_off + j * n;
  uvec4 acc = FP4_ZERO;
  for (uint s = 0u; s < n; ++s) acc = fp4_add(acc, fp4_scale(weights_[pc.weights_off + s], message_[src + s]));
  out_[pc.out_off + j] = acc;
}
