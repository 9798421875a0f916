// The PCS/WHIR verifier against tampered and truncated proofs: every field altered is rejected
// with a reason and the code of the check that catches it (the first check on the verifier's path
// that the change breaks: a value the transcript observes may first fail a later proof of work or
// Merkle path, whose index it moved); the verifier is bound to the caller's commitments and values (a valid proof of
// other roots or other values is rejected); every truncation and corrupted encoding is rejected; params outside the
// supported range are an InputError naming the field; nothing crashes or reads out of bounds (run under the sanitizer
// build too).
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <functional>
#include <optional>
#include <random>

#include "executors/cpu/cpu_executor.hpp"
#include "stages/encoding/codec.hpp"
#include "stages/opening/opening.hpp"
#include "tests/parity/executor_fixture.hpp"

using namespace vkstark;

namespace {

struct Fixture {
  SystemParams params = test_system_params_small(2, 6, 2);  // 4 WHIR rounds of k = 2
  PcsProof proof;
  std::vector<uint32_t> widths;
  PcsClaim claim;  // the prover's commitments and values, as the caller holds them
};

// Two commitments (two traces, then one); `seed` picks the values.
Fixture make_fixture(uint64_t seed) {
  Fixture f;
  auto exec = make_cpu_executor();
  const uint32_t log_n = f.params.log_stacked_height() + f.params.log_blowup;
  prepare_ntt_twiddles(*exec, log_n);
  Trace t;
  Graph g;
  Ntt ntt(g, log_n);
  auto a = g.input<Fp>("a", 3 << 8);
  auto b = g.input<Fp>("b", 2 << 1);
  PcsProofGraph pg = build_pcs_proof(g, ntt, {{{a, 3, 8}, {b, 2, 1}}, {{g.input<Fp>("c", 1 << 7), 1, 7}}}, f.params);
  auto p = exec->prepare(compile(g));
  p->upload(a, vkstark::testing::field_values(3 << 8, seed));
  p->upload(b, vkstark::testing::field_values(2 << 1, seed + 1));
  p->upload(g.find<Fp>("c"), vkstark::testing::field_values(1 << 7, seed + 2));
  p->run(t);
  f.proof = pg.decode(p->download(pg.layout.buffer()));
  for (const auto& c : pg.commitments) f.widths.push_back(c.layout.stacked_width());
  f.claim = {f.proof.roots, f.widths, f.proof.openings};
  return f;
}

const Fixture& fixture() {
  static const Fixture fix = make_fixture(1);
  return fix;
}
// A valid proof of the same shape over other values.
const Fixture& other_fixture() {
  static const Fixture fix = make_fixture(101);
  return fix;
}

Fp bump(Fp x) { return x + Fp::one(); }
Fp4 bump(Fp4 x) { return x + Fp4::one(); }
Digest bump(Digest d) {
  d[3] = bump(d[3]);
  return d;
}

// Applies `mutate` to a copy of the valid proof; the verifier must reject it with a reason and the
// code `code` against the caller's claim, and with `self_code` as a self-consistency check (where
// the claim is the proof's own roots and openings).
void expect_rejected(const std::string& what, RejectCode code, RejectCode self_code,
                     const std::function<void(PcsProof&)>& mutate) {
  const Fixture& f = fixture();
  PcsProof p = f.proof;
  mutate(p);
  VerifyResult v = verify_pcs_proof(f.claim, p, f.params);
  EXPECT_FALSE(v.ok) << what << " was accepted";
  EXPECT_FALSE(v.reason.empty()) << what;
  EXPECT_EQ(v.code, code) << what << ": " << v.reason;
  VerifyResult self = check_pcs_proof_self_consistency(p, f.widths, f.params);
  EXPECT_FALSE(self.ok) << what << " was self-consistent";
  EXPECT_EQ(self.code, self_code) << what << " (self-consistency): " << self.reason;
}
void expect_rejected(const std::string& what, RejectCode code, const std::function<void(PcsProof&)>& mutate) {
  expect_rejected(what, code, code, mutate);
}

template <class F>
std::string input_error_of(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no InputError)";
}

}  // namespace

TEST(PcsVerifier, AcceptsTheUntouchedProof) {
  const Fixture& f = fixture();
  VerifyResult v = verify_pcs_proof(f.claim, f.proof, f.params);
  EXPECT_TRUE(v.ok) << v.reason;
  EXPECT_EQ(v.code, RejectCode()) << "an accepted proof has no rejection code";
  EXPECT_TRUE(verify_pcs_proof_bytes(f.claim, encode(f.proof), f.params).ok);
  EXPECT_TRUE(check_pcs_proof_self_consistency(f.proof, f.widths, f.params).ok);
  EXPECT_EQ(decode_pcs_proof(encode(f.proof)), f.proof);
  EXPECT_EQ(decode_pcs_proof(encode(f.proof), f.params, f.widths), f.proof);
}

