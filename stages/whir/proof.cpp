#include "stages/whir/proof.hpp"

#include <fmt/format.h>

#include "runtime/error.hpp"

namespace vkstark {

WhirShape WhirShape::from(const SystemParams& p, std::vector<uint32_t> commitment_widths) {
  WhirShape s;
  s.m = p.log_stacked_height();
  s.log_blowup = p.log_blowup;
  s.k = p.whir.k;
  for (const WhirRound& r : p.whir.rounds) s.num_queries.push_back(r.num_queries);
  s.commitment_widths = std::move(commitment_widths);
  return s;
}

uint32_t WhirShape::total_width() const {
  uint32_t w = 0;
  for (uint32_t c : commitment_widths) w += c;
  return w;
}

void encode(const WhirProof& p, std::vector<uint8_t>& out) {
  ByteWriter w(out);
  w.f(p.mu_pow_witness);
  w.usize(p.sumcheck_polys.size());
  for (const auto& e : p.sumcheck_polys) {
    w.ef(e[0]);
    w.ef(e[1]);
  }
  w.usize(p.codeword_commits.size());
  for (const Digest& d : p.codeword_commits) w.digest(d);
  for (const Fp4& v : p.ood_values) w.ef(v);
  for (Fp v : p.folding_pow_witnesses) w.f(v);
  for (Fp v : p.query_phase_pow_witnesses) w.f(v);
  const size_t commits = p.initial_round_opened_rows.size();
  const size_t q0 = commits ? p.initial_round_opened_rows[0].size() : 0;
  w.usize(commits);
  w.usize(q0);
  if (q0 > 0) {
    w.usize(p.initial_round_merkle_proofs[0][0].size());
    const uint64_t group = p.rows_per_query();  // a commitment's width = values of one opened row
    for (size_t c = 0; c < commits; ++c) w.usize(p.initial_round_opened_rows[c][0].size() / group);
    for (const auto& c : p.initial_round_opened_rows)
      for (const auto& q : c)
        for (Fp v : q) w.f(v);
    for (const auto& c : p.initial_round_merkle_proofs)
      for (const auto& q : c)
        for (const Digest& d : q) w.digest(d);
  }
  for (const auto& r : p.codeword_opened_values) {
    w.usize(r.size());
    for (const auto& q : r)
      for (const Fp4& v : q) w.ef(v);
  }
  const bool has_paths = !p.codeword_merkle_proofs.empty() && q0 > 0 && !p.codeword_merkle_proofs[0].empty();
  w.usize(has_paths ? p.codeword_merkle_proofs[0][0].size() : 0);
  for (const auto& r : p.codeword_merkle_proofs)
    for (const auto& q : r)
      for (const Digest& d : q) w.digest(d);
  w.usize(p.final_poly.size());
  for (const Fp4& v : p.final_poly) w.ef(v);
}

namespace {
// A count the params fix (when the decoder knows their shape) or one the proof gives, checked against
// the bytes left either way: at least min_item_bytes follow per item.
uint64_t read_count(ByteReader& r, const FieldName& what, const WhirShape* shape, uint64_t want,
                    uint64_t min_item_bytes) {
  return shape ? r.expect(what, want, min_item_bytes) : r.count(what, min_item_bytes);
}
uint64_t read_value(ByteReader& r, const FieldName& what, const WhirShape* shape, uint64_t want) {
  return shape ? r.expect(what, want) : r.usize(what);
}
}  // namespace

WhirProof decode_whir_proof(ByteReader& r, const WhirShape* s) {
  WhirProof p;
  p.mu_pow_witness = r.f("WHIR proof: mu_pow_witness");
  const uint64_t n_sc = read_count(r, "WHIR proof: whir_sumcheck_polys length", s, s ? s->sumcheck_rounds() : 0, 32);
  // R k <= l_skip + n_stack for any supported params, which also bounds 2^k below.
  if (n_sc == 0 || n_sc > kMaxLogStackedHeight)
    r.fail("WHIR proof: whir_sumcheck_polys length",
           fmt::format("{} sumcheck rounds, supported params have 1..{}", n_sc, kMaxLogStackedHeight));
  p.sumcheck_polys.reserve(n_sc);
  for (uint64_t i = 0; i < n_sc; ++i) {
    const Fp4 s1 = r.ef({"WHIR proof: whir_sumcheck_polys[{}]", i});
    p.sumcheck_polys.push_back({s1, r.ef({"WHIR proof: whir_sumcheck_polys[{}]", i})});
  }
  const uint64_t n_commits = read_count(r, "WHIR proof: codeword_commits length", s, s ? s->rounds() - 1 : 0, 32);
  p.codeword_commits.reserve(n_commits);
  for (uint64_t i = 0; i < n_commits; ++i)
    p.codeword_commits.push_back(r.digest({"WHIR proof: codeword_commits[{}]", i}));
  // The reference derives R and k from these two counts (protocol.md 12.2).
  const uint64_t rounds = n_commits + 1;
  if (n_sc % rounds != 0)
    r.fail("WHIR proof: codeword_commits length",
           fmt::format("{} rounds do not divide the {} sumcheck rounds", rounds, n_sc));
  const uint64_t k = n_sc / rounds, group = uint64_t(1) << k;
  for (uint64_t i = 0; i + 1 < rounds; ++i) p.ood_values.push_back(r.ef({"WHIR proof: ood_values[{}]", i}));
  for (uint64_t i = 0; i < n_sc; ++i)
    p.folding_pow_witnesses.push_back(r.f({"WHIR proof: folding_pow_witnesses[{}]", i}));
  for (uint64_t i = 0; i < rounds; ++i)
    p.query_phase_pow_witnesses.push_back(r.f({"WHIR proof: query_phase_pow_witnesses[{}]", i}));

  // Round 0: every commitment's opened rows and Merkle paths. Each commitment has a width (4 bytes).
  const uint64_t commits =
      read_count(r, "WHIR proof: num_commits", s, s ? s->commitment_widths.size() : 0, /*its width*/ 4);
  if (commits == 0) r.fail("WHIR proof: num_commits", "0, a WHIR proof opens at least one commitment");
  const uint64_t q0 = read_value(r, "WHIR proof: initial_num_queries", s, s ? s->num_queries[0] : 0);
  // Supported params have a query in every round (protocol.md 3.2); the codec needs them to carry
  // the Merkle depths, so a proof without is not one of ours.
  if (q0 == 0) r.fail("WHIR proof: initial_num_queries", "0, every WHIR round has a query");
  const uint64_t depth0 = read_value(r, "WHIR proof: initial Merkle depth", s, s ? s->merkle_depth(0) : 0);
  std::vector<uint64_t> widths(commits);
  for (uint64_t c = 0; c < commits; ++c) {
    widths[c] = read_value(r, {"WHIR proof: width of commitment {}", c}, s, s ? s->commitment_widths[c] : 0);
    if (widths[c] == 0) r.fail({"WHIR proof: width of commitment {}", c}, "0, a commitment has a column at least");
  }
  p.initial_round_opened_rows.resize(commits);
  for (uint64_t c = 0; c < commits; ++c) {
    const uint64_t per_query = group * widths[c];  // < 2^24 * 2^32: no overflow
    r.require(q0, 4 * per_query, {"WHIR proof: opened rows of commitment {}", c});
    auto& rows = p.initial_round_opened_rows[c];
    rows.reserve(q0);
    for (uint64_t q = 0; q < q0; ++q) {
      std::vector<Fp> v(per_query);
      for (Fp& x : v) x = r.f({"WHIR proof: commitment {} query {} opened rows", c, q});
      rows.push_back(std::move(v));
    }
  }
  p.initial_round_merkle_proofs.resize(commits);
  for (uint64_t c = 0; c < commits; ++c) {
    r.require(q0, 32 * depth0, {"WHIR proof: Merkle paths of commitment {}", c});
    auto& paths = p.initial_round_merkle_proofs[c];
    paths.reserve(q0);
    for (uint64_t q = 0; q < q0; ++q) {
      std::vector<Digest> path(depth0);
      for (Digest& d : path) d = r.digest({"WHIR proof: commitment {} query {} Merkle path", c, q});
      paths.push_back(std::move(path));
    }
  }

  // Rounds 1..R-1: the previous round's codeword values, then all their Merkle paths.
  for (uint64_t i = 1; i < rounds; ++i) {
    const uint64_t nq =
        read_count(r, {"WHIR proof: round {} num_queries", i}, s, s ? s->num_queries[i] : 0, 16 * group);
    if (nq == 0) r.fail({"WHIR proof: round {} num_queries", i}, "0, every WHIR round has a query");
    std::vector<std::vector<Fp4>> round;
    round.reserve(nq);
    for (uint64_t q = 0; q < nq; ++q) {
      std::vector<Fp4> vals(group);
      for (Fp4& v : vals) v = r.ef({"WHIR proof: round {} query {} opened values", i, q});
      round.push_back(std::move(vals));
    }
    p.codeword_opened_values.push_back(std::move(round));
  }
  // Written as 0 with a single round; any other value there would be a second encoding of the same
  // proof (protocol.md 12.2).
  const uint64_t first_depth =
      read_value(r, "WHIR proof: first_merkle_depth", s, s && rounds > 1 ? s->merkle_depth(1) : 0);
  if (rounds == 1 && first_depth != 0)
    r.fail("WHIR proof: first_merkle_depth", fmt::format("{} with a single WHIR round, where it is 0", first_depth));
  if (rounds > 1 && first_depth + 2 < rounds)
    r.fail("WHIR proof: first_merkle_depth",
           fmt::format("{} is too small for {} rounds (one level less each round)", first_depth, rounds));
  for (uint64_t i = 1; i < rounds; ++i) {
    const uint64_t depth = first_depth - (i - 1), nq = p.codeword_opened_values[i - 1].size();
    r.require(nq, 32 * depth, {"WHIR proof: round {} Merkle paths", i});
    std::vector<std::vector<Digest>> round;
    round.reserve(nq);
    for (uint64_t q = 0; q < nq; ++q) {
      std::vector<Digest> path(depth);
      for (Digest& d : path) d = r.digest({"WHIR proof: round {} query {} Merkle path", i, q});
      round.push_back(std::move(path));
    }
    p.codeword_merkle_proofs.push_back(std::move(round));
  }
  const uint64_t n_final =
      read_count(r, "WHIR proof: final_poly length", s, s ? uint64_t(1) << s->log_final_poly_len() : 0, 16);
  p.final_poly.reserve(n_final);
  for (uint64_t i = 0; i < n_final; ++i) p.final_poly.push_back(r.ef({"WHIR proof: final_poly[{}]", i}));
  return p;
}

}  // namespace vkstark
