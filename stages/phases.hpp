// The protocol's phases in proof order (protocol.md 7 and 13). The prover's plan
// (stages/prover.cpp through prove_phase, stages/prover_phases.hpp), the verifier
// (stages/verifier.cpp, verify_phase) and the test harness that proves one phase on the host
// (tests/support/hybrid_prover.cpp) all run this one list:
//
//   for (Phase phase : kProofPhases) prove_phase(phase, context);   // records the phase's tasks
//   for (Phase phase : kProofPhases) if (VerifyResult v = verify_phase(phase); !v) return v;
//
// Before the phases, the prover commits the traces (stages/preamble/commit_traces.hpp) and the verifier
// checks the proof's shape; the phases hand each other their challenges.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace vkstark {

enum class Phase : uint8_t {
  Preamble,          // protocol.md 7 steps 1-3: the vk, the commitments, heights, public values
  Gkr,               // step 4: LogUp's grinding and challenges, the GKR fraction sumcheck, xi
  BatchConstraint,   // step 5: the batch constraint sumcheck (round 0, the MLE rounds, openings)
  StackedReduction,  // step 6: the column openings reduced to one point of every commitment
  Whir,              // step 7: WHIR at that point
};
inline constexpr std::array<Phase, 5> kProofPhases = {Phase::Preamble, Phase::Gkr, Phase::BatchConstraint,
                                                      Phase::StackedReduction, Phase::Whir};

constexpr std::string_view phase_name(Phase phase) {
  switch (phase) {
    case Phase::Preamble:
      return "preamble";
    case Phase::Gkr:
      return "gkr";
    case Phase::BatchConstraint:
      return "batch_constraint";
    case Phase::StackedReduction:
      return "stacked_reduction";
    case Phase::Whir:
      return "whir";
  }
  return "?";
}

}  // namespace vkstark
