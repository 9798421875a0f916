#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "abi/merkle_compress.glsl"
#include "poseidon2.glsl"
// MerkleCompressLayer (kernels/hashing.hpp): out[i] = compress(in[2(i/s)s + i%s], in[(2(i/s)+1)s + i%s]), s = stride.
// A Digest is two uvec4 of in_ and out_.

void main() {
  uint i = vks_index_x();
  if (i >= pc.grid_x) return;
  uint s = pc.stride;
  uint q = i / s;
  uint left = pc.in_off + 2u * q * s + (i - q * s);  // 2 (i/s) s + i%s
  uint right = left + s;
  uvec4 o0, o1;
  p2_compress(in_[2u * left], in_[2u * left + 1u], in_[2u * right], in_[2u * right + 1u], o0, o1);
  uint o_idx = 2u * (pc.out_off + i);
  out_[o_idx] = o0;
  out_[o_idx + 1u] = o1;
}
