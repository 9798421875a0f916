#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_shuffle : require
#include "abi/merkle_compress_levels.glsl"
#include "sponge_coop.glsl"
// MerkleCompressLevels (kernels/hashing.hpp): pc.levels layers of a Merkle tree in one dispatch.
// Group g (16 invocations, one state lane each) of workgroup w makes compression c = 8 w + g of the
// first layer; a block of 2^(levels-1) such compressions (2^levels input digests) is reduced to one
// digest inside the workgroup, level by level, its compressions at level j being the block's
// groups below 2^(levels-j). Every group permutes at every level (the exchanges of sponge_coop.glsl
// and the barriers want the whole workgroup); the idle ones store nothing. A Digest is two uvec4
// of in_ and out_: word k of digest d is component k % 4 of element 2 d + k / 4.

// The digests of the last level, by group: two buffers used in turn, so that level j + 2 writes
// one only after the barrier of level j + 1, which follows every read of level j's digests.
shared uint lv[2][8u * P2C_GROUPS];

void main() {
  if (gl_WorkGroupSize.x != 16u * P2C_GROUPS) return;  // the kernel's workgroup_size: 128 on every device
  const uint lane = p2c_lane(), g = p2c_group(), L = pc.levels, m = pc.in_len / 2u;
  const uint c = vks_group_x() * P2C_GROUPS + g;  // this group's compression of the first layer
  const bool live = c < m;
  const uint per = 1u << (L - 1u);  // first-layer compressions of a block
  const uint cl = c & (per - 1u), blk = c >> (L - 1u), base = g - cl;
  const P2cLaneConsts k = p2c_lane_consts();
  uint x = 0u;
  if (live) {
    const uint d = pc.in_off + 2u * c + (lane >> 3u), w = lane & 7u;
    x = in_[2u * d + (w >> 2u)][w & 3u];
  }
  uint at = pc.out_off, count = m;  // the first digest of level j's layer, and its digests
  for (uint j = 1u; j <= L; ++j) {
    p2c_permute(x, k);
    const uint busy = per >> (j - 1u);  // the block's compressions at level j
    if (live && cl < busy && lane < 8u) {
      const uint d = at + blk * busy + cl;
      out_[2u * d + (lane >> 2u)][lane & 3u] = x;
      lv[j & 1u][8u * g + lane] = x;
    }
    barrier();
    at += count;
    count >>= 1u;
    if (live && cl < (busy >> 1u)) x = lv[j & 1u][8u * (base + 2u * cl + (lane >> 3u)) + (lane & 7u)];
  }
}
