#version 460
#extension GL_GOOGLE_include_directive : require
#include "abi/fold_pairs_fp4.glsl"
#include "fp4.glsl"
// FoldPairsFp4 (kernels/whir.hpp): dst[y] = src[2y] + alpha (src[2y+1] - src[2y]).

void main() {
  uint y = vks_index_x();
  if (y >= pc.grid_x) return;
  uvec4 a = src_[pc.src_off + 2u * y], b = src_[pc.src_off + 2u * y + 1u];
  dst_[pc.dst_off + y] = fp4_add(a, fp4_mul(alpha_[pc.alpha_off], fp4_sub(b, a)));
}
