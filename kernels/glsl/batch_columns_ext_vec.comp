#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "abi/batch_columns_ext_vec.glsl"
#include "fp4.glsl"
// BatchColumnsExtVec (kernels/whir.hpp): BatchColumnsExt over Fp columns bound as uvec4 entries
// (four consecutive rows). Invocation b owns rows 4b .. 4b + 3 (acc entries 4b + k), reads each
// column's four rows with one 16-byte load, four columns' loads before their arithmetic. The powers
// of mu go through shared memory as in BatchColumnsExt. Every invocation reaches the barriers.

shared uvec4 powers_[WG];

uvec4 s_[4];

void take(uvec4 p, uvec4 m) {
  s_[0] = fp4_add(s_[0], fp4_scale(p, m.x));
  s_[1] = fp4_add(s_[1], fp4_scale(p, m.y));
  s_[2] = fp4_add(s_[2], fp4_scale(p, m.z));
  s_[3] = fp4_add(s_[3], fp4_scale(p, m.w));
}

void main() {
  const uint b = vks_index_x();
  const bool live = b < pc.grid_x;
  const uint lid = gl_LocalInvocationID.x;
  const uint wg = gl_WorkGroupSize.x;  // <= WG
  const uvec4 mu0 = mu_[pc.mu_off];
  const uint at = pc.acc_off + 4u * b;
  [[unroll]] for (uint k = 0u; k < 4u; ++k) s_[k] = live ? acc_[at + k] : FP4_ZERO;
  const uint cs = pc.col_stride;
  uint src = pc.matrix_off + b;  // adjacent invocations read adjacent 16 bytes of each column
  for (uint c0 = 0u; c0 < pc.width; c0 += wg) {
    const uint n = min(wg, pc.width - c0);
    if (lid < n) powers_[lid] = fp4_pow(mu0, pc.first_power + c0 + lid);
    barrier();
    if (live) {
      uint c = 0u;
      for (; c + 4u <= n; c += 4u) {
        const uvec4 m0 = matrix_[src], m1 = matrix_[src + cs], m2 = matrix_[src + 2u * cs],
                    m3 = matrix_[src + 3u * cs];
        src += 4u * cs;
        take(powers_[c], m0);
        take(powers_[c + 1u], m1);
        take(powers_[c + 2u], m2);
        take(powers_[c + 3u], m3);
      }
      for (; c < n; ++c) {
        take(powers_[c], matrix_[src]);
        src += cs;
      }
    }
    barrier();  // the next columns' powers replace these
  }
  if (live) {
    [[unroll]] for (uint k = 0u; k < 4u; ++k) acc_[at + k] = s_[k];
  }
}
