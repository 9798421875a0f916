#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_shuffle : require
#include "abi/transcript_sample_bits.glsl"
#include "sponge_coop.glsl"
// TranscriptSampleBits (kernels/transcript.hpp): out[i] = sample_bits(bits) for every element of
// the view, in order; one workgroup of 16 invocations (sponge_coop.glsl). Each lane writes its own
// samples.

void main() {
  if (gl_WorkGroupSize.x != 16u * P2C_GROUPS || gl_WorkGroupID.x + gl_WorkGroupID.y + gl_WorkGroupID.z != 0u) return;
  CoopSponge sp;
  COOP_SPONGE_LOAD(sp, t_, pc.t_off * 18u);
  for (uint i = 0u; i < pc.out_len;) {
    uint k;
    const uint m = coop_sponge_squeeze(sp, pc.out_len - i, k);
    if (k < m) out_[pc.out_off + i + k] = coop_sample_bits(sp.x, pc.bits);
    i += m;
  }
  COOP_SPONGE_STORE(sp, t_, pc.t_off * 18u);
}
