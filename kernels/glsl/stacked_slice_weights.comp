#version 460
#extension GL_GOOGLE_include_directive : require
#include "abi/stacked_slice_weights.glsl"
#include "fp4.glsl"
// StackedSliceWeights (kernels/stacked_reduction.hpp): weights[2i] = lambda^(2i),
// weights[2i+1] = rot[i] != 0 ? lambda^(2i+1) : 0.

void main() {
  uint i = vks_index_x();
  if (i >= pc.grid_x) return;
  const uvec4 lambda = lambda_[pc.lambda_off];
  const uvec4 p = fp4_pow(fp4_square(lambda), i);
  weights_[pc.weights_off + 2u * i] = p;
  weights_[pc.weights_off + 2u * i + 1u] = rot_[pc.rot_off + i] != 0u ? fp4_mul(p, lambda) : FP4_ZERO;
}
