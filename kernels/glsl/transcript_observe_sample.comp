#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_shuffle : require
#include "abi/transcript_observe_sample.glsl"
#include "sponge_coop.glsl"
// TranscriptObserveSample (kernels/transcript.hpp): observe(values[i]) for every element of the
// view, then out[i] = sample() for every element of out; one workgroup of 16 invocations
// (sponge_coop.glsl): TranscriptObserve and TranscriptSample in one dispatch. One permutation call
// site: each pass of the loop absorbs a block (loaded the pass before, so that the load overlaps the
// permutation) or takes samples, and says whether a permutation follows.

void main() {
  if (gl_WorkGroupSize.x != 16u * P2C_GROUPS || gl_WorkGroupID.x + gl_WorkGroupID.y + gl_WorkGroupID.z != 0u) return;
  CoopSponge sp;
  COOP_SPONGE_LOAD(sp, t_, pc.t_off * 18u);
  const uint lane = p2c_lane(), len = pc.values_len;
  // The block being absorbed: lanes lo .. lo + n take v (the first block fills lanes absorb_idx..).
  uint lo = sp.absorb_idx, n = min(len, P2_RATE - sp.absorb_idx), next = n, v = 0u;
  if (lane >= lo && lane - lo < n) v = values_[pc.values_off + lane - lo];
  bool observing = true;
  uint written = 0u;
  [[dont_unroll]] while (true) {
    bool permute = false;
    if (observing) {
      if (lane >= lo && lane - lo < n) sp.x = v;
      sp.absorb_idx = lo + n;
      permute = sp.absorb_idx == P2_RATE;
      observing = false;
      if (permute) {  // a full block: load the next one (if any) while permuting
        lo = 0u;
        n = min(len - next, P2_RATE);
        if (lane < n) v = values_[pc.values_off + next + lane];
        next += n;
        observing = n != 0u;
      }
    } else {
      if (written == pc.out_len) break;
      permute = coop_sponge_squeeze_permutes(sp);
      if (!permute) {
        uint k;
        const uint m = coop_sponge_take(sp, pc.out_len - written, k);
        if (k < m) out_[pc.out_off + written + k] = sp.x;
        written += m;
      }
    }
    if (permute) coop_sponge_permute(sp);
  }
  COOP_SPONGE_STORE(sp, t_, pc.t_off * 18u);
}
