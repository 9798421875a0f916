// The WHIR opening proof (protocol.md 12.1 WhirProof), its shape as a function of the parameters,
// its place in the device proof buffer, and its byte encoding (12.2). Value types.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "kernels/hash/hash.hpp"
#include "kernels/types.hpp"
#include "stages/common/params.hpp"
#include "stages/encoding/codec.hpp"
#include "stages/encoding/fields.hpp"

namespace vkstark {

// Everything the sizes of a WHIR proof depend on.
struct WhirShape {
  uint32_t m = 0;  // log2 of the stacked height (l_skip + n_stack)
  uint32_t log_blowup = 1;
  uint32_t k = 1;
  std::vector<uint32_t> num_queries;        // per round
  std::vector<uint32_t> commitment_widths;  // stacked width of each commitment, in order

  static WhirShape from(const SystemParams& p, std::vector<uint32_t> commitment_widths);
  uint32_t rounds() const { return static_cast<uint32_t>(num_queries.size()); }
  uint32_t sumcheck_rounds() const { return rounds() * k; }
  uint32_t log_final_poly_len() const { return m - sumcheck_rounds(); }
  uint32_t total_width() const;
  // Merkle path length of the codeword queried in round i (round 0: the initial commitments).
  uint32_t merkle_depth(uint32_t round) const { return m + log_blowup - k - round; }
};

struct WhirProof {
  Fp mu_pow_witness;
  std::vector<std::array<Fp4, 2>> sumcheck_polys;  // R k evaluations s(1), s(2)
  std::vector<Digest> codeword_commits;            // R - 1
  std::vector<Fp4> ood_values;                     // R - 1
  std::vector<Fp> folding_pow_witnesses;           // R k
  std::vector<Fp> query_phase_pow_witnesses;       // R
  // [commitment][query][t * width + column]
  std::vector<std::vector<std::vector<Fp>>> initial_round_opened_rows;
  std::vector<std::vector<std::vector<Digest>>> initial_round_merkle_proofs;  // [commitment][query][level]
  std::vector<std::vector<std::vector<Fp4>>> codeword_opened_values;          // [round - 1][query][t]
  std::vector<std::vector<std::vector<Digest>>> codeword_merkle_proofs;       // [round - 1][query][level]
  std::vector<Fp4> final_poly;