// Finding 4 of issue 8: the verifier took the roots, point and values from the proof itself.
TEST(PcsVerifier, RejectsAValidProofOfOtherCommitmentsOrOtherValues) {
  const Fixture& f = fixture();
  const Fixture& other = other_fixture();
  ASSERT_NE(other.proof.roots, f.proof.roots);
  ASSERT_TRUE(verify_pcs_proof(other.claim, other.proof, other.params).ok);
  ASSERT_TRUE(check_pcs_proof_self_consistency(other.proof, other.widths, other.params).ok);
  // Another proof of the same shape, against the caller's roots and values.
  VerifyResult v = verify_pcs_proof(f.claim, other.proof, f.params);
  EXPECT_FALSE(v.ok);
  EXPECT_NE(v.reason.find("root 0"), std::string::npos) << v.reason;
  EXPECT_TRUE(v.is(PcsReject::RootMismatch)) << v.code;
  EXPECT_TRUE(verify_pcs_proof_bytes(f.claim, encode(other.proof), f.params).is(PcsReject::RootMismatch));
  // The caller's roots with the other proof's values, and the other way round.
  v = verify_pcs_proof({f.claim.roots, f.widths, other.claim.openings}, other.proof, f.params);
  EXPECT_FALSE(v.ok);
  EXPECT_TRUE(v.is(PcsReject::RootMismatch)) << v.code;
  v = verify_pcs_proof({other.claim.roots, f.widths, f.claim.openings}, other.proof, f.params);
  EXPECT_FALSE(v.ok);
  EXPECT_NE(v.reason.find("opening 0"), std::string::npos) << v.reason;
  EXPECT_TRUE(v.is(PcsReject::OpeningMismatch)) << v.code;
  // The other proof relabelled with the caller's roots and values: the transcript gives another
  // point, and with it the WHIR checks fail.
  PcsProof relabelled = other.proof;
  relabelled.roots = f.claim.roots;
  relabelled.openings = f.claim.openings;
  v = verify_pcs_proof(f.claim, relabelled, f.params);
  EXPECT_FALSE(v.ok);
  EXPECT_NE(v.reason.find("point"), std::string::npos) << v.reason;
  EXPECT_TRUE(v.is(PcsReject::PointNotChallenge)) << v.code;
  relabelled.point = f.proof.point;
  v = verify_pcs_proof(f.claim, relabelled, f.params);
  EXPECT_FALSE(v.ok);
  EXPECT_TRUE(v.in(RejectPhase::Whir)) << v.code << ": " << v.reason;
}

TEST(PcsVerifier, AnInconsistentClaimIsAnInputErrorNamingTheField) {
  const Fixture& f = fixture();
  PcsClaim c = f.claim;
  c.widths.pop_back();
  EXPECT_NE(input_error_of([&] { (void)verify_pcs_proof(c, f.proof, f.params); }).find("widths"), std::string::npos);
  c = f.claim;
  c.widths[0] = 0;
  EXPECT_NE(input_error_of([&] { (void)verify_pcs_proof(c, f.proof, f.params); }).find("widths[0] = 0"),
            std::string::npos);
  c = f.claim;
  c.openings.pop_back();
  EXPECT_NE(input_error_of([&] { (void)verify_pcs_proof(c, f.proof, f.params); }).find("openings"), std::string::npos);
  c = f.claim;
  c.widths[0] = f.params.w_stack;
  EXPECT_NE(input_error_of([&] { (void)verify_pcs_proof_bytes(c, encode(f.proof), f.params); }).find("w_stack"),
            std::string::npos);
  EXPECT_NE(input_error_of([&] { (void)verify_pcs_proof({}, f.proof, f.params); }).find("no commitment"),
            std::string::npos);
}

// Finding 3 of issue 8: the verifier threw from deep inside (or crashed) on such params.
TEST(PcsVerifier, ParamsOutsideTheSupportedRangeAreAnInputErrorNamingTheField) {
  const Fixture& f = fixture();
  const std::vector<uint8_t> bytes = encode(f.proof);
  auto expect_named = [&](const SystemParams& params, const std::string& field) {
    EXPECT_NE(input_error_of([&] { (void)verify_pcs_proof(f.claim, f.proof, params); }).find(field), std::string::npos)
        << field;
    EXPECT_NE(input_error_of([&] { (void)verify_pcs_proof_bytes(f.claim, bytes, params); }).find(field),
              std::string::npos)
        << field;
    EXPECT_NE(input_error_of([&] { (void)decode_pcs_proof(bytes, params, f.widths); }).find(field), std::string::npos)
        << field;
  };
  for (uint32_t bits : {31u, 40u}) {
    SystemParams p = f.params;
    p.whir.query_phase_pow_bits = bits;
    expect_named(p, "whir.query_phase_pow_bits");
    p = f.params;
    p.whir.folding_pow_bits = bits;
    expect_named(p, "whir.folding_pow_bits");
    p = f.params;
    p.whir.mu_pow_bits = bits;
    expect_named(p, "whir.mu_pow_bits");
  }
  SystemParams p = f.params;
  p.whir.rounds.clear();
  expect_named(p, "whir.rounds");
  p = f.params;
  p.whir.rounds[2].num_queries = 0;
  expect_named(p, "whir.rounds[2].num_queries");
}

