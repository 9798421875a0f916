#version 460
#extension GL_GOOGLE_include_directive : require
#include "abi/fold_pairs2_fp4.glsl"
#include "fp4.glsl"
// FoldPairs2Fp4 (kernels/whir.hpp): f_dst[y] = f[2y] + alpha (f[2y+1] - f[2y]), and the same for w.

void main() {
  uint y = vks_index_x();
  if (y >= pc.grid_x) return;
  const uvec4 alpha = alpha_[pc.alpha_off];
  const uvec4 f0 = f_[pc.f_off + 2u * y], f1 = f_[pc.f_off + 2u * y + 1u];
  const uvec4 w0 = w_[pc.w_off + 2u * y], w1 = w_[pc.w_off + 2u * y + 1u];
  f_dst_[pc.f_dst_off + y] = fp4_add(f0, fp4_mul(alpha, fp4_sub(f1, f0)));
  w_dst_[pc.w_dst_off + y] = fp4_add(w0, fp4_mul(alpha, fp4_sub(w1, w0)));
}
