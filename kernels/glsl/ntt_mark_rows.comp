#version 460
#extension GL_GOOGLE_include_directive : require
#include "abi/ntt_mark_rows.glsl"
// NttMarkRows (kernels/ntt.hpp): the group of pass (stage, log_radix) that writes row
// idx[q] + t query_stride, for invocation q rows_per_query + t, marked in mask.

void main() {
  const uint i = vks_index_x();
  if (i >= pc.grid_x) return;
  const uint q = i / pc.rows_per_query, t = i - q * pc.rows_per_query;
  const uint x = idx_[pc.idx_off + q] + t * pc.query_stride;
  const uint g = (x & ((1u << pc.stage) - 1u)) | ((x >> (pc.stage + pc.log_radix)) << pc.stage);
  atomicOr(mask_[pc.mask_off + (g >> 5u)], 1u << (g & 31u));
}
