#version 460
#extension GL_GOOGLE_include_directive : require
#include "runtime.glsl"
#include "poseidon2.glsl"
// HashRows (kernels/hashing.hpp): out[r] = hash_slice(row r), row r = matrix[r * row_stride + c * col_stride], c < width.
layout(set = 0, binding = 0) readonly buffer Matrix { uint m[]; };
layout(set = 0, binding = 1) writeonly buffer Out { uvec4 o[]; };  // Digest = 2 x uvec4
VKS_PUSH_BEGIN VKS_VIEW(matrix) VKS_VIEW(out) uint width; uint row_stride; uint col_stride; VKS_PUSH_END

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
    s[0] = m[idx];
    s[1] = m[idx + cs];
    s[2] = m[idx + 2u * cs];
    s[3] = m[idx + 3u * cs];
    s[4] = m[idx + 4u * cs];
    s[5] = m[idx + 5u * cs];
    s[6] = m[idx + 6u * cs];
    s[7] = m[idx + 7u * cs];
    poseidon2_permute(s);
    idx += 8u * cs;
  }
  uint n = pc.width - c0;  // 0..7 values left
  if (n != 0u) {
    uint v[8] = uint[8](0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u);
    v[0] = m[idx];
    if (n > 1u) v[1] = m[idx + cs];
    if (n > 2u) v[2] = m[idx + 2u * cs];
    if (n > 3u) v[3] = m[idx + 3u * cs];
    if (n > 4u) v[4] = m[idx + 4u * cs];
    if (n > 5u) v[5] = m[idx + 5u * cs];
    if (n > 6u) v[6] = m[idx + 6u * cs];
    p2_absorb_block(s, v, n);
  }
  uint o_idx = 2u * (pc.out_off + r);
  o[o_idx] = uvec4(s[0], s[1], s[2], s[3]);
  o[o_idx + 1u] = uvec4(s[4], s[5], s[6], s[7]);
}