  // 2^k rows per query, with k = sumcheck rounds / WHIR rounds.
  uint64_t rows_per_query() const {
    return query_phase_pow_witnesses.empty()
               ? 1
               : uint64_t(1) << (sumcheck_polys.size() / query_phase_pow_witnesses.size());
  }
  bool operator==(const WhirProof&) const = default;
};

// The WhirProof's one field list (stages/encoding/fields.hpp), in the encoding order of protocol.md
// 12.2. With a shape every count is the shape's; without one the counts come from the proof and are
// checked against each other and what supported params allow (1..24 sumcheck rounds, a query in
// every round, no zero width): the reference derives R = |codeword_commits| + 1 and k = n_sc / R.
template <class V>
void whir_fields(V& v, WhirProof& p, const WhirShape* s) {
  v.value("WHIR proof: mu_pow_witness", p.mu_pow_witness);
  const uint64_t n_sc = v.count(
      "WHIR proof: whir_sumcheck_polys length", [&] { return p.sumcheck_polys.size(); },
      want(s, [&] { return s->sumcheck_rounds(); }), 32);
  // R k <= l_skip + n_stack for any supported params, which also bounds 2^k below.
  v.require(n_sc > 0 && n_sc <= kMaxLogStackedHeight, "WHIR proof: whir_sumcheck_polys length",
            fmt::format("{} sumcheck rounds, supported params have 1..{}", n_sc, kMaxLogStackedHeight));
  v.list("WHIR proof: whir_sumcheck_polys", "WHIR proof: whir_sumcheck_polys[{}]", p.sumcheck_polys, n_sc);
  const uint64_t n_commits = v.count(
      "WHIR proof: codeword_commits length", [&] { return p.codeword_commits.size(); },
      want(s, [&] { return s->rounds() - 1; }), 32);
  v.list("WHIR proof: codeword_commits", "WHIR proof: codeword_commits[{}]", p.codeword_commits, n_commits);
  const uint64_t rounds = n_commits + 1;
  v.require(n_sc % rounds == 0, "WHIR proof: codeword_commits length",
            fmt::format("{} rounds do not divide the {} sumcheck rounds", rounds, n_sc));
  const uint64_t k = n_sc / rounds, group = uint64_t(1) << k;
  v.list("WHIR proof: ood_values", "WHIR proof: ood_values[{}]", p.ood_values, rounds - 1);
  v.list("WHIR proof: folding_pow_witnesses", "WHIR proof: folding_pow_witnesses[{}]", p.folding_pow_witnesses, n_sc);
  v.list("WHIR proof: query_phase_pow_witnesses", "WHIR proof: query_phase_pow_witnesses[{}]",
         p.query_phase_pow_witnesses, rounds);

  // Round 0: every commitment's opened rows and Merkle paths. Each commitment has a width (4 bytes).
  auto& rows = p.initial_round_opened_rows;
  auto& paths = p.initial_round_merkle_proofs;
  const uint64_t commits = v.count(
      "WHIR proof: num_commits", [&] { return rows.size(); }, want(s, [&] { return s->commitment_widths.size(); }), 4);
  v.require(commits > 0, "WHIR proof: num_commits", "0, a WHIR proof opens at least one commitment");
  // Supported params have a query in every round (protocol.md 3.2); the codec needs them to carry
  // the Merkle depths, so a proof without is not one of ours.
  const uint64_t q0 = v.count(
      "WHIR proof: initial_num_queries", [&] { return rows.empty() ? 0 : rows[0].size(); },
      want(s, [&] { return s->num_queries[0]; }), 0);
  v.require(q0 > 0, "WHIR proof: initial_num_queries", "0, every WHIR round has a query");
  const uint64_t depth0 = v.count(
      "WHIR proof: initial Merkle depth", [&] { return paths.empty() || paths[0].empty() ? 0 : paths[0][0].size(); },
      want(s, [&] { return s->merkle_depth(0); }), 0);
  std::vector<uint64_t> widths(commits);
  for (uint64_t c = 0; c < commits; ++c) {
    widths[c] = v.count(
        {"WHIR proof: width of commitment {}", c},
        [&] { return c >= rows.size() || rows[c].empty() ? 0 : rows[c][0].size() / group; },
        want(s, [&] { return s->commitment_widths[c]; }), 0);
    v.require(widths[c] > 0, {"WHIR proof: width of commitment {}", c}, "0, a commitment has a column at least");
  }
  v.outer("WHIR proof: initial_round_opened_rows", rows, commits);
  for (uint64_t c = 0; c < commits; ++c)  // < 2^24 * 2^32 values a row: no overflow
    v.table({"WHIR proof: opened rows of commitment {}", c}, {"WHIR proof: commitment {} query {} opened rows", c},
            proof_item(rows, c), q0, group * widths[c]);
  v.outer("WHIR proof: initial_round_merkle_proofs", paths, commits);
  for (uint64_t c = 0; c < commits; ++c)
    v.table({"WHIR proof: Merkle paths of commitment {}", c}, {"WHIR proof: commitment {} query {} Merkle path", c},
            proof_item(paths, c), q0, depth0);

  // Rounds 1..R-1: the previous round's codeword values, then all their Merkle paths.
  auto& values = p.codeword_opened_values;
  auto& cw_paths = p.codeword_merkle_proofs;
  v.outer("WHIR proof: codeword_opened_values", values, rounds - 1);
  std::vector<uint64_t> nq(rounds, q0);
  for (uint64_t i = 1; i < rounds; ++i) {
    nq[i] = v.count(
        {"WHIR proof: round {} num_queries", i}, [&] { return proof_item(values, i - 1).size(); },
        want(s, [&] { return s->num_queries[i]; }), 16 * group);
    v.require(nq[i] > 0, {"WHIR proof: round {} num_queries", i}, "0, every WHIR round has a query");
    v.table({"WHIR proof: round {} opened values", i}, {"WHIR proof: round {} query {} opened values", i},
            proof_item(values, i - 1), nq[i], group);
  }
  // Written as 0 with a single round; any other value there would be a second encoding of the same
  // proof (protocol.md 12.2).
  const uint64_t first_depth = v.count(
      "WHIR proof: first_merkle_depth",
      [&] { return cw_paths.empty() || cw_paths[0].empty() ? 0 : cw_paths[0][0].size(); },
      want(s, [&] { return rounds > 1 ? s->merkle_depth(1) : 0; }), 0);
  v.require(rounds > 1 || first_depth == 0, "WHIR proof: first_merkle_depth",
            fmt::format("{} with a single WHIR round, where it is 0", first_depth));
  v.require(rounds == 1 || first_depth + 2 >= rounds, "WHIR proof: first_merkle_depth",
            fmt::format("{} is too small for {} rounds (one level less each round)", first_depth, rounds));
  v.outer("WHIR proof: codeword_merkle_proofs", cw_paths, rounds - 1);
  for (uint64_t i = 1; i < rounds; ++i)
    v.table({"WHIR proof: round {} Merkle paths", i}, {"WHIR proof: round {} query {} Merkle path", i},
            proof_item(cw_paths, i - 1), nq[i], first_depth - (i - 1));
  const uint64_t n_final = v.count(
      "WHIR proof: final_poly length", [&] { return p.final_poly.size(); },
      want(s, [&] { return uint64_t(1) << s->log_final_poly_len(); }), 16);
  v.list("WHIR proof: final_poly", "WHIR proof: final_poly[{}]", p.final_poly, n_final);
}

// Byte encoding of protocol.md 12.2 (the WhirProof part). InputError for a proof inconsistent in
// itself (a list shorter than its count says).
void encode(const WhirProof& proof, std::vector<uint8_t>& out);
// Decodes the WhirProof part at the reader's position and advances it. With `expected` (the shape
// the params and the commitments' widths give), every count must equal the shape's; without it,
// counts are checked against the bytes left and one another only (whir_fields). Either way nothing
// is allocated for a count before the bytes left are known to hold it, and the bytes accepted are
// the one canonical encoding of the result. DecodeError naming the field otherwise.
WhirProof decode_whir_proof(ByteReader& reader, const WhirShape* expected = nullptr);
// The first way the proof's sizes differ from the shape ("" if none).
std::string whir_shape_problem(const WhirProof& proof, const WhirShape& shape);
}  // namespace vkstark
