#version 460
#extension GL_GOOGLE_include_directive : require
#include "abi/ntt_twiddles.glsl"
#include "ntt.glsl"
// NttTwiddles (kernels/ntt.hpp): tw[t] = omega_N^t for t < grid_x = N/2, N = 2^log_n.

void main() {
  const uint t = vks_index_x();
  if (t >= pc.grid_x) return;
  tw_[pc.tw_off + t] = fp_pow(ntt_root(pc.log_n, false), t);
}
