#version 460
#extension GL_GOOGLE_include_directive : require
#include "runtime.glsl"
#include "transcript.glsl"
// TranscriptSampleBits (kernels/transcript.hpp): out[i] = sample_bits(bits) for every element of the view, in order; one invocation.
layout(set = 0, binding = 0) buffer T { uint t[]; };  // SpongeState = 18 uints
layout(set = 0, binding = 1) writeonly buffer Out { uint o[]; };
VKS_PUSH_BEGIN VKS_VIEW(t) VKS_VIEW(out) uint bits; VKS_PUSH_END

void main() {
  if (vks_index_x() != 0u) return;
  Sponge sp;
  SPONGE_LOAD(sp, t, pc.t_off * SPONGE_WORDS);
  for (uint i = 0u; i < pc.out_len; ++i) o[pc.out_off + i] = sponge_sample_bits(sp, pc.bits);
  SPONGE_STORE(sp, t, pc.t_off * SPONGE_WORDS);
}
