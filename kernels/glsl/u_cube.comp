#version 460
#extension GL_GOOGLE_include_directive : require
#include "abi/u_cube.glsl"
#include "fp4.glsl"
// UCube (kernels/whir.hpp, protocol.md 11.1): cube = (u_0, u_0^2, ..., u_0^(2^(l_skip-1)), u_1, ..., u_n),
// n = u.count - 1. One invocation.

void main() {
  if (vks_index_x() != 0u || pc.u_len == 0u) return;
  uvec4 x = u_[pc.u_off];
  for (uint j = 0u; j < pc.l_skip; ++j) {
    cube_[pc.cube_off + j] = x;
    x = fp4_square(x);
  }
  for (uint i = 1u; i < pc.u_len; ++i) cube_[pc.cube_off + pc.l_skip + i - 1u] = u_[pc.u_off + i];
}
