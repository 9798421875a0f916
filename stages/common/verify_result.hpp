// The verifiers' result: accepted, or rejected with a code naming the check that failed and a
// message with its details (architecture.md, "Verifier": a result value, not an exception). Each
// phase has an enum of its rejections, one enumerator per distinct check; a code is the phase and
// the enumerator, printed as "<phase>.<check>" (e.g. "whir.mu_pow"). Tests and fuzz triage compare
// codes; the message (which names the round, query or field) is for people. Codes are stable
// names, not stable numbers: compare them in code, print them with to_string.
// Value types; thread-compatible.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace vkstark {

enum class RejectPhase : uint8_t {
  None,              // not rejected
  Decode,            // the proof bytes (DecodeError, stages/encoding/codec.hpp)
  Proof,             // the proof against the verifying key: shape, trace heights (protocol.md 13 steps 2-6)
  Gkr,               // LogUp's grinding and GKR (stages/gkr/verify.hpp)
  BatchConstraint,   // the batch constraint sumcheck (stages/batch_constraint/verify.hpp)
  StackedReduction,  // the stacked opening reduction (stages/stacked_reduction/verify.hpp)
  Whir,              // WHIR (stages/whir/verify.hpp)
  Pcs,               // a standalone PCS proof's claim (stages/opening/opening.hpp)
};

// Bytes that do not decode: what a DecodeError carries.
enum class DecodeReject : uint16_t {
  Truncated,           // fewer bytes left than a value or a count's items need
  NotAFieldElement,    // a field element's u32 (or Montgomery form) >= p
  NonCanonicalVarint,  // a postcard varint longer than its shortest form or than 64 bits
  CountMismatch,       // a count other than the one the verifying key or params give
  TrailingBytes,       // bytes after the end of the encoding
  InvalidValue,        // any other value outside its range: a height, a flag, a tag, padding bits
};

// The proof against the verifying key before any transcript (verifier.cpp), and a proof file
// whose key is not the one the caller trusts (vkstark verify --vk).
enum class ProofReject : uint16_t {
  AirCount,                    // trace entries or public-value lists other than one per AIR
  RequiredAirAbsent,           // a required AIR without a trace
  AbsentAirPublicValues,       // an absent AIR with public values
  CachedCommitmentCount,       // other than the vk's cached parts
  PublicValueCount,            // other than the vk's num_public_values
  TraceTooHigh,                // a trace height above 2^(l_skip + n_stack)
  PreprocessedHeightMismatch,  // a trace height other than its preprocessed trace's
  ShapeUnsupported,            // the heights give no proof shape (the total stacked width exceeds w_stack)
  NoTrace,                     // no AIR present
  PartShape,                   // a count of a proof part other than the shape's (proof_shape_problem)
  TraceHeightConstraint,       // a linear constraint on the trace heights fails (protocol.md 4.5)
  VerifyingKeyMismatch,        // a proof file's verifying key is not the trusted one (its pre-hash differs)
};

enum class GkrReject : uint16_t {
  LogupPow,                 // logup_pow_witness fails proof of work
  Q0ClaimNotOne,            // no interactions, and q0_claim is not 1
  Shape,                    // a count of the GKR proof other than n_tot gives
  RootNumeratorNotZero,     // layer 1: P0 Q1 + P1 Q0 != 0
  RootDenominatorMismatch,  // layer 1: Q0 Q1 != q0_claim
  LayerClaimMismatch,       // layer j >= 2: the sumcheck's last claim is not the layer's claims
};

enum class BatchConstraintReject : uint16_t {
  Shape,                   // a count of the batch constraint proof other than the shape's
  NumeratorSumMismatch,    // the numerator terms do not sum to GKR's p-hat(xi)
  DenominatorSumMismatch,  // alpha plus the denominator terms is not GKR's q-hat(xi)
  Round0SumMismatch,       // s_0 does not sum to the claim over D
  FinalClaimMismatch,      // the last claim is not the constraints and interactions at the openings
};

enum class StackedReductionReject : uint16_t {
  Shape,              // a count of the stacking proof other than the layouts give
  Round0SumMismatch,  // s'_0 does not sum to the batched claim over D
  OpeningsMismatch,   // the last claim is not the stacking openings' combination
};

