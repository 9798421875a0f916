#version 460
#extension GL_GOOGLE_include_directive : require
#include "runtime.glsl"
#include "poseidon2.glsl"
// MerkleCompressLayer (kernels/hashing.hpp): out[i] = compress(in[2(i/s)s + i%s], in[(2(i/s)+1)s + i%s]), s = stride.
layout(set = 0, binding = 0) readonly buffer In { uvec4 src[]; };  // Digest = 2 x uvec4
layout(set = 0, binding = 1) writeonly buffer Out { uvec4 o[]; };
VKS_PUSH_BEGIN VKS_VIEW(in) VKS_VIEW(out) uint stride; VKS_PUSH_END

void main() {
  uint i = vks_index_x();
  if (i >= pc.grid_x) return;
  uint s = pc.stride;
  uint q = i / s;
  uint left = pc.in_off + 2u * q * s + (i - q * s);  // 2 (i/s) s + i%s
  uint right = left + s;
  uvec4 o0, o1;
  p2_compress(src[2u * left], src[2u * left + 1u], src[2u * right], src[2u * right + 1u], o0, o1);
  uint o_idx = 2u * (pc.out_off + i);
  o[o_idx] = o0;
  o[o_idx + 1u] = o1;
}
