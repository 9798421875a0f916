#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "abi/sumcheck_product_partials.glsl"
#include "fp4.glsl"
// SumcheckProductPartials (kernels/whir.hpp): workgroup p of 64 invocations writes partials[2p] =
// sum f_y(1) w_y(1) and partials[2p + 1] = sum f_y(2) w_y(2) over y = 64 p + lane + k 64 P < pairs
// (P = partials.count / 2), with f_y(X) = f[2y] + X (f[2y+1] - f[2y]); the 64 lane sums are added
// by a tree in shared memory.

shared uvec4 sh1[LANES];
shared uvec4 sh2[LANES];

void main() {
  if (gl_WorkGroupSize.x != LANES) return;  // the partition of the pairs assumes 64 (kernels/whir.hpp)
  const uint i = vks_index_x(), lane = gl_LocalInvocationID.x;
  const uint parts = pc.partials_len / 2u, stride = LANES * parts;
  uvec4 s1 = FP4_ZERO, s2 = FP4_ZERO;
  // grid.x = 64 P: whole workgroups, so every invocation reaches the barriers below.
  if (i < pc.grid_x) {
    for (uint y = i; y < pc.pairs; y += stride) {
      const uvec4 f0 = f_[pc.f_off + 2u * y], f1 = f_[pc.f_off + 2u * y + 1u];
      const uvec4 w0 = w_[pc.w_off + 2u * y], w1 = w_[pc.w_off + 2u * y + 1u];
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
