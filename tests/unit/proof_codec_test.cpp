// The Proof of protocol.md 12 and its codec (CODEC_VERSION 3), from the parts' field lists
// (stages/encoding/fields.hpp): the shape of a proof as a function of the verifying key and the trace
// heights (protocol.md 8.1, 9.8, 10, 13 step 3); byte round trips with and without the shape; one
// canonical encoding (truncated, extended, wrong-version and padding-bit inputs rejected, naming
// the field); the shape check naming the field; the device regions of every part (reserved from
// the same field lists) reading back what was written; the keccakf proof size of protocol.md 12.2.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "runtime/graph.hpp"
#include "stages/encoding/regions.hpp"
#include "stages/proof/proof.hpp"

using namespace vkstark;

namespace {

// A verifying key with the widths, rotation and interaction counts proof_shape reads.
StarkVerifyingKey air_vk(uint32_t common, bool need_rot, uint32_t interactions, std::vector<uint32_t> cached = {},
                         std::optional<uint32_t> preprocessed = std::nullopt, uint32_t pvs = 0) {
  StarkVerifyingKey a;
  a.params.width.common_main = common;
  a.params.width.cached_mains = std::move(cached);
  a.params.width.preprocessed = preprocessed;
  a.params.need_rot = need_rot;
  a.params.num_public_values = pvs;
  a.symbolic_constraints.interactions.resize(interactions);
  return a;
}

struct Rng {
  std::mt19937_64 g;
  explicit Rng(uint64_t seed) : g(seed) {}
  Fp f() { return Fp::from_canonical_unchecked(uint32_t(g() % Fp::P)); }
  Fp4 ef() { return {f(), f(), f(), f()}; }
  Digest digest() {
    Digest d;
    for (Fp& x : d) x = f();
    return d;
  }
};

// A proof with random values in every field of the shape.
Proof random_proof(const MultiStarkVerifyingKey& vk, const std::vector<std::optional<uint32_t>>& heights,
                   const ProofShape& s, uint64_t seed) {
  Rng r(seed);
  Proof p;
  p.common_main_commit = r.digest();
  for (size_t a = 0; a < heights.size(); ++a) {
    if (!heights[a]) {
      p.trace_vdata.push_back(std::nullopt);
      p.public_values.emplace_back();
      continue;
    }
    TraceVData d{*heights[a], {}};
    for (size_t c = 0; c < vk.per_air[a].params.width.cached_mains.size(); ++c)
      d.cached_commitments.push_back(r.digest());
    p.trace_vdata.push_back(d);
    std::vector<Fp> pvs;
    for (uint32_t i = 0; i < vk.per_air[a].params.num_public_values; ++i) pvs.push_back(r.f());
    p.public_values.push_back(pvs);
  }
  GkrProof& g = p.gkr_proof;
  g.logup_pow_witness = r.f();
  g.q0_claim = r.ef();
  for (uint32_t j = 1; j <= s.gkr.layers; ++j) g.claims_per_layer.push_back({r.ef(), r.ef(), r.ef(), r.ef()});
  for (uint32_t j = 2; j <= s.gkr.layers; ++j) {
    g.sumcheck_polys.emplace_back();
    for (uint32_t i = 0; i + 1 < j; ++i) g.sumcheck_polys.back().push_back({r.ef(), r.ef(), r.ef()});
  }
  BatchConstraintProof& b = p.batch_constraint_proof;
  for (uint32_t t = 0; t < s.batch.traces; ++t) {
    b.numerator_term_per_air.push_back(r.ef());
    b.denominator_term_per_air.push_back(r.ef());
  }
  for (uint32_t i = 0; i < s.batch.round0_coeffs; ++i) b.univariate_round_coeffs.push_back(r.ef());
  for (uint32_t j = 0; j < s.batch.n_max; ++j) {
    b.sumcheck_round_polys.emplace_back();
    for (uint32_t i = 0; i < s.batch.round_evals; ++i) b.sumcheck_round_polys.back().push_back(r.ef());
  }
  for (const auto& parts : s.batch.opening_counts) {
    b.column_openings.emplace_back();
    for (uint32_t n : parts) {
      b.column_openings.back().emplace_back();
      for (uint32_t i = 0; i < n; ++i) b.column_openings.back().back().push_back(r.ef());
    }
  }
  StackingProof& st = p.stacking_proof;
  for (uint32_t i = 0; i < s.stacking.round0_coeffs; ++i) st.univariate_round_coeffs.push_back(r.ef());
  for (uint32_t j = 0; j < s.stacking.rounds; ++j) st.sumcheck_round_polys.push_back({r.ef(), r.ef()});
  for (uint32_t w : s.stacking.widths) {
    st.stacking_openings.emplace_back();
    for (uint32_t i = 0; i < w; ++i) st.stacking_openings.back().push_back(r.ef());
  }
  WhirProof& w = p.whir_proof;
  const WhirShape& ws = s.whir;
  const uint32_t group = 1u << ws.k;
  w.mu_pow_witness = r.f();
  for (uint32_t i = 0; i < ws.sumcheck_rounds(); ++i) {
    w.sumcheck_polys.push_back({r.ef(), r.ef()});
    w.folding_pow_witnesses.push_back(r.f());
  }
  for (uint32_t i = 0; i + 1 < ws.rounds(); ++i) {
    w.codeword_commits.push_back(r.digest());
    w.ood_values.push_back(r.ef());
  }
  for (uint32_t i = 0; i < ws.rounds(); ++i) w.query_phase_pow_witnesses.push_back(r.f());
  for (uint32_t width : ws.commitment_widths) {
    w.initial_round_opened_rows.emplace_back();
    w.initial_round_merkle_proofs.emplace_back();
    for (uint32_t q = 0; q < ws.num_queries[0]; ++q) {
      std::vector<Fp> row(size_t(group) * width);
      for (Fp& x : row) x = r.f();
      w.initial_round_opened_rows.back().push_back(row);
      std::vector<Digest> path(ws.merkle_depth(0));
      for (Digest& d : path) d = r.digest();
      w.initial_round_merkle_proofs.back().push_back(path);
    }
  }
  for (uint32_t i = 1; i < ws.rounds(); ++i) {
    w.codeword_opened_values.emplace_back();
    w.codeword_merkle_proofs.emplace_back();
    for (uint32_t q = 0; q < ws.num_queries[i]; ++q) {
      std::vector<Fp4> vals(group);
      for (Fp4& x : vals) x = r.ef();
      w.codeword_opened_values.back().push_back(vals);
      std::vector<Digest> path(ws.merkle_depth(i));
      for (Digest& d : path) d = r.digest();
      w.codeword_merkle_proofs.back().push_back(path);
    }
  }
  for (uint64_t i = 0; i < (uint64_t(1) << ws.log_final_poly_len()); ++i) w.final_poly.push_back(r.ef());
  return p;
}

// Three AIRs: an interaction AIR (cached part, public values), an absent one, a lifted short one
// with a preprocessed part and rotation.
struct Mixed {
  MultiStarkVerifyingKey vk;
  std::vector<std::optional<uint32_t>> heights;
  ProofShape shape;
  Mixed() {
    vk.params = default_test_params_small();  // l_skip 2, n_stack 8
    vk.per_air.push_back(air_vk(3, false, 2, {1}, std::nullopt, 2));
    vk.per_air.push_back(air_vk(5, true, 0));
    vk.per_air.push_back(air_vk(2, true, 1, {}, 1, 3));
    heights = {5, std::nullopt, 1};
    shape = proof_shape(vk, heights);
  }
};

}  // namespace

