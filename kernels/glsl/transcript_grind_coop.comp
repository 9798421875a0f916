#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_shuffle : require
#include "abi/transcript_grind_coop.glsl"
#include "sponge_coop.glsl"
// TranscriptGrindCoop (kernels/transcript.hpp): the smallest witness w with check_witness(bits, w),
// then observe(w), one sample, witness[0] = w; bits == 0: witness 0, t untouched. One workgroup of
// G = P2C_GROUPS (16: the kernel's workgroup_size / 16) groups of 16 invocations, or half as many
// on a device with less (sponge_coop.glsl; P2C_GROUPS sizes the exchange buffers for the most).
// Round k: group g tests w = k G + g. Whatever absorb_idx is, observe(w) + sample() is one
// permutation of the state with lane absorb_idx overwritten by w, the sample being lane 7
// (DuplexSponge::grind). The first round with a valid candidate holds the smallest; every
// invocation reads it after a barrier, so all leave the loop together.
// A SpongeState is 18 words of t_; witness is a Montgomery form.

shared uint found_s;

void main() {
  const uint G = gl_WorkGroupSize.x / 16u;
  if ((G != P2C_GROUPS && G != P2C_GROUPS / 2u) || gl_WorkGroupID.x + gl_WorkGroupID.y + gl_WorkGroupID.z != 0u)
    return;
  if (pc.bits == 0u) {
    if (gl_LocalInvocationID.x == 0u) witness_[pc.witness_off] = 0u;
    return;
  }
  const uint lane = p2c_lane(), g = p2c_group(), mask = (1u << pc.bits) - 1u;
  CoopSponge sp;
  COOP_SPONGE_LOAD(sp, t_, pc.t_off * 18u);
  const uint at = sp.absorb_idx;
  if (gl_LocalInvocationID.x == 0u) found_s = 0xFFFFFFFFu;
  barrier();
  uint w = 0xFFFFFFFFu;
  for (uint w0 = 0u; w0 < FP_P; w0 += G) {
    const uint cand = w0 + g;
    uint x = lane == at ? fp_from_canonical(cand) : sp.x;
    p2c_permute(x, sp.consts);
    const uint s7 = p2c_lane_value(x, P2_RATE - 1u);
    if (lane == 0u && cand < FP_P && (fp_to_canonical(s7) & mask) == 0u) atomicMin(found_s, cand);
    barrier();
    w = found_s;
    barrier();  // every invocation has read found_s before a later round may lower it
    if (w != 0xFFFFFFFFu) break;
  }
  // None found (practically impossible): w = 0, an invalid witness that makes the proof fail
  // verification, as TranscriptGrindFinish does.
  const uint wm = fp_from_canonical(w < FP_P ? w : 0u);
  if (lane == sp.absorb_idx) sp.x = wm;
  sp.absorb_idx += 1u;
  coop_sponge_permute(sp);
  sp.sample_idx -= 1u;
  if (g == 0u) COOP_SPONGE_STORE(sp, t_, pc.t_off * 18u);
  if (gl_LocalInvocationID.x == 0u) witness_[pc.witness_off] = wm;
}
