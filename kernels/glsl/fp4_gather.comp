#version 460
#extension GL_GOOGLE_include_directive : require
#include "abi/fp4_gather.glsl"
#include "fp4.glsl"
// Fp4Gather (kernels/elementwise.hpp): out[i] = idx[i] == 0xFFFFFFFF ? 0 : in[idx[i]]. The index is
// bounds-checked on the host (Fp4Gather::check cannot see the values; out-of-range reads give 0).

void main() {
  const uint i = vks_index_x();
  if (i >= pc.grid_x) return;
  const uint j = idx_[pc.idx_off + i];
  out_[pc.out_off + i] = j < pc.in_len ? in_[pc.in_off + j] : FP4_ZERO;
}
