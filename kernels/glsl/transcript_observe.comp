#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_shuffle : require
#include "abi/transcript_observe.glsl"
#include "sponge_coop.glsl"
// TranscriptObserve (kernels/transcript.hpp): observe(values[i]) for every element of the view, in
// order; one workgroup of 16 invocations, one state lane each (sponge_coop.glsl).

void main() {
  if (gl_WorkGroupSize.x != 16u * P2C_GROUPS || gl_WorkGroupID.x + gl_WorkGroupID.y + gl_WorkGroupID.z != 0u) return;
  CoopSponge sp;
  COOP_SPONGE_LOAD(sp, t_, pc.t_off * 18u);
  COOP_SPONGE_OBSERVE(sp, values_, pc.values_off, pc.values_len);
  COOP_SPONGE_STORE(sp, t_, pc.t_off * 18u);
}
