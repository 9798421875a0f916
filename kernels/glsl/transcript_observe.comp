#version 460
#extension GL_GOOGLE_include_directive : require
#include "runtime.glsl"
#include "transcript.glsl"
// TranscriptObserve (kernels/transcript.hpp): observe(values[i]) for every element of the view, in order; one invocation.
layout(set = 0, binding = 0) buffer T { uint t[]; };  // SpongeState = 18 uints
layout(set = 0, binding = 1) readonly buffer Values { uint values[]; };
VKS_PUSH_BEGIN VKS_VIEW(t) VKS_VIEW(values) VKS_PUSH_END

void main() {
  if (vks_index_x() != 0u) return;
  Sponge sp;
  SPONGE_LOAD(sp, t, pc.t_off * SPONGE_WORDS);
  for (uint i = 0u; i < pc.values_len; ++i) sponge_observe(sp, values[pc.values_off + i]);
  SPONGE_STORE(sp, t, pc.t_off * SPONGE_WORDS);
}
