#include "stages/batch_constraint/verify.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "stages/air/eval.hpp"
#include "stages/common/poly.hpp"

namespace vkstark {

namespace {

// The AIR's variables from its column openings (parts [common, preprocessed?, cached...], each
// column's opening followed by its rotated one when need_rot), the selectors at the trace's point.
class OpeningRow final : public RowSource<Fp4> {
 public:
  OpeningRow(const StarkVerifyingKey& vk, const std::vector<std::vector<Fp4>>& openings, std::span<const Fp> pvs,
             const SelectorValues& sel)
      : vk_(vk), openings_(openings), pvs_(pvs), sel_(sel) {}
  Fp4 selector(NodeKind kind) const override {
    return kind == NodeKind::IsFirstRow  ? sel_.is_first
           : kind == NodeKind::IsLastRow ? sel_.is_last
                                         : sel_.is_transition;
  }
  Fp4 value(uint32_t part, uint32_t offset, uint32_t col) const override {
    // Row-view part (preprocessed?, cached..., common) -> opening part (common, preprocessed?, cached...).
    const uint32_t pre = vk_.params.width.preprocessed ? 1 : 0;
    const uint32_t cached = uint32_t(vk_.params.width.cached_mains.size());
    const uint32_t opening_part = part == pre + cached ? 0 : part + 1;
    const uint32_t stride = vk_.params.need_rot ? 2 : 1;
    return openings_[opening_part][size_t(col) * stride + offset];
  }
  Fp public_value(uint32_t i) const override { return pvs_[i]; }

 private:
  const StarkVerifyingKey& vk_;
  const std::vector<std::vector<Fp4>>& openings_;
  std::span<const Fp> pvs_;
  SelectorValues sel_;
};

class BatchConstraintVerifier {
 public:
  BatchConstraintVerifier(DuplexSponge& t, const BatchConstraintProof& p, const BatchConstraintStatement& st)
      : t_(t), p_(p), st_(st), params_(st.vk->params) {
    l_ = params_.l_skip;
    N_ = 1u << l_;
    d_ = params_.max_constraint_degree;
    P_ = uint32_t(st.order.size());
  }

  VerifyResult run(std::vector<Fp4>& r) {
    if (VerifyResult v = check_shape(); !v) return v;
    if (VerifyResult v = sums(); !v) return v;
    if (VerifyResult v = round0(); !v) return v;
    for (uint32_t j = 1; j <= n_max_; ++j) mle_round(j);
    observe_openings();
    if (VerifyResult v = final_check(); !v) return v;
    r = r_;
    return VerifyResult::accept();
  }

 private:
  uint32_t lifted_n(uint32_t T) const { return st_.log_heights[T] > l_ ? st_.log_heights[T] - l_ : 0; }

  VerifyResult check_shape() {
    std::vector<std::optional<uint32_t>> heights(st_.vk->per_air.size());
    for (uint32_t T = 0; T < P_; ++T) heights[st_.order[T]] = st_.log_heights[T];
    const ProofShape shape = proof_shape(*st_.vk, heights);
    if (shape.order != st_.order) throw InputError("batch constraint statement: the trace order is not the sorted one");
    if (std::string problem =
            [&] {
              ProofShapeCheck v;
              batch_constraint_fields(v, const_cast<BatchConstraintProof&>(p_), &shape.batch);  // the check only reads
              return v.problem();
            }();
        !problem.empty())
      return VerifyResult::reject(BatchConstraintReject::Shape, "batch constraint proof shape: " + problem);
    n_max_ = shape.batch.n_max;
    if (st_.xi.size() < l_ + std::max(n_max_, st_.n_logup))
      throw InputError(fmt::format("batch constraint statement: xi has {} coordinates, {} needed", st_.xi.size(),
                                   l_ + std::max(n_max_, st_.n_logup)));
    return VerifyResult::accept();
  }

