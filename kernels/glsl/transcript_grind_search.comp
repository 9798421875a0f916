#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "abi/transcript_grind_search.glsl"
#include "transcript.glsl"
// TranscriptGrindSearch (kernels/transcript.hpp): best[0] = min(best[0], smallest w in [0, p) with check_witness(bits, w)).
// A SpongeState is 18 words of t_; best holds a canonical integer, 0xFFFFFFFF while none is found.

// Invocation j tests w = j, j + L, j + 2L, ... (L = grid.x) in increasing order. Whatever absorb_idx
// is, observe(w) + sample() is one permutation of the state with lane absorb_idx overwritten by w,
// the sample being lane 7 (DuplexSponge::grind). Best only decreases and always holds a valid
// witness, so an invocation may stop at its first hit or once its candidate exceeds best: every
// candidate below the final minimum is still tested, and the result is the smallest valid witness
// whatever the grid.
// (On an H100 this runs at about 2.65 G candidates/s against 2.97 G/s for poseidon2_permute; reading
// best once per subgroup instead, with subgroupElect/subgroupBroadcastFirst, measured slower.)
void main() {
  if (pc.bits == 0u) return;
  uint j = vks_index_x();
  if (j >= pc.grid_x) return;
  const uint step = pc.grid_x;
  const uint mask = pc.bits >= 32u ? 0xFFFFFFFFu : (1u << pc.bits) - 1u;
  const uint best_idx = pc.best_off;
  Sponge sp;
  SPONGE_LOAD(sp, t_, pc.t_off * SPONGE_WORDS);
  const uint lane = sp.absorb_idx;
  for (uint w = j; w < FP_P;) {
    if (w > atomicAdd(best_[best_idx], 0u)) break;  // atomic read of the current best
    uint s[16] = sp.s;
    p2_set_rate_lane(s, lane, fp_from_canonical(w));
    poseidon2_permute(s);
    if ((fp_to_canonical(s[7]) & mask) == 0u) {
      atomicMin(best_[best_idx], w);
      break;
    }
    if (step >= FP_P - w) break;  // w + step >= p (and no 32-bit wrap)
    w += step;
  }
}
