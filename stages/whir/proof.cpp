#include "stages/whir/proof.hpp"

#include <fmt/format.h>

#include "runtime/error.hpp"
#include "stages/codec.hpp"

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

WhirRegions WhirRegions::reserve(ProofLayout& layout, const WhirShape& s) {
  WhirRegions r;
  const uint32_t R = s.rounds(), group = 1u << s.k;
  r.mu_pow_witness = layout.add<Fp>("whir.mu_pow_witness", 1);
  r.sumcheck_polys = layout.add<Fp4>("whir.sumcheck_polys", 2ull * s.sumcheck_rounds());
  r.codeword_commits = layout.add<Digest>("whir.codeword_commits", R - 1);
  r.ood_values = layout.add<Fp4>("whir.ood_values", R - 1);
  r.folding_pow_witnesses = layout.add<Fp>("whir.folding_pow_witnesses", s.sumcheck_rounds());
  r.query_phase_pow_witnesses = layout.add<Fp>("whir.query_phase_pow_witnesses", R);
  for (size_t c = 0; c < s.commitment_widths.size(); ++c) {
    r.initial_rows.push_back(layout.add<Fp>(fmt::format("whir.initial_rows.{}", c),
                                            uint64_t(s.num_queries[0]) * group * s.commitment_widths[c]));
    r.initial_paths.push_back(
        layout.add<Digest>(fmt::format("whir.initial_paths.{}", c), uint64_t(s.num_queries[0]) * s.merkle_depth(0)));
  }
  for (uint32_t i = 1; i < R; ++i) {
    r.codeword_values.push_back(
        layout.add<Fp4>(fmt::format("whir.codeword_values.{}", i), uint64_t(s.num_queries[i]) * group));
    r.codeword_paths.push_back(
        layout.add<Digest>(fmt::format("whir.codeword_paths.{}", i), uint64_t(s.num_queries[i]) * s.merkle_depth(i)));
  }
  r.final_poly = layout.add<Fp4>("whir.final_poly", uint64_t(1) << s.log_final_poly_len());
  return r;
}

namespace {
template <class T>
std::vector<T> to_vec(std::span<const T> s) {
  return {s.begin(), s.end()};
}
template <class T>
std::vector<std::vector<T>> split(std::span<const T> s, uint64_t parts) {
  std::vector<std::vector<T>> out;
  const uint64_t each = parts ? s.size() / parts : 0;
  for (uint64_t i = 0; i < parts; ++i) out.emplace_back(s.begin() + i * each, s.begin() + (i + 1) * each);
  return out;
}
}  // namespace

