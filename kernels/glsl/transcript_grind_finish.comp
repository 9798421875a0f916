#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_shuffle : require
#include "abi/transcript_grind_finish.glsl"
#include "sponge_coop.glsl"
// TranscriptGrindFinish (kernels/transcript.hpp): observe(w), one sample, witness[0] = w for
// w = best[0]; bits == 0: witness 0, t untouched. One workgroup of 16 invocations (sponge_coop.glsl).
// A SpongeState is 18 words of t_; best holds a canonical integer, witness a Montgomery form.

void main() {
  if (gl_WorkGroupSize.x != 16u * P2C_GROUPS || gl_WorkGroupID.x + gl_WorkGroupID.y + gl_WorkGroupID.z != 0u) return;
  if (pc.bits == 0u) {
    if (p2c_lane() == 0u) witness_[pc.witness_off] = 0u;
    return;
  }
  // best >= p (0xFFFFFFFF: the search found nothing, practically impossible): w = 0, an invalid
  // witness that makes the proof fail verification, as the CPU body does.
  const uint b = best_[pc.best_off];
  const uint w = fp_from_canonical(b < FP_P ? b : 0u);
  CoopSponge sp;
  COOP_SPONGE_LOAD(sp, t_, pc.t_off * 18u);
  // observe(w), then check_witness's sample (its value is not needed here): one permutation either
  // way (the block w fills, or the squeeze's), so one call site.
  if (p2c_lane() == sp.absorb_idx) sp.x = w;
  sp.absorb_idx += 1u;
  coop_sponge_permute(sp);
  sp.sample_idx -= 1u;
  COOP_SPONGE_STORE(sp, t_, pc.t_off * 18u);
  if (p2c_lane() == 0u) witness_[pc.witness_off] = w;
}
