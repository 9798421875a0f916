#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "abi/stacked_fold_partials.glsl"
#include "fp4.glsl"
// StackedFoldPartials (kernels/stacked_reduction.hpp): SumcheckProductPartials over the tables
// folded at alpha, folding the pairs it reads: pair y of the folded tables comes from f[4y .. 4y+3]
// (likewise w), and is written to f_dst[2y], f_dst[2y+1] (likewise w_dst).

shared uvec4 sh1[LANES];
shared uvec4 sh2[LANES];

uvec4 fold(uvec4 a, uvec4 b, uvec4 alpha) { return fp4_add(a, fp4_mul(alpha, fp4_sub(b, a))); }

void main() {
  if (gl_WorkGroupSize.x != LANES) return;  // the partition of the pairs assumes 64 (kernels/whir.hpp)
  const uint i = vks_index_x(), lane = gl_LocalInvocationID.x;
  const uint parts = pc.partials_len / 2u, stride = LANES * parts;
  uvec4 s1 = FP4_ZERO, s2 = FP4_ZERO;
  // grid.x = 64 P: whole workgroups, so every invocation reaches the barriers below.
  if (i < pc.grid_x) {
    const uvec4 alpha = alpha_[pc.alpha_off];
    for (uint y = i; y < pc.pairs; y += stride) {
      const uint src_f = pc.f_off + 4u * y, src_w = pc.w_off + 4u * y;
      const uvec4 f0 = fold(f_[src_f], f_[src_f + 1u], alpha), f1 = fold(f_[src_f + 2u], f_[src_f + 3u], alpha);
      const uvec4 w0 = fold(w_[src_w], w_[src_w + 1u], alpha), w1 = fold(w_[src_w + 2u], w_[src_w + 3u], alpha);
      f_dst_[pc.f_dst_off + 2u * y] = f0;
      f_dst_[pc.f_dst_off + 2u * y + 1u] = f1;
      w_dst_[pc.w_dst_off + 2u * y] = w0;
      w_dst_[pc.w_dst_off + 2u * y + 1u] = w1;
      s1 = fp4_add(s1, fp4_mul(f1, w1));
      s2 = fp4_add(s2, fp4_mul(fp4_sub(fp4_add(f1, f1), f0), fp4_sub(fp4_add(w1, w1), w0)));
    }
  }
  sh1[lane] = s1;
  sh2[lane] = s2;
  barrier();
  [[unroll]] for (uint h = LANES / 2u; h > 0u; h >>= 1u) {
    if (lane < h) {
      sh1[lane] = fp4_add(sh1[lane], sh1[lane + h]);
      sh2[lane] = fp4_add(sh2[lane], sh2[lane + h]);
    }
    barrier();
  }
  if (lane == 0u && i < pc.grid_x) {
    const uint p = i / LANES;
    partials_[pc.partials_off + 2u * p] = sh1[0];
    partials_[pc.partials_off + 2u * p + 1u] = sh2[0];
  }
}
