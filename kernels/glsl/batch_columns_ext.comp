#version 460
#extension GL_GOOGLE_include_directive : require
#include "abi/batch_columns_ext.glsl"
#include "fp4.glsl"
// BatchColumnsExt (kernels/whir.hpp): acc[b] += sum_{c < width} mu^(first_power + c) matrix[c * col_stride + b].
// The powers of mu go through shared memory a workgroup's width at a time, each computed by one
// invocation (fp4_pow), so that a column costs an invocation one scaling and one addition, not a
// chain of Fp4 products. Every invocation reaches the barriers.

shared uvec4 powers_[WG];

void main() {
  const uint b = vks_index_x();
  const bool live = b < pc.grid_x;
  const uint lid = gl_LocalInvocationID.x;
  const uint wg = gl_WorkGroupSize.x;  // <= WG
  const uvec4 mu0 = mu_[pc.mu_off];
  uvec4 s = live ? acc_[pc.acc_off + b] : FP4_ZERO;
  uint src = pc.matrix_off + b;  // adjacent invocations read adjacent entries of each column
  for (uint c0 = 0u; c0 < pc.width; c0 += wg) {
    const uint n = min(wg, pc.width - c0);
    if (lid < n) powers_[lid] = fp4_pow(mu0, pc.first_power + c0 + lid);
    barrier();
    if (live) {
      for (uint c = 0u; c < n; ++c) {
        s = fp4_add(s, fp4_scale(powers_[c], matrix_[src]));
        src += pc.col_stride;
      }
    }
    barrier();  // the next columns' powers replace these
  }
  if (live) acc_[pc.acc_off + b] = s;
}
