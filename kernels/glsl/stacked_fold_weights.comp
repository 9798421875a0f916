#version 460
#extension GL_GOOGLE_include_directive : require
#include "abi/stacked_fold_weights.glsl"
#include "fp4.glsl"
// StackedFoldWeights (kernels/stacked_reduction.hpp): out[b] = prod_k (b_k ? z^(2^k) : 1 - z^(2^k)).

void main() {
  const uint b = vks_index_x();
  if (b >= pc.grid_x) return;
  uvec4 x = z_[pc.z_off], acc = FP4_ONE;
  for (uint k = 0u; k < pc.l_skip; ++k) {
    acc = fp4_mul(acc, ((b >> k) & 1u) != 0u ? x : fp4_sub(FP4_ONE, x));
    x = fp4_square(x);
  }
  out_[pc.out_off + b] = acc;
}
