#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "abi/transcript_observe.glsl"
#include "sponge_coop.glsl"
// TranscriptObserve (kernels/transcript.hpp): observe(values[i]) for every element of the view, in
// order; one workgroup of 16 invocations, one state lane each (sponge_coop.glsl).

void main() {
  if (gl_WorkGroupSize.x != 16u || gl_WorkGroupID.x + gl_WorkGroupID.y + gl_WorkGroupID.z != 0u) return;
  CoopSponge sp;
  COOP_SPONGE_LOAD(sp, t_, pc.t_off * 18u);
  const uint lane = p2c_lane();
  uint i = 0u;
  while (i < pc.values_len) {
    if (sp.absorb_idx == 0u && pc.values_len - i >= P2_RATE) {  // a whole block: lanes 0..7 at once
      if (lane < P2_RATE) sp.x = values_[pc.values_off + i + lane];
      coop_sponge_permute(sp);
      i += P2_RATE;
    } else {
      coop_sponge_observe(sp, values_[pc.values_off + i]);
      i += 1u;
    }
  }
  COOP_SPONGE_STORE(sp, t_, pc.t_off * 18u);
}
