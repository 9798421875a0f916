#version 460
#extension GL_GOOGLE_include_directive : require
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
  uint c0 = 0u;
  for (; pc.width - c0 >= 8u; c0 += 8u) {
    s[0] = matrix_[idx];
    s[1] = matrix_[idx + cs];
    s[2] = matrix_[idx + 2u * cs];
    s[3] = matrix_[idx + 3u * cs];
    s[4] = matrix_[idx + 4u * cs];
    s[5] = matrix_[idx + 5u * cs];
    s[6] = matrix_[idx + 6u * cs];
    s[7] = matrix_[idx + 7u * cs];
    poseidon2_permute(s);
    idx += 8u * cs;
  }
  uint n = pc.width - c0;  // 0..7 values left
  if (n != 0u) {
    uint v[8] = uint[8](0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u);
    v[0] = matrix_[idx];
    if (n > 1u) v[1] = matrix_[idx + cs];
    if (n > 2u) v[2] = matrix_[idx + 2u * cs];
    if (n > 3u) v[3] = matrix_[idx + 3u * cs];
    if (n > 4u) v[4] = matrix_[idx + 4u * cs];
    if (n > 5u) v[5] = matrix_[idx + 5u * cs];
    if (n > 6u) v[6] = matrix_[idx + 6u * cs];
    p2_absorb_block(s, v, n);
  }
  uint o_idx = 2u * (pc.out_off + r);
  out_[o_idx] = uvec4(s[0], s[1], s[2], s[3]);
  out_[o_idx + 1u] = uvec4(s[4], s[5], s[6], s[7]);
}
