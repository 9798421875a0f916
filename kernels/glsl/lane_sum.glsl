// Sums of one Fp4 per invocation over a workgroup of 16 invocations, returned to all of them (the
// cooperative sums of ScalarProgram). Every invocation adds the 16 values in the same order, so
// the result is uniform. Call from uniform control flow; the including kernel enables
// GL_EXT_control_flow_attributes.
#ifndef VKSTARK_LANE_SUM_GLSL
#define VKSTARK_LANE_SUM_GLSL

#include "fp4.glsl"

shared uvec4 lane_sum_sh[16];

uvec4 lane_sum16(uvec4 v, uint lane) {
  barrier();  // the previous sum's reads are done
  lane_sum_sh[lane] = v;
  barrier();
  uvec4 s = FP4_ZERO;
  [[unroll]] for (uint k = 0u; k < 16u; ++k) s = fp4_add(s, lane_sum_sh[k]);
  return s;
}

#endif