  // lambda; sum_p[T], sum_q[T] against GKR's claims; mu (protocol.md 9.7, 16.1 item 9).
  VerifyResult sums() {
    lambda_ = t_.sample_ext();
    Fp4 sum_p, sum_q;
    for (uint32_t T = 0; T < P_; ++T) {
      t_.observe_ext(p_.numerator_term_per_air[T]);
      t_.observe_ext(p_.denominator_term_per_air[T]);
      sum_p += p_.numerator_term_per_air[T];
      sum_q += p_.denominator_term_per_air[T];
    }
    if (sum_p != st_.p_hat)
      return VerifyResult::reject(BatchConstraintReject::NumeratorSumMismatch,
                                  "batch constraint: the numerator terms do not sum to GKR's p-hat(xi)");
    if (st_.alpha + sum_q != st_.q_hat)
      return VerifyResult::reject(BatchConstraintReject::DenominatorSumMismatch,
                                  "batch constraint: alpha plus the denominator terms is not GKR's q-hat(xi)");
    mu_ = t_.sample_ext();
    mu_powers_ = powers(mu_, 3 * size_t(P_));
    claim_ = Fp4();
    for (uint32_t T = 0; T < P_; ++T)
      claim_ +=
          mu_powers_[2 * T] * p_.numerator_term_per_air[T] + mu_powers_[2 * T + 1] * p_.denominator_term_per_air[T];
    return VerifyResult::accept();
  }

  // s_0: its sum over D is the claim; the claim becomes s_0(r_0).
  VerifyResult round0() {
    const auto& s0 = p_.univariate_round_coeffs;
    for (const Fp4& c : s0) t_.observe_ext(c);
    r_.assign(1, t_.sample_ext());
    Fp4 sum;
    for (size_t j = 0; j < s0.size(); j += N_) sum += s0[j];
    if (sum * Fp::from_canonical_unchecked(N_) != claim_)
      return VerifyResult::reject(BatchConstraintReject::Round0SumMismatch,
                                  "batch constraint round 0: s_0 does not sum to the claim over D");
    claim_ = horner(s0, r_[0]);
    return VerifyResult::accept();
  }

  // s_j(0) = c - s_j(1); the claim becomes s_j(r_j).
  void mle_round(uint32_t j) {
    const std::vector<Fp4>& evals = p_.sumcheck_round_polys[j - 1];
    for (const Fp4& v : evals) t_.observe_ext(v);
    r_.push_back(t_.sample_ext());
    std::vector<Fp4> values{claim_ - evals[0]};
    values.insert(values.end(), evals.begin(), evals.end());
    claim_ = eval_uniform<Fp4>(values, r_[j]);  // the prover's formula (stages/common/poly.hpp)
  }

  // Common-main openings of every trace first, then each trace's other parts (16.1 item 13); a
  // ZERO after every claim of an AIR without rotation.
  void observe_openings() {
    auto observe_part = [&](uint32_t T, size_t part) {
      const bool rot = st_.vk->per_air[st_.order[T]].params.need_rot;
      for (const Fp4& v : p_.column_openings[T][part]) {
        t_.observe_ext(v);
        if (!rot) t_.observe_ext(Fp4());
      }
    };
    for (uint32_t T = 0; T < P_; ++T) observe_part(T, 0);
    for (uint32_t T = 0; T < P_; ++T)
      for (size_t part = 1; part < p_.column_openings[T].size(); ++part) observe_part(T, part);
  }

