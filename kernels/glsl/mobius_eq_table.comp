#version 460
#extension GL_GOOGLE_include_directive : require
#include "abi/mobius_eq_table.glsl"
#include "fp4.glsl"
// MobiusEqTable (kernels/whir.hpp, protocol.md 5.6): out[b] = prod_{k < m} (b_k ? u_k : 1 - 2 u_k).
//
// In workgroups of WG = 256 (MobiusEqTable::workgroup_size) the invocations of a workgroup share b's
// bits from the eighth up. Sixteen invocations first make two tables in shared memory: lo[t], the
// product over bits 0..3 for t = b mod 16, and hi[t], the product over bits 4 and up for bits 4..7
// equal to t and the workgroup's own bits above; each entry is then one product lo[b mod 16]
// hi[(b >> 4) mod 16] (it was m products, then nine with the high factor shared; keccakf's WHIR,
// m = 21: docs/decisions.md). Other workgroup sizes run the m products per entry. The field is
// commutative, so any order gives the same values.

// WG and LB = log2(WG), the bits that vary inside a workgroup, come from the kernel's constants
// (kernels/whir.hpp). Two tables of 2^HB cover the LB = 8 bits of a workgroup of 256.
const uint HB = 4u;
shared uvec4 lo_[16];
shared uvec4 hi_[16];

uvec4 factor(uint b, uint k) {
  const uvec4 uk = u_[pc.u_off + k];
  return ((b >> k) & 1u) != 0u ? uk : fp4_sub(fp4_sub(FP4_ONE, uk), uk);
}

void main() {
  const uint b = vks_index_x();
  uvec4 acc = FP4_ONE;
  if (gl_WorkGroupSize.x == WG && pc.m > LB) {  // uniform: every invocation reaches the barrier
    const uint t = gl_LocalInvocationID.x;
    if (t < 16u) {
      uvec4 l = FP4_ONE, h = FP4_ONE;
      for (uint k = 0u; k < HB; ++k) l = fp4_mul(l, factor(t, k));
      const uint bt = (b & ~(WG - 1u)) | (t << HB);  // this workgroup's bits, bits 4..7 = t
      for (uint k = HB; k < pc.m; ++k) h = fp4_mul(h, factor(bt, k));
      lo_[t] = l;
      hi_[t] = h;
    }
    barrier();
    if (b >= pc.grid_x) return;
    acc = fp4_mul(lo_[b & 15u], hi_[(b >> HB) & 15u]);
  } else {
    if (b >= pc.grid_x) return;
    for (uint k = 0u; k < pc.m; ++k) acc = fp4_mul(acc, factor(b, k));
  }
  out_[pc.out_off + b] = acc;
}
