// The batch constraint sumcheck prover (protocol.md 9.3-9.6) on the device: lambda, round 0 with
// the univariate skip (stages/batch_constraint/round0.hpp, the functionals at coset points), the folds of
// every column to MLE tables at r_0, the MLE rounds j = 1..n_max (the functionals over the folded
// tables, stages/compiler/ext_kernel.hpp) and the column openings. Graph builder; the verifier half
// is stages/batch_constraint/verify.hpp, which it mirrors round by round:
//
//   verifier                       prover (tasks)
//   sample lambda                  batch_constraint.round0.lambda
//   observe sum_p, sum_q; mu       batch_constraint.round0.sums.program
//   observe s_0; r_0               batch_constraint.round0.s0.program
//   round j: observe s_j; r_j      batch_constraint.round<j>.program
//   observe the column openings    batch_constraint.openings.program
//
// A round j is 4 dependent dispatches: the head traces' functional evaluations (every chunk of
// every trace side by side, their sums left in slices), the weighted sums (adding the slices), one
// scalar program (the round's polynomial, its observation, r_j, the next claim and eq scalars),
// the folds.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "runtime/graph.hpp"
#include "stages/air/verifying_key.hpp"
#include "stages/batch_constraint/functionals.hpp"
#include "stages/common/params.hpp"
#include "stages/common/trace_part.hpp"
#include "stages/common/transcript.hpp"
#include "stages/encoding/regions.hpp"
#include "stages/proof/proof.hpp"

namespace vkstark {

// One present trace, sorted trace order.
struct BatchTrace {
  const StarkVerifyingKey* vk = nullptr;
  const AirFunctionalKernels* kernels = nullptr;  // make_air_functional_kernels of the AIR, need_rot of the vk
  std::vector<TracePart> parts;                   // row-view order, width_p columns of 2^log_height rows
  View<Fp> public_values;                         // the AIR's (a zero-count view when it has none)
  uint32_t log_height = 0;
  std::vector<uint64_t> row_start;  // per interaction (vk order): its LogUp slot (LogupLayout::row_start[T])
};

// Where the prover writes the batch constraint proof part.
struct BatchConstraintViews {
  View<Fp4> numerator_term_per_air;    // P
  View<Fp4> denominator_term_per_air;  // P
  View<Fp4> univariate_round_coeffs;   // (d + 1)(N - 1) + 1
  View<Fp4> sumcheck_round_polys;      // n_max (d + 1)
  View<Fp4> column_openings;           // every trace's, proof order
};
template <class Part>
[[nodiscard]] BatchConstraintViews batch_constraint_views(const ProofLayout& layout, const PartRegions<Part>& regions,
                                                          const BatchConstraintProof& fields) {
  return {regions.view(layout, fields.numerator_term_per_air), regions.view(layout, fields.denominator_term_per_air),
          regions.view(layout, fields.univariate_round_coeffs), regions.view(layout, fields.sumcheck_round_polys),
          regions.view(layout, fields.column_openings)};
}

struct BatchConstraintInput {
  std::vector<BatchTrace> traces;  // sorted trace order (heights non-increasing)
  View<Fp4> xi;                    // at least l_skip + max(n_max, n_logup) coordinates
  View<Fp4> beta;                  // LogUp's beta (read when some trace has interactions)
  uint32_t n_logup = 0;
  // The column openings are observed by TranscriptObserve dispatches of at most this many words
  // each (0: one dispatch): kObserveKernelPiece where the executor ends long shader loops
  // (ExecutorLimits::max_shader_loop_iterations).
  uint64_t observe_piece_words = 0;
  // The column openings are observed on the host, inside the submission
  // (DeviceTranscript::observe_on_host), rather than by TranscriptObserve dispatches.
  bool observe_on_host = false;
  // The low-memory mode: a large trace's tables at r_0 (all its columns, and the rotated ones,
  // folded at r_0) are not kept from after round 0 to round 1's fold: round 1 makes them a row tile
  // at a time for its sums, and again for its fold (two more passes over the trace).
  bool remake_tables = false;
  uint64_t remake_min_bytes = 0;  // only for traces whose tables at r_0 take at least this many bytes
};

// Work that runs beside the observation of the column openings, a sequential chain of about one
// permutation per 8 words on one workgroup (keccakf: 2633 permutations, 7 ms on an H100) that
// leaves the rest of a GPU idle. `before(r)` is called once r is complete, before the openings
// are gathered: dispatches that need r (and no barrier after the last round). `beside()` is
// called right after the observation's dispatches: what it records needs no barrier (its inputs
// written before, its outputs in memory that nothing since the last barrier touched), so it runs
// concurrently with the observation; after the host task when the host observes (observe_on_host),
// whose executor runs it while the host works. Neither may touch the transcript or the proof views.
struct BesideOpenings {
  std::function<void(View<Fp4> r)> before;
  std::function<void()> beside;
};

// Adds the phase from the transcript state just before lambda (protocol.md 7 step 5). Returns r =
// (r_0, .., r_n_max), a transient view. InputError for input that does not fit the params or the
// views of the wrong sizes.
[[nodiscard]] View<Fp4> batch_constraint_prove(Graph& g, DeviceTranscript& transcript,
                                               const BatchConstraintViews& proof, const SystemParams& params,
                                               const BatchConstraintInput& in, const BesideOpenings& beside = {});

}  // namespace vkstark
