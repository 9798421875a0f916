// The prover's side of the phases (stages/phases.hpp): the proof context every phase takes, the
// setup of a proof's graph before its phases (ProofSetup), and prove_phase, which records one
// phase's tasks into the proof's graph.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kernels/basic.hpp"
#include "runtime/graph.hpp"
#include "stages/air/input.hpp"
#include "stages/air/keygen.hpp"
#include "stages/air_kernels.hpp"
#include "stages/common/ntt.hpp"
#include "stages/common/transcript.hpp"
#include "stages/encoding/layout.hpp"
#include "stages/encoding/regions.hpp"
#include "stages/gkr/input.hpp"
#include "stages/pcs/stacked.hpp"
#include "stages/phases.hpp"
#include "stages/preamble/commit_traces.hpp"
#include "stages/proof/proof.hpp"
#include "stages/stacked_reduction/prover.hpp"
#include "stages/whir/prover.hpp"

namespace vkstark {

// Where every part of the proof lies in the proof buffer (stages/encoding/regions.hpp), reserved in proof
// order.
struct ProofRegions {
  std::optional<PartRegions<GkrProof>> gkr;
  std::optional<PartRegions<BatchConstraintProof>> batch;
  std::optional<PartRegions<StackingProof>> stacking;
  std::optional<WhirRegions> whir;

  static ProofRegions reserve(ProofLayout& layout, const ProofShape& shape);
  // The four parts out of the proof buffer's words.
  void decode(const std::vector<uint32_t>& words, Proof& proof) const;
};

// What every prover phase takes: the proof's shape (traces in proof order), the traces'
// commitments and parts, where each part of the proof goes, the graph and transcript the phase
// records into, and the values one phase hands the next.
struct ProverContext {
  Graph& g;
  DeviceTranscript& t;
  Ntt& ntt;
  const ProvingKey& pk;
  const std::vector<std::optional<AirWithTraces>>& airs;
  const ProofShape& shape;
  TraceCommitments& commits;
  ProofLayout& layout;
  ProofRegions& regions;
  AirKernels& kernels;  // the AIRs' kernels, made once and kept: the prover's, or the test harness's own
  // Words per observe dispatch of the column openings (0: one dispatch; an executor that bounds
  // a shader's loops needs pieces, BatchConstraintInput::observe_piece_words).
  uint64_t observe_piece_words = 0;
  bool openings_sponge_on_host = false;  // BatchConstraintInput::observe_on_host
  // The low-memory mode: the stacked reduction makes its round-1 tables again rather than keep
  // them (StackedReductionInput::remake_tables), the batch constraint its tables at r_0, LogUp GKR
  // its leaves, where they take at least remake_min_bytes.
  bool low_memory = false;
  uint64_t remake_min_bytes = 0;  // ProverOptions::low_memory_min_bytes

  // Handed from phase to phase.
  View<Fp4> xi{};    // LogupGkr: the constraint sumcheck's point (l_skip + n_global entries)
  View<Fp4> beta{};  // LogupGkr: LogUp's beta
  View<Fp4> r{};     // Constraints: the sumcheck's point, the stacked reduction's input
  std::optional<StackedOpeningReduction> reduction{};  // made where r is complete
  View<Fp4> u_cube{};                                  // StackedReduction: WHIR's point

  uint32_t air(uint32_t T) const { return shape.order[T]; }
  uint32_t log_height(uint32_t T) const;

  // The reference's span open around the phases (prove_phase), until end_phases().
  std::string outer_name{};  // empty: none
  std::optional<Graph::SpanScope> outer_span{};
  std::optional<Graph::GroupScope> outer_group{};
};

// How a proof's graph is set up (ProofSetup): the prover's choices. The test harness takes the
// defaults, but for the transcript.
struct ProofSetupOptions {
  // commit_traces' options: the parts committed once (per AIR of the key), the codeword bytes the
  // commitments keep, and whether commitments too narrow to drop columns keep theirs all the same.
  std::vector<std::shared_ptr<const CommittedTrace>> preprocessed{};
  uint64_t kept_codeword_bytes = ~uint64_t(0);
  bool keep_narrow = true;
  // The transcript starts from an Input, "transcript.in" (a host transcript's state); else from zero.
  bool transcript_in = false;
};

// A proof set up in graph `g` for its phases, in this order: the traces committed (span
// prover.main_trace_commit), the proof buffer with every part's region, the commitments' roots
// downloaded, the transcript, and the context the phases record with (its other members at their
// defaults). StarkProver::plan and the test harness (tests/support/hybrid_prover.cpp) both start
// so. `g`, the key, the traces, the shape and the kernels must outlive it; not movable, as the
// context refers to its members.
struct ProofSetup {
  ProofSetup(Graph& g, const ProvingKey& pk, const std::vector<std::optional<AirWithTraces>>& airs,
             const ProofShape& shape, AirKernels& kernels, const ProofSetupOptions& options = {});
  ProofSetup(const ProofSetup&) = delete;
  ProofSetup& operator=(const ProofSetup&) = delete;

  Ntt ntt;
  TraceCommitments commits;
  ProofLayout layout;
  ProofRegions regions;
  std::vector<Buffer<Digest>> roots;                 // per commitment, an Output
  std::optional<Buffer<SpongeState>> transcript_in;  // ProofSetupOptions::transcript_in
  DeviceTranscript t;
  ProverContext context;
};

// An Output copy of `v` (downloaded after a run).
template <class T>
[[nodiscard]] Buffer<T> download_copy(Graph& g, const std::string& name, View<T> v) {
  Buffer<T> out = g.output<T>(name, v.count);
  g.dispatch<CopyU32>(name, {.src = v.template bitcast<uint32_t>(), .dst = out.all().template bitcast<uint32_t>()});
  return out;
}

// Records `phase`'s tasks. Phase::StackedReduction starts where nothing reads the traces any more:
// it turns the stacked matrices into the RS messages (finish_messages).
void prove_phase(Phase phase, ProverContext& c);
// Closes the span the last phase left open; before the graph's own enclosing span closes.
void end_phases(ProverContext& c);

}  // namespace vkstark
