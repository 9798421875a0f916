// The PCS/WHIR verifier against tampered and truncated proofs: every field altered is rejected
// with a reason; every truncation and corrupted encoding is rejected by the decoder; nothing
// crashes or reads out of bounds (run under the sanitizer build too).
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <functional>
#include <random>

#include "executors/cpu/cpu_executor.hpp"
#include "stages/pcs/opening.hpp"
#include "tests/parity/executor_fixture.hpp"

using namespace vkstark;

namespace {

struct Fixture {
  SystemParams params = test_system_params_small(2, 6, 2);  // 3 WHIR rounds of k = 2
  PcsProof proof;
  std::vector<uint32_t> widths;
};

const Fixture& fixture() {
  static const Fixture fix = [] {
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
    p->upload(a, vkstark::testing::field_values(3 << 8, 1));
    p->upload(b, vkstark::testing::field_values(2 << 1, 2));
    p->upload(g.find<Fp>("c"), vkstark::testing::field_values(1 << 7, 3));
    p->run(t);
    f.proof = pg.decode(p->download(pg.layout.buffer()));
    for (const auto& c : pg.commitments) f.widths.push_back(c.layout.stacked_width());
    return f;
  }();
  return fix;
}

Fp bump(Fp x) { return x + Fp::one(); }
Fp4 bump(Fp4 x) { return x + Fp4::one(); }
Digest bump(Digest d) {
  d[3] = bump(d[3]);
  return d;
}

// Applies `mutate` to a copy of the valid proof; the verifier must reject it with a reason.
void expect_rejected(const std::string& what, const std::function<void(PcsProof&)>& mutate) {
  const Fixture& f = fixture();
  PcsProof p = f.proof;
  mutate(p);
  VerifyResult v = verify_pcs_proof(p, f.widths, f.params);
  EXPECT_FALSE(v.ok) << what << " was accepted";
  EXPECT_FALSE(v.reason.empty()) << what;
}

}  // namespace

TEST(PcsVerifier, AcceptsTheUntouchedProof) {
  const Fixture& f = fixture();
  VerifyResult v = verify_pcs_proof(f.proof, f.widths, f.params);
  EXPECT_TRUE(v.ok) << v.reason;
  EXPECT_EQ(decode_pcs_proof(encode(f.proof)), f.proof);
}

TEST(PcsVerifier, RejectsEveryAlteredField) {
  expect_rejected("root", [](PcsProof& p) { p.roots[1] = bump(p.roots[1]); });
  expect_rejected("point", [](PcsProof& p) { p.point[2] = bump(p.point[2]); });
  expect_rejected("opening", [](PcsProof& p) { p.openings[0] = bump(p.openings[0]); });
  expect_rejected("mu_pow_witness", [](PcsProof& p) { p.whir.mu_pow_witness = bump(p.whir.mu_pow_witness); });
  for (size_t i = 0; i < fixture().proof.whir.sumcheck_polys.size(); ++i)
    for (int j = 0; j < 2; ++j)
      expect_rejected(fmt::format("sumcheck poly {}.{}", i, j),
                      [&](PcsProof& p) { p.whir.sumcheck_polys[i][j] = bump(p.whir.sumcheck_polys[i][j]); });
  expect_rejected("codeword commit",
                  [](PcsProof& p) { p.whir.codeword_commits[0] = bump(p.whir.codeword_commits[0]); });
  expect_rejected("ood value", [](PcsProof& p) { p.whir.ood_values[1] = bump(p.whir.ood_values[1]); });
  expect_rejected("folding witness",
                  [](PcsProof& p) { p.whir.folding_pow_witnesses[3] = bump(p.whir.folding_pow_witnesses[3]); });
  expect_rejected("query witness",
                  [](PcsProof& p) { p.whir.query_phase_pow_witnesses[0] = bump(p.whir.query_phase_pow_witnesses[0]); });
  expect_rejected("initial opened row", [](PcsProof& p) {
    p.whir.initial_round_opened_rows[0][1][2] = bump(p.whir.initial_round_opened_rows[0][1][2]);
  });
  expect_rejected("initial path", [](PcsProof& p) {
    p.whir.initial_round_merkle_proofs[1][0][2] = bump(p.whir.initial_round_merkle_proofs[1][0][2]);
  });
  expect_rejected("codeword value", [](PcsProof& p) {
    p.whir.codeword_opened_values[0][0][1] = bump(p.whir.codeword_opened_values[0][0][1]);
  });
  expect_rejected("codeword path", [](PcsProof& p) {
    p.whir.codeword_merkle_proofs[1][0][0] = bump(p.whir.codeword_merkle_proofs[1][0][0]);
  });
  expect_rejected("final poly", [](PcsProof& p) { p.whir.final_poly[0] = bump(p.whir.final_poly[0]); });
}

TEST(PcsVerifier, RejectsWrongShapesWithoutReadingOutOfBounds) {
  expect_rejected("missing sumcheck round", [](PcsProof& p) { p.whir.sumcheck_polys.pop_back(); });
  expect_rejected("missing query", [](PcsProof& p) { p.whir.initial_round_opened_rows[0].pop_back(); });
  expect_rejected("short row", [](PcsProof& p) { p.whir.initial_round_opened_rows[1][0].pop_back(); });
  expect_rejected("short path", [](PcsProof& p) { p.whir.codeword_merkle_proofs[0][0].pop_back(); });
  expect_rejected("extra final coefficient", [](PcsProof& p) { p.whir.final_poly.push_back(Fp4::one()); });
  expect_rejected("missing opening", [](PcsProof& p) { p.openings.pop_back(); });
  expect_rejected("missing commitment", [](PcsProof& p) { p.roots.pop_back(); });
  expect_rejected("no ood values", [](PcsProof& p) { p.whir.ood_values.clear(); });
}

TEST(PcsVerifier, RejectsEveryTruncation) {
  const std::vector<uint8_t> bytes = encode(fixture().proof);
  for (size_t cut = 0; cut < bytes.size(); cut += (cut < 256 ? 1 : 97)) {
    std::span<const uint8_t> part(bytes.data(), cut);
    EXPECT_THROW((void)decode_pcs_proof(part), InputError) << "cut at " << cut;
  }
  std::vector<uint8_t> longer = bytes;
  longer.push_back(0);
  EXPECT_THROW((void)decode_pcs_proof(longer), InputError);
}

TEST(PcsVerifier, CorruptedBytesAreRejectedOrFailVerification) {
  const Fixture& f = fixture();
  const std::vector<uint8_t> bytes = encode(f.proof);
  std::mt19937_64 rng(5);
  for (int trial = 0; trial < 300; ++trial) {
    std::vector<uint8_t> b = bytes;
    size_t at = rng() % b.size();
    b[at] ^= static_cast<uint8_t>(1 + rng() % 255);
    try {
      PcsProof p = decode_pcs_proof(b);
      EXPECT_FALSE(verify_pcs_proof(p, f.widths, f.params).ok) << "flipped byte " << at;
    } catch (const InputError&) {
      // malformed encoding: rejected by the decoder
    }
  }
}

TEST(PcsVerifier, DecoderRejectsNonCanonicalFieldElements) {
  std::vector<uint8_t> bytes = encode(fixture().proof);
  // The first root's first element sits after the 4-byte roots length.
  bytes[4] = 0x01, bytes[5] = 0x00, bytes[6] = 0x00, bytes[7] = 0x78;  // = p
  try {
    (void)decode_pcs_proof(bytes);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("roots"), std::string::npos) << e.what();
  }
}
