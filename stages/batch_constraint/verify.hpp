// The verifier of the batch constraint sumcheck (protocol.md 9.7), on the host: LogUp's input
// layer (GKR's p-hat, q-hat at xi) and every AIR's constraints, checked at the sumcheck's point
// from the column openings. Written as per-step functions in the transcript order of protocol.md 7
// step 5, beside the prover's (stages/batch_constraint/prover.*) for a line-by-line comparison.
// Never throws on proof content (a rejection's BatchConstraintReject code and reason name the
// failed check); InputError for a statement inconsistent with its verifying key. Thread-compatible;
// pure apart from the transcript.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/hash/transcript.hpp"
#include "stages/air/verifying_key.hpp"
#include "stages/common/verify_result.hpp"
#include "stages/proof/proof.hpp"

namespace vkstark {

// What the verifier knows at the start of step 5 besides the proof part.
struct BatchConstraintStatement {
  const MultiStarkVerifyingKey* vk = nullptr;
  std::vector<uint32_t> order;                   // the AIR of each trace T, sorted trace order
  std::vector<uint32_t> log_heights;             // per trace T
  std::vector<std::vector<Fp>> public_values;    // per trace T
  std::vector<std::vector<uint64_t>> row_start;  // per T, per interaction: LogupLayout::row_start
  uint32_t n_logup = 0;
  Fp4 alpha, beta;
  Fp4 p_hat, q_hat;     // GKR's input-layer claims at xi ((0, alpha) without interactions)
  std::vector<Fp4> xi;  // l_skip + max(n_max, n_logup) coordinates
};

// Verifies `proof` from the transcript state before lambda; on acceptance `r` is (r_0 .. r_n_max).
VerifyResult batch_constraint_verify(DuplexSponge& t, const BatchConstraintProof& proof,
                                     const BatchConstraintStatement& st, std::vector<Fp4>& r);

}  // namespace vkstark
