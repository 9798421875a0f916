#version 460
#extension GL_GOOGLE_include_directive : require
#include "abi/ntt_transpose.glsl"
// NttTranspose (kernels/ntt.hpp): row-major rows x cols -> column-major, dst[c * rows + r] = src[r * cols + c].

void main() {
  const uint i = vks_index_x();
  if (i >= pc.grid_x) return;
  const uint c = i / pc.rows;
  const uint r = i - c * pc.rows;
  dst_[pc.dst_off + i] = src_[pc.src_off + r * pc.cols + c];
}
