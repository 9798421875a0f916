// The verifier of LogUp's GKR fractional sumcheck (protocol.md 7 step 4, 8.5), on the host (never
// an executor; it builds in the fuzz build). Rejects malformed or tampered proofs with a GkrReject
// code and a reason naming the layer; never throws on proof content, never reads out of bounds. The prover half is
// stages/gkr/prover.hpp, written as the same per-layer and per-sub-round functions.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/hash/transcript.hpp"
#include "stages/common/params.hpp"
#include "stages/common/verify_result.hpp"
#include "stages/proof/proof.hpp"

namespace vkstark {

// The head of step 4: check_witness(logup.pow_bits, logup_pow_witness), alpha = sample_ext(),
// beta = sample_ext(). InputError for params outside the supported range (the caller's).
VerifyResult gkr_check_pow_and_challenges(DuplexSponge& transcript, const GkrProof& proof, const SystemParams& params,
                                          Fp4& alpha, Fp4& beta);

// What the GKR proof reduces the fractional sum to: the input layer's MLEs at xi,
// p_hat = p-hat(xi), q_hat = q-hat(xi), with xi of n_tot coordinates (coordinate k <-> leaf index bit k).
struct GkrClaim {
  Fp4 p_hat, q_hat;
  std::vector<Fp4> xi;
};

// The verifier of 8.5 for n_tot = l_skip + n_logup >= 1 (the caller handles total_interactions == 0),
// run from the transcript state after alpha and beta. The proof's shape is checked first. On
// acceptance `out` holds the claim; on rejection `out` is unspecified. InputError for n_tot = 0 or
// above kMaxGkrLayers (the caller's mistake, not the proof's).
VerifyResult gkr_verify(DuplexSponge& transcript, const GkrProof& proof, uint32_t n_tot, GkrClaim& out);

}  // namespace vkstark
