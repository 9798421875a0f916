#version 460
#extension GL_GOOGLE_include_directive : require
#include "abi/mobius_eq_table.glsl"
#include "fp4.glsl"
// MobiusEqTable (kernels/whir.hpp, protocol.md 5.6): out[b] = prod_{k < m} (b_k ? u_k : 1 - 2 u_k).
//
// In workgroups of WG = 256 (MobiusEqTable::workgroup_size) the invocations of a workgroup share b's
// high bits (k >= 8): their factor is made once, by invocation 0, and each invocation multiplies
// its eight low factors into it (9 products an entry instead of m; keccakf's WHIR, m = 21:
// docs/decisions.md). Other workgroup sizes run the m products per entry. The field is
// commutative, so either order gives the same values.

const uint WG = 256u, LB = 8u;  // LB = log2(WG): the bits that vary inside a workgroup
shared uvec4 high_;

uvec4 factor(uint b, uint k) {
  const uvec4 uk = u_[pc.u_off + k];
  return ((b >> k) & 1u) != 0u ? uk : fp4_sub(fp4_sub(FP4_ONE, uk), uk);
}

void main() {
  const uint b = vks_index_x();
  uvec4 acc = FP4_ONE;
  if (gl_WorkGroupSize.x == WG && pc.m > LB) {  // uniform: every invocation reaches the barrier
    if (gl_LocalInvocationID.x == 0u) {
      uvec4 h = FP4_ONE;
      for (uint k = LB; k < pc.m; ++k) h = fp4_mul(h, factor(b, k));
      high_ = h;
    }
    barrier();
    if (b >= pc.grid_x) return;
    for (uint k = 0u; k < LB; ++k) acc = fp4_mul(acc, factor(b, k));
    acc = fp4_mul(acc, high_);
  } else {
    if (b >= pc.grid_x) return;
    for (uint k = 0u; k < pc.m; ++k) acc = fp4_mul(acc, factor(b, k));
  }
  out_[pc.out_off + b] = acc;
}