TEST(ProofShape, FollowsTheVerifyingKeyAndTheTraceHeights) {
  Mixed m;
  const ProofShape& s = m.shape;
  EXPECT_EQ(s.order, (std::vector<uint32_t>{0, 2}));
  // Slots of 2^max(h, l): 2 x 32 for AIR 0, then 1 x 4 for AIR 2 (h = 1 < l = 2): 68 -> bitlen 7.
  EXPECT_EQ(s.logup.total_interactions, 68u);
  EXPECT_EQ(s.logup.n_logup, 5u);
  EXPECT_EQ(s.logup.row_start, (std::vector<std::vector<uint64_t>>{{0, 32}, {64}}));
  EXPECT_EQ(s.gkr.layers, 7u);
  EXPECT_EQ(s.batch.traces, 2u);
  EXPECT_EQ(s.batch.round0_coeffs, 4u * 3 + 1);
  EXPECT_EQ(s.batch.n_max, 3u);
  EXPECT_EQ(s.batch.round_evals, 4u);
  EXPECT_EQ(s.batch.opening_counts, (std::vector<std::vector<uint32_t>>{{3, 1}, {4, 2}}));
  EXPECT_EQ(s.stacking.round0_coeffs, 7u);
  EXPECT_EQ(s.stacking.rounds, 8u);
  // Common main (3 x 32 + 2 x 4 rows in one 1024-row column), AIR 0's cached part, AIR 2's preprocessed.
  EXPECT_EQ(s.stacking.widths, (std::vector<uint32_t>{1, 1, 1}));
  EXPECT_EQ(s.whir.commitment_widths, s.stacking.widths);
}

