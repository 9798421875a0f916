#include "stages/whir/verify.hpp"

#include <fmt/format.h>
#include <tbb/parallel_for.h>

#include "stages/common/poly.hpp"
#include "stages/pcs/merkle_verify.hpp"

namespace vkstark {

Fp4 binary_k_fold(std::vector<Fp4> vals, std::span<const Fp4> alphas, Fp x) {
  const size_t k = alphas.size();
  const Fp w = two_adic_generator(static_cast<uint32_t>(k));
  Fp xp = x;  // x^(2^j)
  for (size_t j = 0; j < k; ++j) {
    const size_t h = size_t(1) << (k - j - 1);
    const Fp wj = w.pow(uint64_t(1) << j);  // w_k^(2^j)
    Fp wi = Fp::one();
    for (size_t i = 0; i < h; ++i) {
      const Fp X = wi * xp;
      const Fp inv_2x = (X + X).inverse();
      vals[i] = vals[i] + (alphas[j] - Fp4(X)) * (vals[i] - vals[i + h]) * inv_2x;
      wi *= wj;
    }
    xp = xp.square();
  }
  return vals[0];
}

namespace {

// Every count of the proof against the shape the parameters give (whir_fields), and the statement's.
VerifyResult check_shape(const WhirProof& p, const WhirShape& s, const WhirStatement& st) {
  if (std::string problem = whir_shape_problem(p, s); !problem.empty())
    return VerifyResult::reject(WhirReject::Shape, "WHIR proof shape: " + problem);
  auto bad = [](WhirReject code, std::string what, size_t got, size_t want) {
    return VerifyResult::reject(code, fmt::format("WHIR statement: {} has {} entries, expected {}", what, got, want));
  };
  if (st.u_cube.size() != s.m) return bad(WhirReject::StatementPoint, "opening point", st.u_cube.size(), s.m);
  if (st.openings.size() != s.total_width())
    return bad(WhirReject::StatementOpenings, "stacking openings", st.openings.size(), s.total_width());
  return VerifyResult::accept();
}

}  // namespace

namespace {

// The verifier's side of one WHIR run, round by round as the prover's WhirProver
// (stages/whir/prover.cpp): batch_and_weights, then per round k sumcheck rounds, commit_or_finish
// and queries; then the final check of the claim against the final polynomial.
class WhirVerifier {
 public:
  WhirVerifier(DuplexSponge& t, const WhirProof& p, const SystemParams& params, const WhirStatement& st,
               const WhirShape& s)
      : t_(t), p_(p), params_(params), st_(st), s_(s), k_(s.k), zs_(s.rounds()) {}

  VerifyResult run() {
    if (VerifyResult v = batch_and_weights(); !v) return v;
    log_rs_ = s_.m + s_.log_blowup;
    for (uint32_t round = 0; round < s_.rounds(); ++round) {
      for (uint32_t s = 0; s < k_; ++s)
        if (VerifyResult v = sumcheck_round(round, s); !v) return v;
      commit_or_finish(round);
      if (VerifyResult v = queries(round); !v) return v;
      --log_rs_;
    }
    return final_check();
  }

 private:
  // mu and the batched claim sum_i mu^i opening_i.
  VerifyResult batch_and_weights() {
    if (!t_.check_witness(params_.whir.mu_pow_bits, p_.mu_pow_witness))
      return VerifyResult::reject(WhirReject::MuPow, "WHIR: mu_pow_witness fails proof of work");
    const Fp4 mu = t_.sample_ext();
    mu_pows_.resize(s_.total_width());
    Fp4 pw = Fp4::one();
    for (size_t i = 0; i < mu_pows_.size(); ++i, pw *= mu) {
      mu_pows_[i] = pw;
      claim_ += pw * st_.openings[i];
    }
    return VerifyResult::accept();
  }

  // s(1), s(2) observed, the folding grind, alpha; the claim becomes s(alpha).
  VerifyResult sumcheck_round(uint32_t round, uint32_t s) {
    const uint32_t idx = round * k_ + s;
    const auto& [v1, v2] = p_.sumcheck_polys[idx];
    t_.observe_ext(v1);
    t_.observe_ext(v2);
    if (!t_.check_witness(params_.whir.folding_pow_bits, p_.folding_pow_witnesses[idx]))
      return VerifyResult::reject(WhirReject::FoldingPow,
                                  fmt::format("WHIR: folding_pow_witnesses[{}] fails proof of work", idx));
    alphas_.push_back(t_.sample_ext());
    claim_ = interpolate_quadratic(claim_ - v1, v1, v2, alphas_.back());
    return VerifyResult::accept();
  }

