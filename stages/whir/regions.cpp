// WhirRegions (proof.hpp): the WHIR proof's place in the device proof buffer, and reading it back.
// Apart from proof.cpp, whose byte codec needs no runtime (the fuzz targets build it alone).
#include "stages/whir/proof.hpp"

#include <fmt/format.h>

#include "runtime/error.hpp"

namespace vkstark {

WhirRegions WhirRegions::reserve(ProofLayout& layout, const WhirShape& s) {
  // params.validate() rejects such shapes; without the check num_queries[0] would be read past the end.
  if (s.rounds() == 0) throw InputError("WHIR proof layout: no WHIR round");
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

}  // namespace vkstark
