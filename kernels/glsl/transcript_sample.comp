#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "runtime.glsl"
#include "sponge_coop.glsl"
// TranscriptSample (kernels/transcript.hpp): out[i] = sample() for every element of the view, in
// order; one workgroup of 16 invocations (sponge_coop.glsl).
layout(set = 0, binding = 0) buffer T { uint t[]; };  // SpongeState = 18 uints
layout(set = 0, binding = 1) writeonly buffer Out { uint o[]; };
VKS_PUSH_BEGIN VKS_VIEW(t) VKS_VIEW(out) VKS_PUSH_END

void main() {
  if (gl_WorkGroupSize.x != 16u || gl_WorkGroupID.x + gl_WorkGroupID.y + gl_WorkGroupID.z != 0u) return;
  CoopSponge sp;
  COOP_SPONGE_LOAD(sp, t, pc.t_off * 18u);
  for (uint i = 0u; i < pc.out_len; ++i) {
    const uint v = coop_sponge_sample(sp);
    if (p2c_lane() == 0u) o[pc.out_off + i] = v;
  }
  COOP_SPONGE_STORE(sp, t, pc.t_off * 18u);
}
