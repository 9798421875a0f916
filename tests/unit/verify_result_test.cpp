// Specifies the verifiers' rejection codes (stages/common/verify_result.hpp): a rejection carries the
// phase its enum belongs to and the enumerator, printed "<phase>.<check>"; every check of every
// phase has a name of its own; a DecodeError carries the code of the decoding rule that failed.
#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <sstream>
#include <vector>

#include "stages/common/verify_result.hpp"
#include "stages/encoding/codec.hpp"

using namespace vkstark;

namespace {

// The codes 0 .. last of a phase's enum.
template <RejectEnum E>
std::vector<RejectCode> codes_up_to(E last) {
  std::vector<RejectCode> out;
  for (uint16_t c = 0; c <= static_cast<uint16_t>(last); ++c) out.push_back(RejectCode(static_cast<E>(c)));
  return out;
}

template <class F>
DecodeReject decode_error_of(std::vector<uint8_t> bytes, F&& read) {
  ByteReader r(bytes);
  try {
    read(r);
  } catch (const DecodeError& e) {
    return e.code();
  }
  ADD_FAILURE() << "no DecodeError";
  return DecodeReject::InvalidValue;
}

}  // namespace

TEST(RejectCode, PrintsThePhaseAndTheCheck) {
  EXPECT_EQ(to_string(RejectCode(WhirReject::MuPow)), "whir.mu_pow");
  EXPECT_EQ(to_string(RejectCode(GkrReject::LayerClaimMismatch)), "gkr.layer_claim_mismatch");
  EXPECT_EQ(to_string(RejectCode(DecodeReject::TrailingBytes)), "decode.trailing_bytes");
  EXPECT_EQ(to_string(RejectCode(ProofReject::RequiredAirAbsent)), "proof.required_air_absent");
  EXPECT_EQ(to_string(RejectCode(BatchConstraintReject::Round0SumMismatch)), "batch_constraint.round0_sum_mismatch");
  EXPECT_EQ(to_string(RejectCode(StackedReductionReject::OpeningsMismatch)), "stacked_reduction.openings_mismatch");
  EXPECT_EQ(to_string(RejectCode(PcsReject::PointNotChallenge)), "pcs.point_not_challenge");
  EXPECT_EQ(to_string(RejectCode()), "none");
  // A number outside its enum (never made by reject()) still prints.
  EXPECT_EQ(to_string(RejectCode(static_cast<WhirReject>(999))), "whir.999");
  std::ostringstream os;
  os << RejectCode(WhirReject::Shape) << " " << RejectPhase::StackedReduction;
  EXPECT_EQ(os.str(), "whir.shape stacked_reduction");
}

TEST(RejectCode, EveryCheckHasANameOfItsOwn) {
  std::vector<RejectCode> all;
  for (const auto& codes :
       {codes_up_to(DecodeReject::InvalidValue), codes_up_to(ProofReject::VerifyingKeyMismatch),
        codes_up_to(GkrReject::LayerClaimMismatch), codes_up_to(BatchConstraintReject::FinalClaimMismatch),
        codes_up_to(StackedReductionReject::OpeningsMismatch), codes_up_to(WhirReject::FinalClaimMismatch),
        codes_up_to(PcsReject::PointNotChallenge)})
    all.insert(all.end(), codes.begin(), codes.end());
  const std::regex form("[a-z0-9_]+\\.[a-z][a-z0-9_]*");
  std::set<std::string> names;
  for (const RejectCode& c : all) {
    const std::string name = to_string(c);
    EXPECT_TRUE(std::regex_match(name, form)) << name;
    EXPECT_EQ(name.substr(0, name.find('.')), to_string(c.phase)) << name;
    EXPECT_TRUE(names.insert(name).second) << name << " twice";
  }
  EXPECT_EQ(names.size(), 49u);  // a check added to an enum gets a name, and this count changes
}

TEST(VerifyResult, ARejectionCarriesThePhaseOfItsEnumAndTheMessage) {
  const VerifyResult v = VerifyResult::reject(GkrReject::LogupPow, "GKR: logup_pow_witness fails proof of work");
  EXPECT_FALSE(v.ok);
  EXPECT_FALSE(bool(v));
  EXPECT_EQ(v.reason, "GKR: logup_pow_witness fails proof of work");
  EXPECT_EQ(v.code.phase, RejectPhase::Gkr);
  EXPECT_TRUE(v.is(GkrReject::LogupPow));
  EXPECT_FALSE(v.is(GkrReject::Shape));
  // The same number in another phase is another code.
  ASSERT_EQ(static_cast<uint16_t>(BatchConstraintReject::Shape), static_cast<uint16_t>(GkrReject::LogupPow));
  EXPECT_FALSE(v.is(BatchConstraintReject::Shape));
  EXPECT_NE(v.code, RejectCode(BatchConstraintReject::Shape));
  EXPECT_TRUE(v.in(RejectPhase::Gkr));
  EXPECT_FALSE(v.in(RejectPhase::Whir));
}

TEST(VerifyResult, AnAcceptanceHasNoCode) {
  const VerifyResult v = VerifyResult::accept();
  EXPECT_TRUE(v.ok);
  EXPECT_TRUE(v.reason.empty());
  EXPECT_EQ(v.code, RejectCode());
  EXPECT_FALSE(v.is(DecodeReject::Truncated));  // the zero code of a phase is not "accepted"
  EXPECT_FALSE(v.in(RejectPhase::None));
}

TEST(DecodeError, CarriesTheCodeOfTheRuleThatFailed) {
  EXPECT_EQ(decode_error_of({1, 2}, [](ByteReader& r) { (void)r.u32("x"); }), DecodeReject::Truncated);
  EXPECT_EQ(decode_error_of({5, 0, 0, 0}, [](ByteReader& r) { (void)r.count("n", 4); }), DecodeReject::Truncated);
  EXPECT_EQ(decode_error_of({0x01, 0, 0, 0x78}, [](ByteReader& r) { (void)r.f("x"); }),  // p
            DecodeReject::NotAFieldElement);
  EXPECT_EQ(decode_error_of({3, 0, 0, 0}, [](ByteReader& r) { (void)r.expect("n", 2); }), DecodeReject::CountMismatch);
  EXPECT_EQ(decode_error_of({0}, [](ByteReader& r) { r.expect_end("proof"); }), DecodeReject::TrailingBytes);
  EXPECT_EQ(decode_error_of({0x80, 0x00}, [](ByteReader& r) { (void)r.varint("v"); }),
            DecodeReject::NonCanonicalVarint);
  EXPECT_EQ(decode_error_of({5}, [](ByteReader& r) { (void)r.varint("v", 4); }), DecodeReject::InvalidValue);
  EXPECT_EQ(decode_error_of({}, [](ByteReader& r) { r.fail("flag", "neither 0 nor 1"); }), DecodeReject::InvalidValue);
  EXPECT_EQ(DecodeError("trace file: bad magic").code(), DecodeReject::InvalidValue);
}