TEST(ProofShape, NLogupOfTheInteractionsFixtureIsTheKnownAnswer) {
  // protocol.md 16.2: heights 4 and 8, one interaction each: l = 2 -> n_logup 2; l = 4 -> n_logup 2.
  for (uint32_t l : {2u, 4u}) {
    MultiStarkVerifyingKey vk;
    vk.params = test_system_params_small(l, 8, 3);
    vk.per_air = {air_vk(2, false, 1), air_vk(2, false, 1)};
    const std::vector<std::optional<uint32_t>> heights{2, 3};
    const ProofShape s = proof_shape(vk, heights);
    EXPECT_EQ(s.logup.total_interactions, l == 2 ? 12u : 32u);
    EXPECT_EQ(s.logup.n_logup, 2u) << "l = " << l;
    EXPECT_EQ(s.order, (std::vector<uint32_t>{1, 0}));
  }
}

TEST(ProofShape, RejectsTooTallTracesAndTooManyStackedColumns) {
  Mixed m;
  m.heights[0] = 11;  // l_skip + n_stack = 10
  EXPECT_THROW((void)proof_shape(m.vk, m.heights), InputError);
  MultiStarkVerifyingKey vk;
  vk.params = default_test_params_small();
  vk.params.w_stack = 2;
  vk.per_air = {air_vk(3000, false, 0)};  // 3000 x 2^10 rows: 3 stacked columns of 2^10
  const std::vector<std::optional<uint32_t>> heights{10};
  EXPECT_THROW((void)proof_shape(vk, heights), InputError);
}

TEST(ProofCodec, RoundTripsWithAndWithoutTheShape) {
  Mixed m;
  const Proof p = random_proof(m.vk, m.heights, m.shape, 1);
  const std::vector<uint8_t> bytes = encode(p);
  EXPECT_EQ(decode_proof(bytes), p);
  EXPECT_EQ(decode_proof(bytes, m.vk), p);
  EXPECT_EQ(proof_shape_problem(p, m.shape), "");
}

TEST(ProofCodec, EveryTruncationAndAnExtraByteAreRejected) {
  Mixed m;
  const std::vector<uint8_t> bytes = encode(random_proof(m.vk, m.heights, m.shape, 2));
  for (size_t n = 0; n < bytes.size(); n += 7) {
    std::span<const uint8_t> cut(bytes.data(), n);
    EXPECT_THROW((void)decode_proof(cut), DecodeError) << n;
    EXPECT_THROW((void)decode_proof(cut, m.vk), DecodeError) << n;
  }
  std::vector<uint8_t> longer = bytes;
  longer.push_back(0);
  EXPECT_THROW((void)decode_proof(longer), DecodeError);
}

