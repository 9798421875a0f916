#include "stages/stacked_reduction/verify.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "runtime/error.hpp"
#include "stages/common/poly.hpp"

namespace vkstark {

namespace {

// The verifier's state, one method per protocol step, in the prover's order (prover.cpp).
class StackedReductionVerifier {
 public:
  StackedReductionVerifier(DuplexSponge& t, const StackingProof& p, const SystemParams& params, const StackedClaims& c)
      : t_(t), p_(p), c_(c), l_(params.l_skip), n_stack_(params.n_stack), n_(uint64_t(1) << l_) {}

  VerifyResult run(std::vector<Fp4>& u_out) {
    check_claims();
    if (VerifyResult shape = check_shape(); !shape) return shape;
    sample_lambda();
    if (VerifyResult r0 = round0(); !r0) return r0;
    for (uint32_t j = 1; j <= n_stack_; ++j) mle_round(j);
    if (VerifyResult o = openings(); !o) return o;
    u_out = u_;
    return VerifyResult::accept();
  }

 private:
  uint32_t lifted_n(uint32_t log_height) const { return log_height > l_ ? log_height - l_ : 0; }
  void check_claims() const;
  VerifyResult check_shape() const;
  void sample_lambda();
  VerifyResult round0();
  void mle_round(uint32_t j);
  VerifyResult openings();
  // The batched kernel of slice s (global index i, protocol.md 10.4) at u, without lambda'^(2i):
  // eq over the bits of its row offset times the part that depends on its height only
  // (height_kernel, computed once per height and need_rot: keccakf has 5266 slices of one height).
  Fp4 slice_kernel(const StackedSlice& s, bool rot);
  Fp4 height_kernel(uint32_t log_height, bool rot) const;
  std::map<std::pair<uint32_t, bool>, Fp4> height_kernels_;

