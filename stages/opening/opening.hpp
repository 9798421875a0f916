// A standalone PCS proof: commit to one or more sets of traces, then open every stacked column at
// one point with WHIR. This is the commitment + opening half of the prover on its own (tests,
// bench/pcs_bench); the full prover reaches WHIR through the stacked reduction instead.
//
// Transcript order (our own framing around protocol.md 6 and 11): observe_commit each root; u =
// 1 + n_stack samples (sample_ext); the stacked columns' values at u are computed and observed
// (observe_ext, commitment then column order, as protocol.md 7 step 6 does for stacking openings);
// then WHIR (protocol.md 11.2) at u_cube.
#pragma once

#include <vector>

#include "stages/common/verify_result.hpp"
#include "stages/pcs/stacked.hpp"
#include "stages/whir/proof.hpp"
#include "stages/whir/prover.hpp"

namespace vkstark {

struct PcsProof {
  std::vector<Digest> roots;
  std::vector<Fp4> point;     // u_0, u_1 .. u_n_stack
  std::vector<Fp4> openings;  // every stacked column at u, commitment then column order
  WhirProof whir;
  bool operator==(const PcsProof&) const = default;
};

// The graph pieces of a PCS proof; the proof buffer is layout.buffer().
struct PcsProofGraph {
  ProofLayout layout;
  WhirShape shape;
  std::vector<ProofRegion<Digest>> roots;
  ProofRegion<Fp4> point;
  ProofRegion<Fp4> openings;
  WhirRegions whir;
  std::vector<StackedCommitment> commitments;

  PcsProof decode(std::span<const uint32_t> words) const;
};

// Adds commit ("prover.main_trace_commit") and opening ("prover.openings") for `commitments`
// (each a list of traces in sorted order). The Ntt must cover 2^(l_skip + n_stack + log_blowup).
[[nodiscard]] PcsProofGraph build_pcs_proof(Graph& g, Ntt& ntt, const std::vector<std::vector<TraceView>>& commitments,
                                            const SystemParams& params);

// The standalone PCS proof of one matrix of `width` columns of 2^log_height rows (the Input
// "matrix", column-major), in a graph of its own: what pcs_bench runs and what the PCS plan's
// golden counts hold. Its Ntt covers 2^ntt_log_n; run prepare_ntt_twiddles(exec, ntt_log_n) first.
struct PcsMatrixProof {
  Graph graph;
  Buffer<Fp> matrix;
  PcsProofGraph proof;
  uint32_t ntt_log_n = 0;
};
[[nodiscard]] PcsMatrixProof build_pcs_matrix_proof(uint32_t width, uint32_t log_height, const SystemParams& params);

// What a PCS proof is verified against: the commitments the caller holds and the values it expects
// every stacked column to take at the opening point. The point is not the caller's to give: it is
// the transcript's challenge after the roots (order above), which the verifier recomputes.
struct PcsClaim {
  std::vector<Digest> roots;     // one per commitment, in order
  std::vector<uint32_t> widths;  // stacked width of each commitment
  std::vector<Fp4> openings;     // every stacked column at the point, commitment then column order
};

// Verifies on the host that `proof` opens the claim's roots to the claim's values at the point the
// transcript gives: the proof's roots, point and openings must be those, then the WHIR verifier runs
// on the claim. A rejection (never an exception) with a PcsReject or WhirReject code and a reason
// names what failed for anything about the proof; InputError naming the field for params outside
// the supported range (SystemParams::validate) or a claim inconsistent in itself (no root, a width
// per root, a zero width, total width above w_stack, one value per stacked column).
VerifyResult verify_pcs_proof(const PcsClaim& expected, const PcsProof& proof, const SystemParams& params);
// Decodes with the claim's shape (decode_pcs_proof below) and verifies: malformed bytes are a
// rejection with the decoder's code and message. What a fuzzer calls on arbitrary bytes.
VerifyResult verify_pcs_proof_bytes(const PcsClaim& expected, std::span<const uint8_t> bytes,
                                    const SystemParams& params);

// Tests and benches only: checks the proof against the roots and values it carries itself, so any
// valid proof of this shape passes. It binds the proof to nothing a caller holds (use
// verify_pcs_proof for that); InputError as verify_pcs_proof for params and widths.
VerifyResult check_pcs_proof_self_consistency(const PcsProof& proof, const std::vector<uint32_t>& widths,
                                              const SystemParams& params);

// Byte encoding: roots, point, openings (vec-prefixed), then the WhirProof (protocol.md 12.2 rules).
std::vector<uint8_t> encode(const PcsProof& proof);
// Decodes the proof of commitments of these stacked widths under these params: every count must be
// the one they give, checked before anything is allocated. DecodeError naming the field for
// malformed, truncated or non-canonical bytes (bytes accepted are encode() of the result: field
// elements < p, first_merkle_depth 0 with one WHIR round, no trailing bytes); InputError for bad
// params or widths.
PcsProof decode_pcs_proof(std::span<const uint8_t> bytes, const SystemParams& params, std::span<const uint32_t> widths);
// The same without a shape: counts are checked against the bytes left and one another only.
PcsProof decode_pcs_proof(std::span<const uint8_t> bytes);

}  // namespace vkstark
