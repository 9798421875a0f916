#include "stages/whir/verify.hpp"

#include <fmt/format.h>

#include "stages/pcs/merkle_verify.hpp"
#include "stages/poly.hpp"

namespace vkstark {

Fp4 mobius_eq(std::span<const Fp4> u, std::span<const Fp4> b) {
  Fp4 acc = Fp4::one();
  for (size_t k = 0; k < u.size(); ++k) {
    const Fp4 one = Fp4::one();
    acc *= (one - u[k] - u[k]) * (one - b[k]) + u[k] * b[k];
  }
  return acc;
}

Fp4 eq_ext(std::span<const Fp4> x, std::span<const Fp4> y) {
  Fp4 acc = Fp4::one();
  for (size_t k = 0; k < x.size(); ++k) acc *= x[k] * y[k] + (Fp4::one() - x[k]) * (Fp4::one() - y[k]);
  return acc;
}

Fp4 mle_eval(std::span<const Fp4> table, std::span<const Fp4> x) {
  std::vector<Fp4> t(table.begin(), table.end());
  for (const Fp4& r : x) {  // fold the first (least significant) variable first
    for (size_t y = 0; y < t.size() / 2; ++y) t[y] = t[2 * y] + r * (t[2 * y + 1] - t[2 * y]);
    t.resize(t.size() / 2);
  }
  return t.empty() ? Fp4::zero() : t[0];
}

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

VerifyResult whir_verify(DuplexSponge& t, const WhirProof& p, const SystemParams& params, const WhirStatement& st) {
  params.validate();  // the caller's: InputError naming the field; from here on only the proof can fail
  if (st.roots.size() != st.widths.size() || st.roots.empty())
    return VerifyResult::reject(WhirReject::StatementCommitments,
                                "WHIR statement: one width per commitment, at least one commitment");
  const WhirShape s = WhirShape::from(params, st.widths);
  if (s.sumcheck_rounds() > s.m)
    return VerifyResult::reject(WhirReject::FoldsPastPoint, "WHIR parameters fold more variables than the point has");
  if (VerifyResult shape = check_shape(p, s, st); !shape) return shape;
  const uint32_t R = s.rounds(), k = s.k, group = 1u << k;

  if (!t.check_witness(params.whir.mu_pow_bits, p.mu_pow_witness))
    return VerifyResult::reject(WhirReject::MuPow, "WHIR: mu_pow_witness fails proof of work");
  const Fp4 mu = t.sample_ext();
  std::vector<Fp4> mu_pows(s.total_width());
  Fp4 claim;
  {
    Fp4 pw = Fp4::one();
    for (size_t i = 0; i < mu_pows.size(); ++i, pw *= mu) {
      mu_pows[i] = pw;
      claim += pw * st.openings[i];
    }
  }
  uint32_t log_rs = s.m + s.log_blowup;
  std::vector<Fp4> alphas, gammas, z0s;
  std::vector<std::vector<Fp>> zs(R);  // query points z_q = x^(2^k), per round
  for (uint32_t i = 0; i < R; ++i) {
    for (uint32_t j = 0; j < k; ++j) {
      const auto& [v1, v2] = p.sumcheck_polys[i * k + j];
      t.observe_ext(v1);
      t.observe_ext(v2);
      if (!t.check_witness(params.whir.folding_pow_bits, p.folding_pow_witnesses[i * k + j]))
        return VerifyResult::reject(WhirReject::FoldingPow,
                                    fmt::format("WHIR: folding_pow_witnesses[{}] fails proof of work", i * k + j));
      const Fp4 alpha = t.sample_ext();
      alphas.push_back(alpha);
      claim = interpolate_quadratic(claim - v1, v1, v2, alpha);
    }
    if (i + 1 < R) {
      t.observe_commit(p.codeword_commits[i]);
      z0s.push_back(t.sample_ext());
      t.observe_ext(p.ood_values[i]);
    } else {
      for (const Fp4& c : p.final_poly) t.observe_ext(c);
    }
    if (!t.check_witness(params.whir.query_phase_pow_bits, p.query_phase_pow_witnesses[i]))
      return VerifyResult::reject(WhirReject::QueryPow,
                                  fmt::format("WHIR: query_phase_pow_witnesses[{}] fails proof of work", i));
    const Fp root_gen = two_adic_generator(log_rs);
    const uint32_t nq = s.num_queries[i];
    // The transcript samples every index first (nothing else touches it until gamma); the Merkle
    // openings are then hashed and checked for all queries at once (batched permutations).
    std::vector<uint64_t> idx(nq);
    for (uint32_t q = 0; q < nq; ++q) idx[q] = t.sample_bits(log_rs - k);
    std::vector<std::vector<Fp4>> vals(nq, std::vector<Fp4>(group));
    if (i == 0) {
      size_t col0 = 0;
      for (size_t c = 0; c < st.roots.size(); ++c) {
        const uint32_t w = st.widths[c];
        std::vector<Fp> rows;
        rows.reserve(size_t(nq) * group * w);
        for (uint32_t q = 0; q < nq; ++q) {
          const auto& r = p.initial_round_opened_rows[c][q];
          rows.insert(rows.end(), r.begin(), r.end());
          for (uint32_t tt = 0; tt < group; ++tt)
            for (uint32_t col = 0; col < w; ++col) vals[q][tt] += mu_pows[col0 + col] * r[size_t(tt) * w + col];
        }
        const std::vector<Digest> leaves = leaf_group_digests(hash_rows_batch(rows, w, size_t(nq) * group), k);
        const size_t bad = merkle_verify_batch(
            st.roots[c], idx, leaves,
            [&](size_t q) { return std::span<const Digest>(p.initial_round_merkle_proofs[c][q]); }, s.merkle_depth(0));
        if (bad != size_t(-1))
          return VerifyResult::reject(
              WhirReject::InitialMerklePath,
              fmt::format("WHIR: Merkle path of query {} into commitment {} does not verify", bad, c));
        col0 += w;
      }
    } else {
      std::vector<Fp> rows;
      rows.reserve(size_t(nq) * group * 4);
      for (uint32_t q = 0; q < nq; ++q) {
        vals[q] = p.codeword_opened_values[i - 1][q];
        for (const Fp4& v : vals[q]) rows.insert(rows.end(), v.c.begin(), v.c.end());
      }
      const std::vector<Digest> leaves = leaf_group_digests(hash_rows_batch(rows, 4, size_t(nq) * group), k);
      const size_t bad = merkle_verify_batch(
          p.codeword_commits[i - 1], idx, leaves,
          [&](size_t q) { return std::span<const Digest>(p.codeword_merkle_proofs[i - 1][q]); }, s.merkle_depth(i));
      if (bad != size_t(-1))
        return VerifyResult::reject(WhirReject::CodewordMerklePath,
                                    fmt::format("WHIR: Merkle path of query {} in round {} does not verify", bad, i));
    }
    std::vector<Fp4> ys;
    for (uint32_t q = 0; q < nq; ++q) {
      const Fp x = root_gen.pow(idx[q]);
      ys.push_back(binary_k_fold(vals[q], std::span<const Fp4>(alphas).subspan(size_t(i) * k, k), x));
      zs[i].push_back(x.pow(uint64_t(1) << k));
    }
    const Fp4 gamma = t.sample_ext();
    gammas.push_back(gamma);
    if (i + 1 < R) claim += gamma * p.ood_values[i];
    Fp4 g = gamma * gamma;
    for (const Fp4& y : ys) {
      claim += g * y;
      g *= gamma;
    }
    --log_rs;
  }

  // Final check: the weight polynomial at the folded point, against the final polynomial.
  const uint32_t total = R * k;
  std::span<const Fp4> u(st.u_cube);
  Fp4 acc = mobius_eq(u.subspan(0, total), std::span<const Fp4>(alphas).subspan(0, total)) *
            mle_eval(p.final_poly, u.subspan(total));
  auto weight_at = [&](uint32_t j, Fp4 z) {  // eq(alphas[j..t], (z, z^2, ...)) * FinalPoly(z^(2^(t-j)))
    std::vector<Fp4> pw;
    for (uint32_t e = j; e < total; ++e, z = z.square()) pw.push_back(z);
    return eq_ext(std::span<const Fp4>(alphas).subspan(j, total - j), pw) * horner(p.final_poly, z);
  };
  for (uint32_t i = 0; i < R; ++i) {
    const uint32_t j = k * (i + 1);
    if (i + 1 < R) acc += gammas[i] * weight_at(j, z0s[i]);
    Fp4 g = gammas[i] * gammas[i];
    for (Fp z : zs[i]) {
      acc += g * weight_at(j, Fp4(z));
      g *= gammas[i];
    }
  }
  if (acc != claim)
    return VerifyResult::reject(WhirReject::FinalClaimMismatch,
                                "WHIR: the final claim does not match the final polynomial");
  return VerifyResult::accept();
}

}  // namespace vkstark