  // The codeword's root, z0 and g(z0) observed; the last round: the final polynomial.
  void commit_or_finish(uint32_t round) {
    if (round + 1 == s_.rounds()) {
      for (const Fp4& c : p_.final_poly) t_.observe_ext(c);
      return;
    }
    t_.observe_commit(p_.codeword_commits[round]);
    z0s_.push_back(t_.sample_ext());
    t_.observe_ext(p_.ood_values[round]);
  }

  // The query grind, the query indices, the openings against their commitments, gamma; the claim
  // takes gamma y0 and gamma^(q+2) of each query's folded value.
  VerifyResult queries(uint32_t round) {
    if (!t_.check_witness(params_.whir.query_phase_pow_bits, p_.query_phase_pow_witnesses[round]))
      return VerifyResult::reject(WhirReject::QueryPow,
                                  fmt::format("WHIR: query_phase_pow_witnesses[{}] fails proof of work", round));
    const uint32_t nq = s_.num_queries[round], group = 1u << k_;
    // The transcript samples every index first (nothing else touches it until gamma); the Merkle
    // openings are then hashed and checked for all queries at once (batched permutations).
    std::vector<uint64_t> idx(nq);
    for (uint32_t q = 0; q < nq; ++q) idx[q] = t_.sample_bits(log_rs_ - k_);
    std::vector<std::vector<Fp4>> vals(nq, std::vector<Fp4>(group));
    if (VerifyResult v = round == 0 ? open_initial(idx, vals) : open_codeword(round, idx, vals); !v) return v;
    const Fp root_gen = two_adic_generator(log_rs_);
    std::vector<Fp4> ys(nq);
    zs_[round].resize(nq);
    tbb::parallel_for(uint32_t(0), nq, [&](uint32_t q) {  // each query's fold alone (inversions)
      const Fp x = root_gen.pow(idx[q]);
      ys[q] = binary_k_fold(vals[q], std::span<const Fp4>(alphas_).subspan(size_t(round) * k_, k_), x);
      zs_[round][q] = x.pow(uint64_t(1) << k_);
    });
    const Fp4 gamma = t_.sample_ext();
    gammas_.push_back(gamma);
    if (round + 1 < s_.rounds()) claim_ += gamma * p_.ood_values[round];
    Fp4 g = gamma * gamma;
    for (const Fp4& y : ys) {
      claim_ += g * y;
      g *= gamma;
    }
    return VerifyResult::accept();
  }

  // Round 0's openings: the rows of every commitment, batched by mu into vals.
  VerifyResult open_initial(const std::vector<uint64_t>& idx, std::vector<std::vector<Fp4>>& vals) const {
    const uint32_t nq = uint32_t(idx.size()), group = 1u << k_;
    size_t col0 = 0;
    for (size_t c = 0; c < st_.roots.size(); ++c) {
      const uint32_t w = st_.widths[c];
      std::vector<Fp> rows;
      rows.reserve(size_t(nq) * group * w);
      for (uint32_t q = 0; q < nq; ++q) {
        const auto& r = p_.initial_round_opened_rows[c][q];
        rows.insert(rows.end(), r.begin(), r.end());
      }
      // Each query's rows batched by mu, the queries over the host's threads (a keccakf proof: 2,633
      // columns x 2^k rows x ~100 queries of extension products).
      tbb::parallel_for(uint32_t(0), nq, [&](uint32_t q) {
        const auto& r = p_.initial_round_opened_rows[c][q];
        for (uint32_t tt = 0; tt < group; ++tt)
          for (uint32_t col = 0; col < w; ++col) vals[q][tt] += mu_pows_[col0 + col] * r[size_t(tt) * w + col];
      });
      const std::vector<Digest> leaves = leaf_group_digests(hash_rows_batch(rows, w, size_t(nq) * group), k_);
      const size_t bad = merkle_verify_batch(
          st_.roots[c], idx, leaves,
          [&](size_t q) { return std::span<const Digest>(p_.initial_round_merkle_proofs[c][q]); }, s_.merkle_depth(0));
      if (bad != size_t(-1))
        return VerifyResult::reject(
            WhirReject::InitialMerklePath,
            fmt::format("WHIR: Merkle path of query {} into commitment {} does not verify", bad, c));
      col0 += w;
    }
    return VerifyResult::accept();
  }

