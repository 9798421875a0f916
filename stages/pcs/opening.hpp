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

#include "stages/pcs/stacked.hpp"
#include "stages/verify_result.hpp"
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

// Verifies on the host: replays the transcript and runs the WHIR verifier.
VerifyResult verify_pcs_proof(const PcsProof& proof, const std::vector<uint32_t>& widths, const SystemParams& params);

// Byte encoding: roots, point, openings (vec-prefixed), then the WhirProof (protocol.md 12.2 rules).
std::vector<uint8_t> encode(const PcsProof& proof);
// InputError naming the field for malformed or truncated bytes, or trailing bytes.
PcsProof decode_pcs_proof(std::span<const uint8_t> bytes);

}  // namespace vkstark
