#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "abi/hash_rows_absorb.glsl"
#include "poseidon2.glsl"
// HashRowsAbsorb (kernels/hashing.hpp): the rows' sponge states absorb one column tile; the last
// tile writes the digests. Row r's state is state[16 r ..]; the absorb position runs on from the
// previous tile (first_column mod 8).

void main() {
  uint r = vks_index_x();
  if (r >= pc.grid_x) return;
  uint s[16] = uint[16](0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u);
  const uint st = pc.state_off + 16u * r;
  if (pc.first_column != 0u) {
    [[unroll]] for (uint k = 0u; k < 16u; ++k) s[k] = state_[st + k];
  }
  const uint cs = pc.col_stride;
  uint idx = pc.matrix_off + r * pc.row_stride;
  uint pos = pc.first_column & 7u;
  // One (possibly partial) block per iteration: a single call site of the permutation. The block
  // bounds are uniform, so is the branch.
  for (uint c = 0u; c < pc.width;) {
    const uint n = min(8u - pos, pc.width - c);
    [[unroll]] for (uint k = 0u; k < 8u; ++k) if (k >= pos && k < pos + n) s[k] = matrix_[idx + (k - pos) * cs];
    idx += n * cs;
    c += n;
    pos += n;
    if (pos == 8u || (pc.last != 0u && c == pc.width)) {
      poseidon2_permute(s);
      pos = 0u;
    }
  }
  if (pc.last != 0u) {
    const uint o_idx = 2u * (pc.out_off + r);
    out_[o_idx] = uvec4(s[0], s[1], s[2], s[3]);
    out_[o_idx + 1u] = uvec4(s[4], s[5], s[6], s[7]);
  } else {
    [[unroll]] for (uint k = 0u; k < 16u; ++k) state_[st + k] = s[k];
  }
}
