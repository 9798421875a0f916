// The stacked opening reduction of protocol.md 10.4, verifier half, on the host (never an
// executor; no graph code, so the fuzz build compiles it). Mirrors stages/stacked_reduction/prover.hpp
// round by round. Rejects a malformed or tampered StackingProof with a StackedReductionReject code and a
// reason; never reads out of bounds.
#pragma once

#include <vector>

#include "kernels/hash/transcript.hpp"
#include "stages/common/params.hpp"
#include "stages/common/verify_result.hpp"
#include "stages/pcs/layout.hpp"
#include "stages/proof/proof.hpp"

namespace vkstark {

// What the reduction reduces: the column claims of every slice of every commitment.
struct StackedClaims {
  std::vector<StackedLayout> layouts;       // per commitment, proof order (protocol.md 10.1)
  std::vector<std::vector<bool>> need_rot;  // per commitment, per matrix of its layout
  std::vector<Fp4> r;                       // r_0 .. r_n_max, at least 1 + every slice's lifted n
  // Per slice in claim order (commitment, then layout order): open_i, rot_open_i (0 when the slice's
  // matrix has no need_rot).
  std::vector<Fp4> claims;
};

// Runs the verifier's transcript from `transcript`'s current state (the prover's state before
// lambda') through the observation of the stacking openings. On acceptance u_out = (u_0, ..,
// u_n_stack), the point at which WHIR must open the stacking openings. A rejection names what
// failed. InputError (not a rejection) for claims inconsistent in themselves or with the params:
// layouts of another l_skip / n_stack, need_rot or claims of the wrong sizes, a nonzero rotated
// claim without need_rot, too short an r.
VerifyResult stacked_reduction_verify(DuplexSponge& transcript, const StackingProof& proof, const SystemParams& params,
                                      const StackedClaims& claims, std::vector<Fp4>& u_out);

}  // namespace vkstark
