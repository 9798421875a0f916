// The protocol's phases in proof order (protocol.md 7 and 13) and what each takes on either side.
// The prover's plan (stages/prover.cpp), the verifier (stages/verifier.cpp) and the test harness
// that proves one phase on the host (tests/support/hybrid_prover.cpp) all run kProofPhases:
//
//   for (Phase phase : kProofPhases) prove_phase(phase, context);   // records the phase's tasks
//   for (Phase phase : kProofPhases) if (VerifyResult v = verify_phase(phase, context); !v) return v;
//
// Before the phases, the prover commits the traces (stages/prover_commit.hpp) and the verifier
// checks the proof's shape; the phases hand each other their challenges through the context.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string_view>
#include <vector>

#include "runtime/graph.hpp"
#include "stages/air/input.hpp"
#include "stages/air/keygen.hpp"
#include "stages/gkr/input.hpp"
#include "stages/ntt.hpp"
#include "stages/pcs/stacked.hpp"
#include "stages/proof.hpp"
#include "stages/proof_layout.hpp"
#include "stages/proof_regions.hpp"
#include "stages/prover_commit.hpp"
#include "stages/reduction/prover.hpp"
#include "stages/transcript.hpp"
#include "stages/whir/prover.hpp"
#include "stages/zerocheck/functionals.hpp"

namespace vkstark {

enum class Phase : uint8_t {
  Preamble,          // protocol.md 7 steps 1-3: the vk, the commitments, heights, public values
  LogupGkr,          // step 4: LogUp's grinding and challenges, the GKR fraction sumcheck, xi
  Constraints,       // step 5: the batch constraint sumcheck (round 0, the MLE rounds, openings)
  StackedReduction,  // step 6: the column openings reduced to one point of every commitment
  Whir,              // step 7: WHIR at that point
};
inline constexpr std::array<Phase, 5> kProofPhases = {Phase::Preamble, Phase::LogupGkr, Phase::Constraints,
                                                      Phase::StackedReduction, Phase::Whir};
[[nodiscard]] std::string_view phase_name(Phase phase);

// Where every part of the proof lies in the proof buffer (proof_regions.hpp), reserved in proof
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
  // The AIRs' kernels: the prover's (compiled once, cached) or a harness's own.
  std::function<const InteractionKernels&(uint32_t air)> interaction_kernels;
  std::function<const AirFunctionalKernels&(uint32_t air)> functional_kernels;
  // Words per observe dispatch of the column openings (0: one dispatch; an executor that bounds
  // a shader's loops needs pieces, BatchConstraintInput::observe_piece_words).
  uint64_t observe_piece_words = 0;

  // Handed from phase to phase.
  View<Fp4> xi{};    // LogupGkr: the constraint sumcheck's point (l_skip + n_global entries)
  View<Fp4> beta{};  // LogupGkr: LogUp's beta
  View<Fp4> r{};     // Constraints: the sumcheck's point, the stacked reduction's input
  std::optional<StackedOpeningReduction> reduction{};  // made where r is complete
  View<Fp4> u_cube{};                                  // StackedReduction: WHIR's point

  uint32_t air(uint32_t T) const { return shape.order[T]; }
  uint32_t log_height(uint32_t T) const;

  // The reference's span open around the phases (prove_phase), until end_phases().
  const char* outer_name = nullptr;
  std::optional<Graph::SpanScope> outer_span{};
  std::optional<Graph::GroupScope> outer_group{};
};

// Records `phase`'s tasks. Phase::StackedReduction starts where nothing reads the traces any more:
// it turns the stacked matrices into the RS messages (finish_messages).
void prove_phase(Phase phase, ProverContext& c);
// Closes the span the last phase left open; before the graph's own enclosing span closes.
void end_phases(ProverContext& c);

}  // namespace vkstark