TEST(PcsProver, ParamsWithoutAWhirRoundAreAnInputErrorNotACrash) {
  // pcs_bench --log-height 4 (8, 10) died with SIGSEGV: app params below 2^11 have no WHIR round.
  for (uint32_t h : {4u, 8u, 10u}) {
    const SystemParams params = app_params_with_100_bits_security(h);
    EXPECT_NE(input_error_of([&] { (void)build_pcs_matrix_proof(1, h, params); }).find("whir.rounds"),
              std::string::npos)
        << h;
  }
}

TEST(PcsVerifier, RejectsEveryAlteredField) {
  // A root or an opening is the caller's: against the claim the PCS check names it; checked against
  // itself, a root changes the point's challenges, an opening WHIR's first challenge mu.
  expect_rejected("root", PcsReject::RootMismatch, PcsReject::PointNotChallenge,
                  [](PcsProof& p) { p.roots[1] = bump(p.roots[1]); });
  expect_rejected("point", PcsReject::PointNotChallenge, [](PcsProof& p) { p.point[2] = bump(p.point[2]); });
  expect_rejected("opening", PcsReject::OpeningMismatch, WhirReject::MuPow,
                  [](PcsProof& p) { p.openings[0] = bump(p.openings[0]); });
  expect_rejected("mu_pow_witness", WhirReject::MuPow,
                  [](PcsProof& p) { p.whir.mu_pow_witness = bump(p.whir.mu_pow_witness); });
  // A sumcheck value is observed before its round's folding proof of work.
  for (size_t i = 0; i < fixture().proof.whir.sumcheck_polys.size(); ++i)
    for (int j = 0; j < 2; ++j)
      expect_rejected(fmt::format("sumcheck poly {}.{}", i, j), WhirReject::FoldingPow,
                      [&](PcsProof& p) { p.whir.sumcheck_polys[i][j] = bump(p.whir.sumcheck_polys[i][j]); });
  // The codeword commit, an ood value and the final polynomial are observed before their round's
  // query proof of work.
  expect_rejected("codeword commit", WhirReject::QueryPow,
                  [](PcsProof& p) { p.whir.codeword_commits[0] = bump(p.whir.codeword_commits[0]); });
  expect_rejected("ood value", WhirReject::QueryPow,
                  [](PcsProof& p) { p.whir.ood_values[1] = bump(p.whir.ood_values[1]); });
  expect_rejected("folding witness", WhirReject::FoldingPow,
                  [](PcsProof& p) { p.whir.folding_pow_witnesses[3] = bump(p.whir.folding_pow_witnesses[3]); });
  expect_rejected("query witness", WhirReject::QueryPow,
                  [](PcsProof& p) { p.whir.query_phase_pow_witnesses[0] = bump(p.whir.query_phase_pow_witnesses[0]); });
  expect_rejected("initial opened row", WhirReject::InitialMerklePath, [](PcsProof& p) {
    p.whir.initial_round_opened_rows[0][1][2] = bump(p.whir.initial_round_opened_rows[0][1][2]);
  });
  expect_rejected("initial path", WhirReject::InitialMerklePath, [](PcsProof& p) {
    p.whir.initial_round_merkle_proofs[1][0][2] = bump(p.whir.initial_round_merkle_proofs[1][0][2]);
  });
  expect_rejected("codeword value", WhirReject::CodewordMerklePath, [](PcsProof& p) {
    p.whir.codeword_opened_values[0][0][1] = bump(p.whir.codeword_opened_values[0][0][1]);
  });
  expect_rejected("codeword path", WhirReject::CodewordMerklePath, [](PcsProof& p) {
    p.whir.codeword_merkle_proofs[1][0][0] = bump(p.whir.codeword_merkle_proofs[1][0][0]);
  });
  expect_rejected("final poly", WhirReject::QueryPow,
                  [](PcsProof& p) { p.whir.final_poly[0] = bump(p.whir.final_poly[0]); });
}

