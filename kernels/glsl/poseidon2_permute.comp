#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "abi/poseidon2_permute.glsl"
#include "poseidon2.glsl"
// Poseidon2Permute (kernels/hashing.hpp): permutes state i = states[16 i .. 16 i + 16) in place, i < grid.x.

void main() {
  uint i = vks_index_x();
  if (i >= pc.grid_x) return;
  uint b = pc.states_off + 16u * i;
  uint s[16] = uint[16](states_[b + 0u], states_[b + 1u], states_[b + 2u], states_[b + 3u], states_[b + 4u], states_[b + 5u], states_[b + 6u], states_[b + 7u],
                        states_[b + 8u], states_[b + 9u], states_[b + 10u], states_[b + 11u], states_[b + 12u], states_[b + 13u], states_[b + 14u],
                        states_[b + 15u]);
  poseidon2_permute(s);
  states_[b + 0u] = s[0];
  states_[b + 1u] = s[1];
  states_[b + 2u] = s[2];
  states_[b + 3u] = s[3];
  states_[b + 4u] = s[4];
  states_[b + 5u] = s[5];
  states_[b + 6u] = s[6];
  states_[b + 7u] = s[7];
  states_[b + 8u] = s[8];
  states_[b + 9u] = s[9];
  states_[b + 10u] = s[10];
  states_[b + 11u] = s[11];
  states_[b + 12u] = s[12];
  states_[b + 13u] = s[13];
  states_[b + 14u] = s[14];
  states_[b + 15u] = s[15];
}