  // c == sum_T [mu^2T num_T norm_T eq♯_ns[n_T] + mu^(2T+1) den_T eq♯_ns[n_T] + mu^(2P+T) expr_T eq_ns[n_T]].
  VerifyResult final_check() {
    // eq_ns, eq♯_ns (9.4), entry k times prod_{i = k+1}^{n_max} r_i (the front-loaded batching).
    std::vector<Fp4> eq_ns(n_max_ + 1), eq_sharp_ns(n_max_ + 1);
    eq_ns[0] = eval_eq_uni(l_, st_.xi[0], r_[0]);
    eq_sharp_ns[0] = eval_eq_sharp_uni(std::span(st_.xi).subspan(0, l_), r_[0]);
    for (uint32_t j = 1; j <= n_max_; ++j) {
      const Fp4& x = st_.xi[l_ + j - 1];
      const Fp4 e = x * r_[j] + (Fp4::one() - x) * (Fp4::one() - r_[j]);
      eq_ns[j] = eq_ns[j - 1] * e;
      eq_sharp_ns[j] = eq_sharp_ns[j - 1] * e;
    }
    Fp4 tail = Fp4::one();
    for (uint32_t k = n_max_ + 1; k-- > 0;) {
      eq_ns[k] *= tail;
      eq_sharp_ns[k] *= tail;
      tail *= r_[k];
    }
    Fp4 final;
    for (uint32_t T = 0; T < P_; ++T) {
      const StarkVerifyingKey& vk = st_.vk->per_air[st_.order[T]];
      const uint32_t h = st_.log_heights[T], n = lifted_n(T);
      // The trace's point: (l, r_0 .. r_n), or for h < l (l + n_T, r_0^(2^-n_T)) (protocol.md 5.4).
      const SelectorValues sel = eval_selectors(l_, int32_t(h) - int32_t(l_), r_);
      const uint32_t L = std::min(h, l_);
      std::vector<Fp4> values;
      eval_nodes(vk.symbolic_constraints, vk.shape(), OpeningRow(vk, p_.column_openings[T], st_.public_values[T], sel),
                 values);
      const SymbolicDag& dag = vk.symbolic_constraints;
      const Fp4 expr = fold_constraints<Fp4>(dag, values, powers(lambda_, dag.num_constraints()));
      // eq3b from the interaction's slot: bits l + n .. l + n_logup - 1 of its row_start.
      Fp4 num, den;
      for (size_t s = 0; s < dag.interactions.size(); ++s) {
        const DagInteraction& in = dag.interactions[s];
        Fp4 eq3b = Fp4::one();
        for (uint32_t b = l_ + n; b < l_ + st_.n_logup; ++b)
          eq3b *= (st_.row_start[T][s] >> b & 1) ? st_.xi[b] : Fp4::one() - st_.xi[b];
        Fp4 h_sigma, beta_j = Fp4::one();
        for (uint32_t m : in.message) {
          h_sigma += beta_j * values[m];
          beta_j *= st_.beta;
        }
        h_sigma += beta_j * Fp::from_canonical_unchecked(uint32_t(in.bus) + 1);
        num += eq3b * values[in.count];
        den += eq3b * h_sigma;
      }
      const Fp norm = Fp::from_canonical_unchecked(1u << (l_ - L)).inverse();
      final += mu_powers_[2 * T] * num * norm * eq_sharp_ns[n] + mu_powers_[2 * T + 1] * den * eq_sharp_ns[n] +
               mu_powers_[2 * P_ + T] * expr * eq_ns[n];
    }
    if (claim_ != final)
      return VerifyResult::reject(
          BatchConstraintReject::FinalClaimMismatch,
          "batch constraint: the last claim is not the constraints and interactions evaluated at the openings");
    return VerifyResult::accept();
  }

  DuplexSponge& t_;
  const BatchConstraintProof& p_;
  const BatchConstraintStatement& st_;
  const SystemParams& params_;
  uint32_t l_ = 0, N_ = 0, d_ = 0, P_ = 0, n_max_ = 0;
  Fp4 lambda_, mu_, claim_;
  std::vector<Fp4> mu_powers_, r_;
};

}  // namespace

VerifyResult batch_constraint_verify(DuplexSponge& t, const BatchConstraintProof& proof,
                                     const BatchConstraintStatement& st, std::vector<Fp4>& r) {
  if (!st.vk) throw InputError("batch constraint statement: no verifying key");
  st.vk->params.validate();
  const size_t P = st.order.size();
  if (st.log_heights.size() != P || st.public_values.size() != P || st.row_start.size() != P)
    throw InputError("batch constraint statement: one height, public-value list and slot list per trace");
  for (size_t T = 0; T < P; ++T) {
    if (st.order[T] >= st.vk->per_air.size())
      throw InputError(fmt::format("batch constraint statement: trace {} names AIR {} of {}", T, st.order[T],
                                   st.vk->per_air.size()));
    const StarkVerifyingKey& vk = st.vk->per_air[st.order[T]];
    if (st.public_values[T].size() != vk.params.num_public_values ||
        st.row_start[T].size() != vk.symbolic_constraints.interactions.size())
      throw InputError(
          fmt::format("batch constraint statement: trace {} (AIR {}) public values or slots do not fit "
                      "its verifying key",
                      T, st.order[T]));
  }
  return BatchConstraintVerifier(t, proof, st).run(r);
}

}  // namespace vkstark