TEST(ProofCodec, RejectsAWrongVersionPaddingBitsAndValuesAboveP) {
  Mixed m;
  const std::vector<uint8_t> bytes = encode(random_proof(m.vk, m.heights, m.shape, 3));
  auto error_of = [&](std::vector<uint8_t> b) {
    try {
      (void)decode_proof(b, m.vk);
    } catch (const DecodeError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  std::vector<uint8_t> b = bytes;
  b[0] = 2;
  EXPECT_EQ(error_of(b), "proof: codec version: 2, expected 3");
  b = bytes;
  b[4 + 32 + 4] |= 0x80;  // bit 7 of the bitmap: 3 AIRs
  EXPECT_EQ(error_of(b), "proof: presence bitmap: padding bits are set");
  b = bytes;
  for (int i = 0; i < 4; ++i) b[4 + i] = 0xff;  // common_main_commit[0]
  EXPECT_NE(error_of(b).find("proof: common_main_commit: 4294967295 is not a field element"), std::string::npos);
  b = bytes;
  b[4 + 32 + 4 + 1] = 11;  // AIR 0's log_height: above l_skip + n_stack = 10
  EXPECT_EQ(error_of(b), "proof: AIR 0 log_height: 11 exceeds l_skip + n_stack = 10");
}

TEST(ProofCodec, AHugeCountFailsBeforeAllocatingNamingTheField) {
  Mixed m;
  const std::vector<uint8_t> bytes = encode(random_proof(m.vk, m.heights, m.shape, 4));
  // Header: version 4, commit 32, num_airs 4, bitmap 1; AIR 0: log_height 4, cached count 4, one
  // digest 32; AIR 2: 4 + 4; public values: 4, then 4 + 2 x 4, 4, 4 + 3 x 4. Then the GKR witness
  // (4) and q0 (16): the layer count.
  const size_t at = 41 + 40 + 8 + 4 + 12 + 4 + 16 + 4 + 16;
  ASSERT_EQ(bytes[at], m.shape.gkr.layers);
  std::vector<uint8_t> b = bytes;
  for (int i = 0; i < 4; ++i) b[at + i] = 0xff;
  try {
    (void)decode_proof(b);
    FAIL() << "accepted";
  } catch (const DecodeError& e) {
    EXPECT_NE(std::string(e.what()).find("GKR proof: claims_per_layer length: 4294967295 items of 64 bytes"),
              std::string::npos)
        << e.what();
  }
  try {
    (void)decode_proof(b, m.vk);
    FAIL() << "accepted";
  } catch (const DecodeError& e) {
    EXPECT_EQ(std::string(e.what()), "GKR proof: claims_per_layer length: 4294967295, expected 7");
  }
}

TEST(ProofCodec, ShapeProblemNamesTheField) {
  Mixed m;
  Proof p = random_proof(m.vk, m.heights, m.shape, 5);
  Proof q = p;
  q.gkr_proof.sumcheck_polys[3].pop_back();
  EXPECT_EQ(proof_shape_problem(q, m.shape), "GKR proof: layer 5 sumcheck_polys: 3 entries, expected 4");
  q = p;
  q.batch_constraint_proof.column_openings[1][1].push_back(Fp4());
  EXPECT_EQ(proof_shape_problem(q, m.shape), "batch constraint proof: trace 1 part 1 openings length: 3, expected 2");
  q = p;
  q.stacking_proof.stacking_openings.pop_back();
  EXPECT_EQ(proof_shape_problem(q, m.shape), "stacking proof: num_commits: 2, expected 3");
  q = p;
  q.whir_proof.initial_round_opened_rows[2][0].pop_back();
  EXPECT_EQ(proof_shape_problem(q, m.shape),
            "WHIR proof: width of commitment 2: 0, expected 1");  // the width is read off the first row
  q = p;
  q.whir_proof.initial_round_opened_rows[2][3].pop_back();
  EXPECT_EQ(proof_shape_problem(q, m.shape), "WHIR proof: commitment 2 query 3 opened rows: 7 entries, expected 8");
}

// The device regions of every part, reserved from the field lists, read back what was written
// where view() says each field lives.
TEST(ProofRegions, ReadBackWhatWasWrittenAtEachFieldsView) {
  Mixed m;
  const ProofShape& s = m.shape;
  Graph g;
  ProofLayout layout;
  auto gkr = PartRegions<GkrProof>::reserve(layout, [x = s.gkr](auto& v, GkrProof& p) { gkr_fields(v, p, &x); });
  auto batch = PartRegions<BatchConstraintProof>::reserve(
      layout, [x = s.batch](auto& v, BatchConstraintProof& p) { batch_constraint_fields(v, p, &x); });
  auto stacking = PartRegions<StackingProof>::reserve(
      layout, [x = s.stacking](auto& v, StackingProof& p) { stacking_fields(v, p, &x); });
  layout.create_buffer(g);
  const Proof p = random_proof(m.vk, m.heights, s, 6);
  std::vector<uint32_t> words(layout.total_words());
  auto put = [&](auto view, const auto* data, size_t n) {
    ASSERT_EQ(view.count, n);
    std::memcpy(static_cast<void*>(words.data() + view.byte_offset() / 4), data, n * sizeof(*data));
  };
  const GkrProof& gp = p.gkr_proof;
  put(gkr.view(layout, gkr.proto().logup_pow_witness), &gp.logup_pow_witness, 1);
  put(gkr.view(layout, gkr.proto().q0_claim), &gp.q0_claim, 1);
  put(gkr.view(layout, gkr.proto().claims_per_layer), &gp.claims_per_layer[0].p_xi_0, 4 * gp.claims_per_layer.size());
  // The sub-rounds of all layers, one after the other: one view.
  std::vector<Fp4> rounds;
  for (const auto& layer : gp.sumcheck_polys)
    for (const auto& e : layer) rounds.insert(rounds.end(), e.begin(), e.end());
  put(gkr.view(layout, gkr.proto().sumcheck_polys), rounds.data(), rounds.size());
  const BatchConstraintProof& bp = p.batch_constraint_proof;
  put(batch.view(layout, batch.proto().numerator_term_per_air), bp.numerator_term_per_air.data(), 2);
  put(batch.view(layout, batch.proto().denominator_term_per_air), bp.denominator_term_per_air.data(), 2);
  put(batch.view(layout, batch.proto().univariate_round_coeffs), bp.univariate_round_coeffs.data(), 13);
  std::vector<Fp4> mle;
  for (const auto& r : bp.sumcheck_round_polys) mle.insert(mle.end(), r.begin(), r.end());
  put(batch.view(layout, batch.proto().sumcheck_round_polys), mle.data(), mle.size());
  for (size_t t = 0; t < 2; ++t)
    for (size_t q = 0; q < 2; ++q)
      put(batch.view(layout, batch.proto().column_openings[t][q]), bp.column_openings[t][q].data(),
          bp.column_openings[t][q].size());
  const StackingProof& sp = p.stacking_proof;
  put(stacking.view(layout, stacking.proto().univariate_round_coeffs), sp.univariate_round_coeffs.data(), 7);
  put(stacking.view(layout, stacking.proto().sumcheck_round_polys), &sp.sumcheck_round_polys[0][0], 16);
  EXPECT_EQ(stacking.view(layout, stacking.proto().stacking_openings).count, 3u);  // the commitments' lists in a row
  put(stacking.view(layout, stacking.proto().stacking_openings[0]), &sp.stacking_openings[0][0], 1);
  put(stacking.view(layout, stacking.proto().stacking_openings[2]), &sp.stacking_openings[2][0], 1);
  put(stacking.view(layout, stacking.proto().stacking_openings[1]), &sp.stacking_openings[1][0], 1);
  EXPECT_EQ(gkr.decode(words), gp);
  EXPECT_EQ(batch.decode(words), bp);
  EXPECT_EQ(stacking.decode(words), sp);
}

TEST(ProofCodec, KeccakfProofHasTheSizeOfProtocolSection12) {
  // One AIR of 2633 columns, 2^15 rows, rotations, no interactions, app params(21): 859,137 bytes.
  MultiStarkVerifyingKey vk;
  vk.params = app_params_with_100_bits_security(21);
  vk.per_air = {air_vk(2633, true, 0)};
  const std::vector<std::optional<uint32_t>> heights{15};
  const ProofShape s = proof_shape(vk, heights);
  EXPECT_EQ(s.stacking.widths, (std::vector<uint32_t>{42}));
  EXPECT_EQ(encode(random_proof(vk, heights, s, 7)).size(), 859137u);
}