enum class WhirReject : uint16_t {
  StatementCommitments,  // the statement: no commitment, or not one width per root
  FoldsPastPoint,        // the params fold more variables than the point has
  Shape,                 // a count of the WHIR proof other than the params give
  StatementPoint,        // the statement's point has other than m coordinates
  StatementOpenings,     // the statement's openings are not one per stacked column
  MuPow,                 // mu_pow_witness fails proof of work
  FoldingPow,            // a folding_pow_witness fails proof of work
  QueryPow,              // a query_phase_pow_witness fails proof of work
  InitialMerklePath,     // a round-0 query's rows do not open a commitment
  CodewordMerklePath,    // a later round's query values do not open its codeword commitment
  FinalClaimMismatch,    // the final claim is not the final polynomial's
};

// A standalone PCS proof against the caller's claim (before its WHIR proof).
enum class PcsReject : uint16_t {
  RootCount,          // other than one root per commitment
  RootMismatch,       // a root other than the caller's commitment
  PointLength,        // other than 1 + n_stack coordinates
  OpeningCount,       // other than one opening per stacked column
  OpeningMismatch,    // an opening other than the caller's value
  PointNotChallenge,  // a point coordinate other than the transcript's challenge
};

template <class E>
struct RejectPhaseOf;
template <>
struct RejectPhaseOf<DecodeReject> : std::integral_constant<RejectPhase, RejectPhase::Decode> {};
template <>
struct RejectPhaseOf<ProofReject> : std::integral_constant<RejectPhase, RejectPhase::Proof> {};
template <>
struct RejectPhaseOf<GkrReject> : std::integral_constant<RejectPhase, RejectPhase::Gkr> {};
template <>
struct RejectPhaseOf<BatchConstraintReject> : std::integral_constant<RejectPhase, RejectPhase::BatchConstraint> {};
template <>
struct RejectPhaseOf<StackedReductionReject> : std::integral_constant<RejectPhase, RejectPhase::StackedReduction> {};
template <>
struct RejectPhaseOf<WhirReject> : std::integral_constant<RejectPhase, RejectPhase::Whir> {};
template <>
struct RejectPhaseOf<PcsReject> : std::integral_constant<RejectPhase, RejectPhase::Pcs> {};

// One of the phase enums above.
template <class E>
concept RejectEnum = requires {
  RejectPhaseOf<E>::value;
};

// Which check rejected: the phase and its enumerator. {None, 0} when nothing was rejected.
struct RejectCode {
  RejectPhase phase = RejectPhase::None;
  uint16_t code = 0;

  constexpr RejectCode() = default;
  template <RejectEnum E>
  constexpr RejectCode(E e)  // NOLINT: implicit, so a test compares `v.code == GkrReject::Shape`
      : phase(RejectPhaseOf<E>::value), code(static_cast<uint16_t>(e)) {}
  constexpr bool operator==(const RejectCode&) const = default;
};

// "decode", "proof", "gkr", "batch_constraint", "stacked_reduction", "whir", "pcs"; "none".
std::string_view to_string(RejectPhase phase);
// "<phase>.<check>", e.g. "whir.mu_pow", "gkr.layer_claim_mismatch"; "none" for {None, 0}; a code
// outside its enum (never made by reject()) prints as "<phase>.<number>".
std::string to_string(RejectCode code);
// to_string (test failure messages).
std::ostream& operator<<(std::ostream& os, RejectPhase phase);
std::ostream& operator<<(std::ostream& os, RejectCode code);

struct VerifyResult {
  bool ok = true;
  std::string reason;  // empty when ok
  RejectCode code;     // {None, 0} when ok, a phase's enumerator otherwise

  static VerifyResult accept() { return {}; }
  template <RejectEnum E>
  static VerifyResult reject(E code, std::string why) {
    return {false, std::move(why), RejectCode(code)};
  }
  explicit operator bool() const { return ok; }

  // Rejected by this check.
  template <RejectEnum E>
  bool is(E c) const {
    return !ok && code == RejectCode(c);
  }
  // Rejected by a check of this phase.
  bool in(RejectPhase p) const { return !ok && code.phase == p; }
};

}  // namespace vkstark
