#include "stages/common/verify_result.hpp"

#include <fmt/format.h>

#include <ostream>

namespace vkstark {

namespace {

// The name of each check; -Wswitch names an enumerator added without one.
std::string_view name(DecodeReject c) {
  switch (c) {
    case DecodeReject::Truncated:
      return "truncated";
    case DecodeReject::NotAFieldElement:
      return "not_a_field_element";
    case DecodeReject::NonCanonicalVarint:
      return "non_canonical_varint";
    case DecodeReject::CountMismatch:
      return "count_mismatch";
    case DecodeReject::TrailingBytes:
      return "trailing_bytes";
    case DecodeReject::InvalidValue:
      return "invalid_value";
  }
  return {};
}

std::string_view name(ProofReject c) {
  switch (c) {
    case ProofReject::AirCount:
      return "air_count";
    case ProofReject::RequiredAirAbsent:
      return "required_air_absent";
    case ProofReject::AbsentAirPublicValues:
      return "absent_air_public_values";
    case ProofReject::CachedCommitmentCount:
      return "cached_commitment_count";
    case ProofReject::PublicValueCount:
      return "public_value_count";
    case ProofReject::TraceTooHigh:
      return "trace_too_high";
    case ProofReject::PreprocessedHeightMismatch:
      return "preprocessed_height_mismatch";
    case ProofReject::ShapeUnsupported:
      return "shape_unsupported";
    case ProofReject::NoTrace:
      return "no_trace";
    case ProofReject::PartShape:
      return "part_shape";
    case ProofReject::TraceHeightConstraint:
      return "trace_height_constraint";
    case ProofReject::VerifyingKeyMismatch:
      return "verifying_key_mismatch";
  }
  return {};
}

std::string_view name(GkrReject c) {
  switch (c) {
    case GkrReject::LogupPow:
      return "logup_pow";
    case GkrReject::Q0ClaimNotOne:
      return "q0_claim_not_one";
    case GkrReject::Shape:
      return "shape";
    case GkrReject::RootNumeratorNotZero:
      return "root_numerator_not_zero";
    case GkrReject::RootDenominatorMismatch:
      return "root_denominator_mismatch";
    case GkrReject::LayerClaimMismatch:
      return "layer_claim_mismatch";
  }
  return {};
}

std::string_view name(BatchConstraintReject c) {
  switch (c) {
    case BatchConstraintReject::Shape:
      return "shape";
    case BatchConstraintReject::NumeratorSumMismatch:
      return "numerator_sum_mismatch";
    case BatchConstraintReject::DenominatorSumMismatch:
      return "denominator_sum_mismatch";
    case BatchConstraintReject::Round0SumMismatch:
      return "round0_sum_mismatch";
    case BatchConstraintReject::FinalClaimMismatch:
      return "final_claim_mismatch";
  }
  return {};
}

std::string_view name(StackedReductionReject c) {
  switch (c) {
    case StackedReductionReject::Shape:
      return "shape";
    case StackedReductionReject::Round0SumMismatch:
      return "round0_sum_mismatch";
    case StackedReductionReject::OpeningsMismatch:
      return "openings_mismatch";
  }
  return {};
}

std::string_view name(WhirReject c) {
  switch (c) {
    case WhirReject::StatementCommitments:
      return "statement_commitments";
    case WhirReject::FoldsPastPoint:
      return "folds_past_point";
    case WhirReject::Shape:
      return "shape";
    case WhirReject::StatementPoint:
      return "statement_point";
    case WhirReject::StatementOpenings:
      return "statement_openings";
    case WhirReject::MuPow:
      return "mu_pow";
    case WhirReject::FoldingPow:
      return "folding_pow";
    case WhirReject::QueryPow:
      return "query_pow";
    case WhirReject::InitialMerklePath:
      return "initial_merkle_path";
    case WhirReject::CodewordMerklePath:
      return "codeword_merkle_path";
    case WhirReject::FinalClaimMismatch:
      return "final_claim_mismatch";
  }
  return {};
}

std::string_view name(PcsReject c) {
  switch (c) {
    case PcsReject::RootCount:
      return "root_count";
    case PcsReject::RootMismatch:
      return "root_mismatch";
    case PcsReject::PointLength:
      return "point_length";
    case PcsReject::OpeningCount:
      return "opening_count";
    case PcsReject::OpeningMismatch:
      return "opening_mismatch";
    case PcsReject::PointNotChallenge:
      return "point_not_challenge";
  }
  return {};
}

template <RejectEnum E>
std::string_view name_of(uint16_t code) {
  return name(static_cast<E>(code));
}

std::string_view check_name(RejectCode c) {
  switch (c.phase) {
    case RejectPhase::None:
      return {};
    case RejectPhase::Decode:
      return name_of<DecodeReject>(c.code);
    case RejectPhase::Proof:
      return name_of<ProofReject>(c.code);
    case RejectPhase::Gkr:
      return name_of<GkrReject>(c.code);
    case RejectPhase::BatchConstraint:
      return name_of<BatchConstraintReject>(c.code);
    case RejectPhase::StackedReduction:
      return name_of<StackedReductionReject>(c.code);
    case RejectPhase::Whir:
      return name_of<WhirReject>(c.code);
    case RejectPhase::Pcs:
      return name_of<PcsReject>(c.code);
  }
  return {};
}

}  // namespace

std::string_view to_string(RejectPhase phase) {
  switch (phase) {
    case RejectPhase::None:
      return "none";
    case RejectPhase::Decode:
      return "decode";
    case RejectPhase::Proof:
      return "proof";
    case RejectPhase::Gkr:
      return "gkr";
    case RejectPhase::BatchConstraint:
      return "batch_constraint";
    case RejectPhase::StackedReduction:
      return "stacked_reduction";
    case RejectPhase::Whir:
      return "whir";
    case RejectPhase::Pcs:
      return "pcs";
  }
  return "unknown";
}

std::string to_string(RejectCode code) {
  if (code == RejectCode()) return "none";
  const std::string_view check = check_name(code);
  if (check.empty()) return fmt::format("{}.{}", to_string(code.phase), code.code);
  return fmt::format("{}.{}", to_string(code.phase), check);
}

std::ostream& operator<<(std::ostream& os, RejectPhase phase) { return os << to_string(phase); }
std::ostream& operator<<(std::ostream& os, RejectCode code) { return os << to_string(code); }

}  // namespace vkstark
