#version 460
#extension GL_GOOGLE_include_directive : require
#include "abi/eq_suffix_tables.glsl"
#include "fp4.glsl"
// EqSuffixTables (kernels/gkr.hpp): out[2^r - 1 + y] = prod_{k < r} (y_k ? u[n - r + k] : 1 - u[n - r + k]).

void main() {
  const uint i = vks_index_x();
  if (i >= pc.grid_x) return;
  const uint r = uint(findMSB(i + 1u));  // i + 1 in [2^r, 2^(r+1))
  const uint y = i + 1u - (1u << r);
  uvec4 acc = FP4_ONE;
  for (uint k = 0u; k < r; ++k) {
    const uvec4 uk = u_[pc.u_off + pc.n - r + k];
    acc = fp4_mul(acc, ((y >> k) & 1u) != 0u ? uk : fp4_sub(FP4_ONE, uk));
  }
  out_[pc.out_off + i] = acc;
}
