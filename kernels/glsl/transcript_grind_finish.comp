#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "runtime.glsl"
#include "sponge_coop.glsl"
// TranscriptGrindFinish (kernels/transcript.hpp): observe(w), one sample, witness[0] = w for
// w = best[0]; bits == 0: witness 0, t untouched. One workgroup of 16 invocations (sponge_coop.glsl).
layout(set = 0, binding = 0) buffer T { uint t[]; };  // SpongeState = 18 uints
layout(set = 0, binding = 1) readonly buffer Best { uint best[]; };  // canonical integer
layout(set = 0, binding = 2) writeonly buffer Witness { uint witness[]; };  // Montgomery form
VKS_PUSH_BEGIN VKS_VIEW(t) VKS_VIEW(best) VKS_VIEW(witness) uint bits; VKS_PUSH_END

void main() {
  if (gl_WorkGroupSize.x != 16u || gl_WorkGroupID.x + gl_WorkGroupID.y + gl_WorkGroupID.z != 0u) return;
  if (pc.bits == 0u) {
    if (p2c_lane() == 0u) witness[pc.witness_off] = 0u;
    return;
  }
  // best >= p (0xFFFFFFFF: the search found nothing, practically impossible): w = 0, an invalid
  // witness that makes the proof fail verification, as the CPU body does.
  const uint b = best[pc.best_off];
  const uint w = fp_from_canonical(b < FP_P ? b : 0u);
  CoopSponge sp;
  COOP_SPONGE_LOAD(sp, t, pc.t_off * 18u);
  coop_sponge_observe(sp, w);
  coop_sponge_sample(sp);  // check_witness's sample: its value is not needed here
  COOP_SPONGE_STORE(sp, t, pc.t_off * 18u);
  if (p2c_lane() == 0u) witness[pc.witness_off] = w;
}
