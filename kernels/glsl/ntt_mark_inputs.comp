#version 460
#extension GL_GOOGLE_include_directive : require
#include "abi/ntt_mark_inputs.glsl"
// NttMarkInputs (kernels/ntt.hpp): invocation h, a group of the next pass marked in next_mask,
// marks the groups of pass (stage, log_radix) that write the rows it reads, h + j 2^(log_n -
// next_log_radix) for j < 2^next_log_radix.

void main() {
  const uint h = vks_index_x();
  if (h >= pc.grid_x) return;
  if (((next_mask_[pc.next_mask_off + (h >> 5u)] >> (h & 31u)) & 1u) == 0u) return;
  const uint lower = (1u << pc.stage) - 1u, shift = pc.stage + pc.log_radix;
  const uint groups = 1u << (pc.log_n - pc.next_log_radix);
  for (uint j = 0u; j < (1u << pc.next_log_radix); ++j) {
    const uint x = h + j * groups;
    const uint g = (x & lower) | ((x >> shift) << pc.stage);
    atomicOr(mask_[pc.mask_off + (g >> 5u)], 1u << (g & 31u));
  }
}
