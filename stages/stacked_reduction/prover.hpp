// The stacked opening reduction of protocol.md 10, prover half, as device dispatches: every
// challenge comes from the device transcript, every proof value is written in place into the
// proof views. Graph builder; nothing runs until the plan does. The verifier half, with the same
// per-round structure, is stages/stacked_reduction/verify.hpp. Thread-compatible; the Graph, the
// transcript and the commitments must outlive the call.
//
// Transcript (protocol.md 7 step 6): lambda' = sample_ext; observe the 2N - 1 coefficients of s'_0;
// u_0 = sample_ext; per round j = 1..n_stack observe s'_j(1), s'_j(2) and u_j = sample_ext; then
// observe every stacking opening (commitment order, column order).
//
// How it computes (docs/decisions.md, "Stacked opening reduction"): round 0 from every slice's sums
// weighted by E and D (over its stacked trace, or its RS message), grouped by trace height; after u_0 every stacked
// column becomes a table over H_n_stack (its PLE folded at u_0) beside a table of its batched kernel K_c(u_0, .), and
// rounds 1..n_stack are the sumcheck of their product over all columns at once. A round is two dependent dispatches:
// the partial sums of s'_j(1), s'_j(2) with the fold at u_(j-1) in the same dispatch, and one scalar program (sum,
// store into the proof, observe, sample u_j).
#pragma once

#include <memory>
#include <vector>

#include "stages/common/params.hpp"
#include "stages/common/transcript.hpp"
#include "stages/encoding/regions.hpp"
#include "stages/pcs/stacked.hpp"
#include "stages/proof/proof.hpp"

namespace vkstark {

struct StackedReductionInput {
  std::vector<const StackedCommitment*> commitments;  // proof order (protocol.md 10.1)
  std::vector<std::vector<bool>> need_rot;            // per commitment, per matrix of its layout
  // r_0 .. r_n_max, the batch sumcheck's point: at least 1 + the largest lifted n = max(h - l_skip, 0)
  // of any slice.
  View<Fp4> r;
  // The round-1 tables (every column folded at u_0, and its kernel) made again, a tile at a time,
  // for rounds 1 and 2 instead of kept: a quarter of their bytes at the peak for a second pass over
  // the stacked message (the low-memory mode).
  bool remake_tables = false;
};

// Where the proof part StackingProof (stages/proof/proof.hpp) lives in the proof buffer.
struct StackingProofViews {
  View<Fp4> univariate_round_coeffs;  // 2 * 2^l_skip - 1 coefficients of s'_0, low first
  View<Fp4> sumcheck_round_polys;     // n_stack rounds of s'_j(1), s'_j(2)
  View<Fp4> stacking_openings;        // every stacked column at u, commitment then column order
};

// The stacking part on its own in a proof buffer (tests, benches): its regions, reserved from its
// field list (stages/proof/proof.hpp stacking_fields) before the layout's create_buffer.
using StackingRegions = PartRegions<StackingProof>;
[[nodiscard]] StackingRegions reserve_stacking_regions(ProofLayout& layout, const StackingShape& shape);

// The views of the stacking fields `fields` (regions.proto() of a StackingRegions,
// regions.proto().stacking_proof of a whole proof's), after create_buffer.
template <class Part>
[[nodiscard]] StackingProofViews stacking_proof_views(const ProofLayout& layout, const PartRegions<Part>& regions,
                                                      const StackingProof& fields) {
  return {regions.view(layout, fields.univariate_round_coeffs), regions.view(layout, fields.sumcheck_round_polys),
          regions.view(layout, fields.stacking_openings)};
}

class StackedReductionProver;

// The reduction in steps, so that round 0's sums that need r only can be recorded beside other work
// (stages/prover.cpp records them beside the column openings' observation, a sequential chain that
// leaves the GPU idle): the E tables, then every slice's sums over its stacked trace (read while
// the commitment still holds its traces, before finish_message; over the RS message after it).
// prove() records whatever of those is not recorded yet, then the rest. The commitments and the
// graph must outlive the object; every step records into `g` in program order.
class StackedOpeningReduction {
 public:
  // Checks the input (InputError as stacked_reduction_prove); records nothing.
  StackedOpeningReduction(Graph& g, const SystemParams& params, StackedReductionInput in);
  ~StackedOpeningReduction();
  StackedOpeningReduction(const StackedOpeningReduction&) = delete;
  StackedOpeningReduction& operator=(const StackedOpeningReduction&) = delete;
  void record_eq_tables();   // r must be written by earlier dispatches
  void record_slice_sums();  // after the E tables (records them first if needed)
  // The rest, from the transcript state before lambda'. GraphError when a commitment still holds its
  // traces, or when called twice.
  [[nodiscard]] View<Fp4> prove(DeviceTranscript& transcript, const StackingProofViews& proof);

 private:
  std::unique_ptr<StackedReductionProver> impl_;
};

// Adds the reduction under a span "stacked_reduction" (tasks "stacked_reduction.round0...",
// "stacked_reduction.round3.program", ...). Returns u = (u_0, .., u_n_stack), a transient view:
// the point every stacked column is opened at (WHIR takes it as UCube(u)). InputError when the
// input does not match the params (layouts of another l_skip or n_stack, need_rot or proof views
// of the wrong sizes, too short an r).
[[nodiscard]] View<Fp4> stacked_reduction_prove(Graph& g, DeviceTranscript& transcript, const StackingProofViews& proof,
                                                const SystemParams& params, const StackedReductionInput& in);

}  // namespace vkstark
