// The WHIR verifier of protocol.md 11.3, on the host (never an executor). Rejects malformed,
// truncated-shape or tampered proofs with a WhirReject code and a reason; never reads out of bounds.
#pragma once

#include <vector>

#include "kernels/hash/transcript.hpp"
#include "stages/common/params.hpp"
#include "stages/common/poly.hpp"  // mobius_eq, eq_ext, mle_eval (they were declared here)
#include "stages/common/verify_result.hpp"
#include "stages/whir/proof.hpp"

namespace vkstark {

// What is being opened: the commitments (roots, stacked widths), the point u_cube (m coordinates)
// and the claimed values of every stacked column there, flattened in commitment then column order.
struct WhirStatement {
  std::vector<Digest> roots;
  std::vector<uint32_t> widths;
  std::vector<Fp4> u_cube;
  std::vector<Fp4> openings;
};

// Runs the verifier's transcript from `transcript`'s current state (the prover's state before WHIR).
VerifyResult whir_verify(DuplexSponge& transcript, const WhirProof& proof, const SystemParams& params,
                         const WhirStatement& statement);

// binary_k_fold of protocol.md 11.3: vals[t] = F(x w_k^t) for t < 2^k -> the k-times folded F at x^(2^k).
Fp4 binary_k_fold(std::vector<Fp4> vals, std::span<const Fp4> alphas, Fp x);

}  // namespace vkstark