TEST(PcsVerifier, RejectsWrongShapesWithoutReadingOutOfBounds) {
  expect_rejected("missing sumcheck round", WhirReject::Shape, [](PcsProof& p) { p.whir.sumcheck_polys.pop_back(); });
  expect_rejected("missing query", WhirReject::Shape,
                  [](PcsProof& p) { p.whir.initial_round_opened_rows[0].pop_back(); });
  expect_rejected("short row", WhirReject::Shape,
                  [](PcsProof& p) { p.whir.initial_round_opened_rows[1][0].pop_back(); });
  expect_rejected("short path", WhirReject::Shape, [](PcsProof& p) { p.whir.codeword_merkle_proofs[0][0].pop_back(); });
  expect_rejected("extra final coefficient", WhirReject::Shape,
                  [](PcsProof& p) { p.whir.final_poly.push_back(Fp4::one()); });
  expect_rejected("missing opening", PcsReject::OpeningCount, [](PcsProof& p) { p.openings.pop_back(); });
  expect_rejected("missing commitment", PcsReject::RootCount, [](PcsProof& p) { p.roots.pop_back(); });
  expect_rejected("no ood values", WhirReject::Shape, [](PcsProof& p) { p.whir.ood_values.clear(); });
}

TEST(PcsVerifier, RejectsEveryTruncation) {
  const Fixture& f = fixture();
  const std::vector<uint8_t> bytes = encode(f.proof);
  for (size_t cut = 0; cut < bytes.size(); cut += (cut < 256 ? 1 : 97)) {
    std::span<const uint8_t> part(bytes.data(), cut);
    EXPECT_THROW((void)decode_pcs_proof(part), DecodeError) << "cut at " << cut;
    EXPECT_THROW((void)decode_pcs_proof(part, f.params, f.widths), DecodeError) << "cut at " << cut;
    const VerifyResult v = verify_pcs_proof_bytes(f.claim, part, f.params);
    EXPECT_FALSE(v.ok) << "cut at " << cut;
    EXPECT_TRUE(v.is(DecodeReject::Truncated)) << "cut at " << cut << ": " << v.code << ": " << v.reason;
  }
  std::vector<uint8_t> longer = bytes;
  longer.push_back(0);
  EXPECT_THROW((void)decode_pcs_proof(longer), DecodeError);
  VerifyResult v = verify_pcs_proof_bytes(f.claim, longer, f.params);
  EXPECT_FALSE(v.ok);
  EXPECT_NE(v.reason.find("1 trailing bytes"), std::string::npos) << v.reason;
  EXPECT_TRUE(v.is(DecodeReject::TrailingBytes)) << v.code;
}

TEST(PcsVerifier, CorruptedBytesAreRejected) {
  const Fixture& f = fixture();
  const std::vector<uint8_t> bytes = encode(f.proof);
  std::mt19937_64 rng(5);
  for (int trial = 0; trial < 300; ++trial) {
    std::vector<uint8_t> b = bytes;
    size_t at = rng() % b.size();
    b[at] ^= static_cast<uint8_t>(1 + rng() % 255);
    VerifyResult v = verify_pcs_proof_bytes(f.claim, b, f.params);  // never throws for the bytes
    EXPECT_FALSE(v.ok) << "flipped byte " << at;
    EXPECT_FALSE(v.reason.empty());
    // The decoder's own code for bytes it rejects; a PCS or WHIR check's for a proof it decodes.
    std::optional<DecodeReject> decode_error;
    try {
      (void)decode_pcs_proof(b, f.params, f.widths);
    } catch (const DecodeError& e) {
      decode_error = e.code();
    }
    if (decode_error)
      EXPECT_EQ(v.code, RejectCode(*decode_error)) << "flipped byte " << at << ": " << v.reason;
    else
      EXPECT_TRUE(v.in(RejectPhase::Pcs) || v.in(RejectPhase::Whir)) << "flipped byte " << at << ": " << v.code;
  }
}

TEST(PcsVerifier, DecoderRejectsNonCanonicalFieldElements) {
  std::vector<uint8_t> bytes = encode(fixture().proof);
  // The first root's first element sits after the 4-byte roots length.
  bytes[4] = 0x01, bytes[5] = 0x00, bytes[6] = 0x00, bytes[7] = 0x78;  // = p
  try {
    (void)decode_pcs_proof(bytes);
    FAIL();
  } catch (const DecodeError& e) {
    EXPECT_NE(std::string(e.what()).find("PCS proof: roots[0]"), std::string::npos) << e.what();
    EXPECT_EQ(e.code(), DecodeReject::NotAFieldElement) << e.what();
  }
  const Fixture& f = fixture();
  EXPECT_TRUE(verify_pcs_proof_bytes(f.claim, bytes, f.params).is(DecodeReject::NotAFieldElement));
}