  DuplexSponge& t_;
  const StackingProof& p_;
  const StackedClaims& c_;
  const uint32_t l_, n_stack_;
  const uint64_t n_;  // N = 2^l_skip
  Fp4 lambda_, claim_;
  std::vector<Fp4> u_;
};

void StackedReductionVerifier::check_claims() const {
  if (c_.layouts.empty()) throw InputError("stacked reduction claims: no commitment");
  if (c_.need_rot.size() != c_.layouts.size())
    throw InputError(fmt::format("stacked reduction claims: need_rot for {} commitments, {} layouts",
                                 c_.need_rot.size(), c_.layouts.size()));
  size_t slices = 0;
  uint32_t max_lifted = 0;
  for (size_t c = 0; c < c_.layouts.size(); ++c) {
    const StackedLayout& layout = c_.layouts[c];
    if (layout.l_skip() != l_ || layout.n_stack() != n_stack_)
      throw InputError(fmt::format("stacked reduction claims: layout {} has l_skip {}, n_stack {}; the params {}, {}",
                                   c, layout.l_skip(), layout.n_stack(), l_, n_stack_));
    if (c_.need_rot[c].size() != layout.shapes().size())
      throw InputError(fmt::format("stacked reduction claims: need_rot of commitment {} has {} entries for {} matrices",
                                   c, c_.need_rot[c].size(), layout.shapes().size()));
    slices += layout.slices().size();
    for (const StackedSlice& s : layout.slices()) max_lifted = std::max(max_lifted, lifted_n(s.log_height));
  }
  if (c_.claims.size() != 2 * slices)
    throw InputError(
        fmt::format("stacked reduction claims: {} values for {} slices (2 each)", c_.claims.size(), slices));
  if (c_.r.size() < 1ull + max_lifted)
    throw InputError(
        fmt::format("stacked reduction claims: r has {} coordinates, {} needed", c_.r.size(), 1ull + max_lifted));
  size_t i = 0;
  for (size_t c = 0; c < c_.layouts.size(); ++c)
    for (const StackedSlice& s : c_.layouts[c].slices()) {
      if (!c_.need_rot[c][s.matrix] && !c_.claims[2 * i + 1].is_zero())
        throw InputError(fmt::format("stacked reduction claims: slice {} has a rotated claim but no need_rot", i));
      ++i;
    }
}

// Every count of the proof against the one the layouts give (the part's field list, stages/proof/proof.hpp).
VerifyResult StackedReductionVerifier::check_shape() const {
  StackingShape shape{uint32_t(2 * n_ - 1), n_stack_, {}};
  for (const StackedLayout& layout : c_.layouts) shape.widths.push_back(layout.stacked_width());
  ProofShapeCheck check;
  stacking_fields(check, const_cast<StackingProof&>(p_), &shape);  // the check only reads
  if (!check.ok())
    return VerifyResult::reject(StackedReductionReject::Shape, "stacking proof shape: " + check.problem());
  return VerifyResult::accept();
}

// lambda' and claim_0 = sum_i (open_i + lambda' rot_i) lambda'^(2i) (protocol.md 10.1).
void StackedReductionVerifier::sample_lambda() {
  lambda_ = t_.sample_ext();
  const Fp4 lambda2 = lambda_.square();
  Fp4 power = Fp4::one();
  for (size_t i = 0; i < c_.claims.size(); i += 2, power *= lambda2)
    claim_ += (c_.claims[i] + lambda_ * c_.claims[i + 1]) * power;
}

// s'_0 must sum to claim_0 over D; then u_0 and c = s'_0(u_0).
VerifyResult StackedReductionVerifier::round0() {
  const std::vector<Fp4>& s0 = p_.univariate_round_coeffs;
  for (const Fp4& x : s0) t_.observe_ext(x);
  u_.push_back(t_.sample_ext());
  if (sum_over_domain(l_, s0) != claim_)
    return VerifyResult::reject(StackedReductionReject::Round0SumMismatch,
                                "stacked reduction: s'_0 does not sum to the batched claim over D");
  claim_ = horner(s0, u_[0]);
  return VerifyResult::accept();
}

// Round j: s'_j(1), s'_j(2) observed, u_j sampled, c = s'_j(u_j) with s'_j(0) = c - s'_j(1).
void StackedReductionVerifier::mle_round(uint32_t j) {
  const auto& [v1, v2] = p_.sumcheck_round_polys[j - 1];
  t_.observe_ext(v1);
  t_.observe_ext(v2);
  u_.push_back(t_.sample_ext());
  claim_ = interpolate_quadratic(claim_ - v1, v1, v2, u_[j]);
}

Fp4 StackedReductionVerifier::height_kernel(uint32_t log_height, bool rot) const {
  const int32_t n = int32_t(log_height) - int32_t(l_);
  const uint32_t nt = lifted_n(log_height);
  const LiftedPoint rp = lifted_point(l_, n, c_.r);
  // u_0 is not raised to a power for short traces (protocol.md 10.4): in(u_0) makes the kernel
  // of the strided slice.
  const std::span<const Fp4> u(u_.data(), nt + 1);
  Fp4 kernel = eval_eq_prism(rp.L, u, rp.rs);
  if (rot) kernel += lambda_ * eval_rot_kernel_prism(rp.L, u, rp.rs);
  return eval_in_uni(l_, n, u_[0]) * kernel;
}

Fp4 StackedReductionVerifier::slice_kernel(const StackedSlice& s, bool rot) {
  auto [it, fresh] = height_kernels_.try_emplace(std::pair{s.log_height, rot});
  if (fresh) it->second = height_kernel(s.log_height, rot);
  Fp4 eq_b = Fp4::one();  // eq(u_(n~+1 .. n_stack), bits l + n~ .. of row_start)
  for (uint32_t k = lifted_n(s.log_height); k < n_stack_; ++k)
    eq_b *= ((s.row_start >> (l_ + k)) & 1) != 0 ? u_[k + 1] : Fp4::one() - u_[k + 1];
  return eq_b * it->second;
}

// Observe every stacking opening, then the last claim must be sum_col coef_col opening_col.
VerifyResult StackedReductionVerifier::openings() {
  for (const auto& col : p_.stacking_openings)
    for (const Fp4& v : col) t_.observe_ext(v);
  const Fp4 lambda2 = lambda_.square();
  Fp4 power = Fp4::one(), expected;
  for (size_t c = 0; c < c_.layouts.size(); ++c)
    for (const StackedSlice& s : c_.layouts[c].slices()) {
      expected += power * slice_kernel(s, c_.need_rot[c][s.matrix]) * p_.stacking_openings[c][s.stacked_col];
      power *= lambda2;
    }
  if (expected != claim_)
    return VerifyResult::reject(StackedReductionReject::OpeningsMismatch,
                                "stacked reduction: the last claim does not match the stacking openings");
  return VerifyResult::accept();
}

}  // namespace

VerifyResult stacked_reduction_verify(DuplexSponge& transcript, const StackingProof& proof, const SystemParams& params,
                                      const StackedClaims& claims, std::vector<Fp4>& u_out) {
  params.validate();  // the caller's: InputError naming the field
  return StackedReductionVerifier(transcript, proof, params, claims).run(u_out);
}

}  // namespace vkstark
