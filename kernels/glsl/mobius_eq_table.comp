#version 460
#extension GL_GOOGLE_include_directive : require
#include "abi/mobius_eq_table.glsl"
#include "fp4.glsl"
// MobiusEqTable (kernels/whir.hpp, protocol.md 5.6): out[b] = prod_{k < m} (b_k ? u_k : 1 - 2 u_k).

void main() {
  uint b = vks_index_x();
  if (b >= pc.grid_x) return;
  uvec4 acc = FP4_ONE;
  for (uint k = 0u; k < pc.m; ++k) {
    uvec4 uk = u_[pc.u_off + k];
    acc = fp4_mul(acc, ((b >> k) & 1u) != 0u ? uk : fp4_sub(fp4_sub(FP4_ONE, uk), uk));
  }
  out_[pc.out_off + b] = acc;
}