  // A later round's openings: the previous round's codeword values.
  VerifyResult open_codeword(uint32_t round, const std::vector<uint64_t>& idx,
                             std::vector<std::vector<Fp4>>& vals) const {
    const uint32_t nq = uint32_t(idx.size()), group = 1u << k_;
    std::vector<Fp> rows;
    rows.reserve(size_t(nq) * group * 4);
    for (uint32_t q = 0; q < nq; ++q) {
      vals[q] = p_.codeword_opened_values[round - 1][q];
      for (const Fp4& v : vals[q]) rows.insert(rows.end(), v.c.begin(), v.c.end());
    }
    const std::vector<Digest> leaves = leaf_group_digests(hash_rows_batch(rows, 4, size_t(nq) * group), k_);
    const size_t bad = merkle_verify_batch(
        p_.codeword_commits[round - 1], idx, leaves,
        [&](size_t q) { return std::span<const Digest>(p_.codeword_merkle_proofs[round - 1][q]); },
        s_.merkle_depth(round));
    if (bad != size_t(-1))
      return VerifyResult::reject(WhirReject::CodewordMerklePath,
                                  fmt::format("WHIR: Merkle path of query {} in round {} does not verify", bad, round));
    return VerifyResult::accept();
  }

  // The weight polynomial at the folded point, against the final polynomial.
  VerifyResult final_check() const {
    const uint32_t R = s_.rounds(), total = R * k_;
    std::span<const Fp4> u(st_.u_cube), alphas(alphas_);
    Fp4 acc = mobius_eq(u.subspan(0, total), alphas.subspan(0, total)) * mle_eval(p_.final_poly, u.subspan(total));
    // eq(alphas[j..t], (z, z^2, ...)) * FinalPoly(z^(2^(t-j))); z in the base field (the queries'
    // points) or the extension (z0), Horner's rule in the same field as z.
    auto weight_at = [&](uint32_t j, auto z) {
      std::vector<Fp4> pw;
      for (uint32_t e = j; e < total; ++e, z = z.square()) pw.push_back(Fp4(z));
      return eq_ext(alphas.subspan(j, total - j), pw) * horner(p_.final_poly, z);
    };
    for (uint32_t i = 0; i < R; ++i) {
      const uint32_t j = k_ * (i + 1);
      if (i + 1 < R) acc += gammas_[i] * weight_at(j, z0s_[i]);
      // Each query's weight alone (Horner over the final polynomial), then summed.
      std::vector<Fp4> weights(zs_[i].size());
      tbb::parallel_for(size_t(0), weights.size(), [&](size_t q) { weights[q] = weight_at(j, zs_[i][q]); });
      Fp4 g = gammas_[i] * gammas_[i];
      for (const Fp4& w : weights) {
        acc += g * w;
        g *= gammas_[i];
      }
    }
    if (acc != claim_)
      return VerifyResult::reject(WhirReject::FinalClaimMismatch,
                                  "WHIR: the final claim does not match the final polynomial");
    return VerifyResult::accept();
  }

  DuplexSponge& t_;
  const WhirProof& p_;
  const SystemParams& params_;
  const WhirStatement& st_;
  const WhirShape& s_;
  const uint32_t k_;
  uint32_t log_rs_ = 0;
  std::vector<Fp4> mu_pows_;
  Fp4 claim_;
  std::vector<Fp4> alphas_, gammas_, z0s_;
  std::vector<std::vector<Fp>> zs_;  // per round: the query points z_q = x^(2^k)
};

}  // namespace

VerifyResult whir_verify(DuplexSponge& t, const WhirProof& p, const SystemParams& params, const WhirStatement& st) {
  params.validate();  // the caller's: InputError naming the field; from here on only the proof can fail
  if (st.roots.size() != st.widths.size() || st.roots.empty())
    return VerifyResult::reject(WhirReject::StatementCommitments,
                                "WHIR statement: one width per commitment, at least one commitment");
  const WhirShape s = WhirShape::from(params, st.widths);
  if (s.sumcheck_rounds() > s.m)
    return VerifyResult::reject(WhirReject::FoldsPastPoint, "WHIR parameters fold more variables than the point has");
  if (VerifyResult shape = check_shape(p, s, st); !shape) return shape;
  return WhirVerifier(t, p, params, st, s).run();
}

}  // namespace vkstark