WhirProof WhirRegions::decode(const ProofLayout& layout, std::span<const uint32_t> words, const WhirShape& s) const {
  WhirProof p;
  p.mu_pow_witness = layout.read(words, mu_pow_witness)[0];
  auto sc = layout.read(words, sumcheck_polys);
  for (size_t i = 0; i < sc.size() / 2; ++i) p.sumcheck_polys.push_back({sc[2 * i], sc[2 * i + 1]});
  p.codeword_commits = to_vec(layout.read(words, codeword_commits));
  p.ood_values = to_vec(layout.read(words, ood_values));
  p.folding_pow_witnesses = to_vec(layout.read(words, folding_pow_witnesses));
  p.query_phase_pow_witnesses = to_vec(layout.read(words, query_phase_pow_witnesses));
  for (size_t c = 0; c < initial_rows.size(); ++c) {
    p.initial_round_opened_rows.push_back(split(layout.read(words, initial_rows[c]), s.num_queries[0]));
    p.initial_round_merkle_proofs.push_back(split(layout.read(words, initial_paths[c]), s.num_queries[0]));
  }
  for (size_t i = 0; i < codeword_values.size(); ++i) {
    p.codeword_opened_values.push_back(split(layout.read(words, codeword_values[i]), s.num_queries[i + 1]));
    p.codeword_merkle_proofs.push_back(split(layout.read(words, codeword_paths[i]), s.num_queries[i + 1]));
  }
  p.final_poly = to_vec(layout.read(words, final_poly));
  return p;
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

WhirProof decode_whir_proof(std::span<const uint8_t> bytes, size_t& pos) {
  ByteReader r(bytes, pos);
  WhirProof p;
  p.mu_pow_witness = r.f("whir.mu_pow_witness");
  const uint64_t n_sc = r.count("whir.sumcheck_polys length", 32);
  for (uint64_t i = 0; i < n_sc; ++i)
    p.sumcheck_polys.push_back({r.ef("whir.sumcheck_polys"), r.ef("whir.sumcheck_polys")});
  const uint64_t n_commits = r.count("whir.codeword_commits length", 32);
  for (uint64_t i = 0; i < n_commits; ++i) p.codeword_commits.push_back(r.digest("whir.codeword_commits"));
  const uint64_t rounds = n_commits + 1;
  if (n_sc % rounds != 0)
    throw InputError(
        fmt::format("malformed proof: {} WHIR sumcheck rounds do not divide into {} rounds", n_sc, rounds));
  const uint64_t k = n_sc / rounds;
  if (k > 30) throw InputError(fmt::format("malformed proof: WHIR folding factor {} is too large", k));
  const uint64_t group = uint64_t(1) << k;
  for (uint64_t i = 0; i + 1 < rounds; ++i) p.ood_values.push_back(r.ef("whir.ood_values"));
  for (uint64_t i = 0; i < n_sc; ++i) p.folding_pow_witnesses.push_back(r.f("whir.folding_pow_witnesses"));
  for (uint64_t i = 0; i < rounds; ++i) p.query_phase_pow_witnesses.push_back(r.f("whir.query_phase_pow_witnesses"));
  const uint64_t commits = r.usize("whir.num_commits");
  if (commits == 0) throw InputError("malformed proof: WHIR opens no commitment (num_commits = 0)");
  const uint64_t q0 = r.usize("whir.initial_num_queries");
  p.initial_round_opened_rows.assign(commits, {});
  p.initial_round_merkle_proofs.assign(commits, {});
  if (q0 > 0) {
    const uint64_t depth = r.usize("whir.initial merkle depth");
    std::vector<uint64_t> widths;
    for (uint64_t c = 0; c < commits; ++c) widths.push_back(r.count("whir.initial row width", 4));
    for (uint64_t c = 0; c < commits; ++c) {
      if (q0 * group * widths[c] > r.remaining() / 4)
        throw InputError("truncated proof: whir.initial_round_opened_rows");
      for (uint64_t q = 0; q < q0; ++q) {
        std::vector<Fp> rows(group * widths[c]);
        for (Fp& v : rows) v = r.f("whir.initial_round_opened_rows");
        p.initial_round_opened_rows[c].push_back(std::move(rows));
      }
    }
    for (uint64_t c = 0; c < commits; ++c) {
      if (q0 * depth > r.remaining() / 32) throw InputError("truncated proof: whir.initial_round_merkle_proofs");
      for (uint64_t q = 0; q < q0; ++q) {
        std::vector<Digest> path(depth);
        for (Digest& d : path) d = r.digest("whir.initial_round_merkle_proofs");
        p.initial_round_merkle_proofs[c].push_back(std::move(path));
      }
    }
  }
  std::vector<uint64_t> queries;
  for (uint64_t i = 1; i < rounds; ++i) {
    const uint64_t nq = r.count("whir.codeword_opened_values length", 16 * group);
    queries.push_back(nq);
    std::vector<std::vector<Fp4>> round;
    for (uint64_t q = 0; q < nq; ++q) {
      std::vector<Fp4> vals(group);
      for (Fp4& v : vals) v = r.ef("whir.codeword_opened_values");
      round.push_back(std::move(vals));
    }
    p.codeword_opened_values.push_back(std::move(round));
  }
  const uint64_t first_depth = r.usize("whir.codeword merkle depth");
  for (uint64_t i = 1; i < rounds; ++i) {
    if (first_depth + 1 < i) throw InputError("malformed proof: WHIR codeword Merkle depth too small for the rounds");
    const uint64_t depth = first_depth - (i - 1);
    if (queries[i - 1] * depth > r.remaining() / 32) throw InputError("truncated proof: whir.codeword_merkle_proofs");
    std::vector<std::vector<Digest>> round;
    for (uint64_t q = 0; q < queries[i - 1]; ++q) {
      std::vector<Digest> path(depth);
      for (Digest& d : path) d = r.digest("whir.codeword_merkle_proofs");
      round.push_back(std::move(path));
    }
    p.codeword_merkle_proofs.push_back(std::move(round));
  }
  const uint64_t n_final = r.count("whir.final_poly length", 16);
  for (uint64_t i = 0; i < n_final; ++i) p.final_poly.push_back(r.ef("whir.final_poly"));
  return p;
}

}  // namespace vkstark
