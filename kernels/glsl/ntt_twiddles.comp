#version 460
#extension GL_GOOGLE_include_directive : require
#include "runtime.glsl"
#include "ntt.glsl"
// NttTwiddles (kernels/ntt.hpp): tw[t] = omega_N^t for t < grid_x = N/2, N = 2^log_n.
layout(set = 0, binding = 0) writeonly buffer Tw { uint tw_[]; };
VKS_PUSH_BEGIN VKS_VIEW(tw) uint log_n; VKS_PUSH_END

void main() {
  const uint t = vks_index_x();
  if (t >= pc.grid_x) return;
  tw_[pc.tw_off + t] = fp_pow(ntt_root(pc.log_n, false), t);
}
