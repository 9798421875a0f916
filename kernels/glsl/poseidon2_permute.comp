#version 460
#extension GL_GOOGLE_include_directive : require
#include "runtime.glsl"
#include "poseidon2.glsl"
// Poseidon2Permute (kernels/hashing.hpp): permutes state i = states[16 i .. 16 i + 16) in place, i < grid.x.
layout(set = 0, binding = 0) buffer States { uint st[]; };
VKS_PUSH_BEGIN VKS_VIEW(states) VKS_PUSH_END

void main() {
  uint i = vks_index_x();
  if (i >= pc.grid_x) return;
  uint b = pc.states_off + 16u * i;
  uint s[16] = uint[16](st[b + 0u], st[b + 1u], st[b + 2u], st[b + 3u], st[b + 4u], st[b + 5u], st[b + 6u], st[b + 7u],
                        st[b + 8u], st[b + 9u], st[b + 10u], st[b + 11u], st[b + 12u], st[b + 13u], st[b + 14u],
                        st[b + 15u]);
  poseidon2_permute(s);
  st[b + 0u] = s[0];
  st[b + 1u] = s[1];
  st[b + 2u] = s[2];
  st[b + 3u] = s[3];
  st[b + 4u] = s[4];
  st[b + 5u] = s[5];
  st[b + 6u] = s[6];
  st[b + 7u] = s[7];
  st[b + 8u] = s[8];
  st[b + 9u] = s[9];
  st[b + 10u] = s[10];
  st[b + 11u] = s[11];
  st[b + 12u] = s[12];
  st[b + 13u] = s[13];
  st[b + 14u] = s[14];
  st[b + 15u] = s[15];
}
