// The trace commitments of a proof (protocol.md 7 step 1, 10.1 order), shared by the prover
// (stages/prover.hpp) and the test harnesses around it: the common main of all traces committed
// together, then per trace its preprocessed and cached parts one commitment each. A part of at
// least 2^l_skip rows is uploaded straight into its commitment's stacked matrix (the trace's own
// layout there), which holds it until finish_messages(); a shorter one is an Input of its own,
// copied into the stacked matrix. Graph builders; thread-compatible.
#pragma once

#include <optional>
#include <vector>

#include "runtime/graph.hpp"
#include "runtime/plan.hpp"
#include "stages/air/input.hpp"
#include "stages/air/keygen.hpp"
#include "stages/common/ntt.hpp"
#include "stages/pcs/stacked.hpp"
#include "stages/proof/proof.hpp"

namespace vkstark {

struct TraceCommitments {
  std::vector<std::vector<TracePart>> parts;  // per sorted trace, row-view order
  std::vector<Buffer<Fp>> public_values;      // per sorted trace (invalid when none)
  std::vector<StackedCommitment> commits;     // proof order: common main, then per trace preprocessed?, cached...
  std::vector<std::vector<bool>> need_rot;    // per commitment, per matrix
  // commits index of each sorted trace's preprocessed commitment (or -1) and first cached one.
  std::vector<int> preprocessed, first_cached;

  std::vector<const StackedCommitment*> pointers() const;
  std::vector<std::string> names;  // per commitment
  // Per sorted trace, per part (row-view order): the CommittedTrace::id it was declared from, else
  // empty (uploaded and committed by the proof).
  std::vector<std::vector<std::string>> committed;
};

// Adds the Input buffers and the commitments (spans "stacked_commit"). A part committed once (a
// cached part of `airs` given as a CommittedTrace, or the AIR's preprocessed trace where
// `preprocessed[air]` is set) is declared from its Persistent buffers instead: no upload, no
// commitment task. The commitments made keep at most `kept_codeword_bytes` of their codewords, in
// commitment order (StackedCommitOptions::kept_codeword_columns): the rest is made again when opened.
[[nodiscard]] TraceCommitments commit_traces(
    Graph& g, Ntt& ntt, const ProvingKey& pk, const std::vector<std::optional<AirWithTraces>>& airs,
    const ProofShape& shape, const std::vector<std::shared_ptr<const CommittedTrace>>& preprocessed = {},
    uint64_t kept_codeword_bytes = ~uint64_t(0), bool keep_narrow = true);
// Once no phase reads the traces any more: every commitment's stacked matrix becomes its RS message.
void finish_messages(Graph& g, TraceCommitments& c);
// Uploads the traces and public values into a prepared plan of that graph (every run), except the
// parts committed once; InputError when a part is not committed as it was for the graph.
void upload_traces(PreparedPlan& plan, const TraceCommitments& c, const ProvingKey& pk,
                   const std::vector<std::optional<AirWithTraces>>& airs, const ProofShape& shape,
                   const std::vector<std::shared_ptr<const CommittedTrace>>& preprocessed = {});

}  // namespace vkstark
