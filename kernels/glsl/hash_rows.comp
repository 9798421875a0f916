#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "abi/hash_rows.glsl"
#include "poseidon2.glsl"
// HashRows (kernels/hashing.hpp): out[r] = hash_slice(row r), row r = matrix[r * row_stride + c * col_stride], c < width.
// A Digest is two uvec4 of out_.

void main() {
  uint r = vks_index_x();
  if (r >= pc.grid_x) return;
  // hash_slice (protocol.md 2.2): zero state; each block of up to 8 values overwrites the first
  // lanes and is permuted; width 0 gives the zero digest.
  uint s[16] = uint[16](0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u);
  const uint cs = pc.col_stride;
  uint idx = pc.matrix_off + r * pc.row_stride;  // element of column c0
  // One block per iteration, the last one short: a single call site of the permutation (each one
  // is a full inlined copy for the driver's compiler). The block size is uniform, so is the branch.
  for (uint c0 = 0u; c0 < pc.width; c0 += 8u) {
    const uint n = min(pc.width - c0, 8u);
    [[unroll]] for (uint k = 0u; k < 8u; ++k)
      if (k < n) s[k] = matrix_[idx + k * cs];
    poseidon2_permute(s);
    idx += 8u * cs;
  }
  uint o_idx = 2u * (pc.out_off + r);
  out_[o_idx] = uvec4(s[0], s[1], s[2], s[3]);
  out_[o_idx + 1u] = uvec4(s[4], s[5], s[6], s[7]);
}
