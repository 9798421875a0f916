// Shared code of the GKR sumcheck partials kernels (kernels/gkr.hpp): the terms of one pair and the
// sum over a workgroup of GKR_LANES invocations. Include after the kernel's abi/<kernel>.glsl,
// which declares GKR_LANES (kGkrLanes: the kernel's constants, kernels/gkr.hpp).
#ifndef VKSTARK_GKR_SUMCHECK_GLSL
#define VKSTARK_GKR_SUMCHECK_GLSL

#include "fp4.glsl"

shared uvec4 gkr_sum1[GKR_LANES];
shared uvec4 gkr_sum2[GKR_LANES];
shared uvec4 gkr_sum3[GKR_LANES];

// s_x += w F(A(x), B(x), C(x), E(x)) for x = 1, 2, 3, where T(x) = T(0) + x (T(1) - T(0)) and
// F = E (A + lambda B) + C B = A E + C B + lambda B E.
void gkr_add_round_terms(uvec4 a0, uvec4 c0, uvec4 a1, uvec4 c1, uvec4 b0, uvec4 e0, uvec4 b1, uvec4 e1, uvec4 w,
                         uvec4 lambda, inout uvec4 s1, inout uvec4 s2, inout uvec4 s3) {
  const uvec4 da = fp4_sub(a1, a0), dc = fp4_sub(c1, c0), db = fp4_sub(b1, b0), de = fp4_sub(e1, e0);
  uvec4 a = a1, c = c1, b = b1, e = e1;
  s1 = fp4_add(s1, fp4_mul(w, fp4_add(fp4_mul(e, fp4_add(a, fp4_mul(lambda, b))), fp4_mul(c, b))));
  a = fp4_add(a, da);
  c = fp4_add(c, dc);
  b = fp4_add(b, db);
  e = fp4_add(e, de);
  s2 = fp4_add(s2, fp4_mul(w, fp4_add(fp4_mul(e, fp4_add(a, fp4_mul(lambda, b))), fp4_mul(c, b))));
  a = fp4_add(a, da);
  c = fp4_add(c, dc);
  b = fp4_add(b, db);
  e = fp4_add(e, de);
  s3 = fp4_add(s3, fp4_mul(w, fp4_add(fp4_mul(e, fp4_add(a, fp4_mul(lambda, b))), fp4_mul(c, b))));
}

// The sums of the workgroup's lanes, by a tree in shared memory: left in gkr_sum1[0], gkr_sum2[0],
// gkr_sum3[0]. Every invocation of the workgroup must call it (it has barriers).
void gkr_reduce_lanes(uint lane, uvec4 s1, uvec4 s2, uvec4 s3) {
  gkr_sum1[lane] = s1;
  gkr_sum2[lane] = s2;
  gkr_sum3[lane] = s3;
  barrier();
  [[unroll]] for (uint h = GKR_LANES / 2u; h > 0u; h >>= 1u) {
    if (lane < h) {
      gkr_sum1[lane] = fp4_add(gkr_sum1[lane], gkr_sum1[lane + h]);
      gkr_sum2[lane] = fp4_add(gkr_sum2[lane], gkr_sum2[lane + h]);
      gkr_sum3[lane] = fp4_add(gkr_sum3[lane], gkr_sum3[lane + h]);
    }
    barrier();
  }
}

#endif
