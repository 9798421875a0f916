// Specifies the naive host model of the batch constraint sumcheck prover (protocol.md 9.1-9.6,
// tests/support/model_batch_prover.hpp) on the test fixtures of 15.2, with l_skip 2 and 4 (so some
// traces are lifted, 5.4):
//   * the model's internal invariants hold (it throws otherwise): every sumcheck round, the round-0
//     sum, every claim both interpolated and evaluated directly;
//   * the proof's sizes match proof_shape's batch shape;
//   * the glue to LogUp: Σ_T sum_p[T] = p̂(ξ) and α + Σ_T sum_q[T] = q̂(ξ), with p̂, q̂ the GKR input
//     layer's MLE computed from the leaves of 8.2;
//   * a valid trace's zerocheck part sums to 0 over D; one changed trace value makes it nonzero;
//   * the verifier of 9.7 (stages/batch_constraint/verify.hpp) accepts the model's proof, reaching the same
//     point r and transcript state, and rejects it with any one value of the proof changed, or
//     when a constraint is violated (at its round-0 check).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <bit>
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "executors/executors.hpp"
#include "product/airs/test_airs.hpp"
#include "stages/air/eval.hpp"
#include "stages/air/keygen.hpp"
#include "stages/batch_constraint/verify.hpp"
#include "stages/proof/proof.hpp"
#include "tests/support/model_batch_prover.hpp"

using namespace vkstark;

namespace {

Executor& cpu() {
  static std::unique_ptr<Executor> e = make_executor("cpu");
  return *e;
}

Fp fp(uint64_t v) { return Fp::reduce(v); }

// A fixture with its key, the model's input and the LogUp challenge α.
struct Setup {
  std::vector<AirWithTraces> airs;
  ProvingKey pk;
  ProofShape shape;
  ModelBatchInput in;
  Fp4 alpha;
  DuplexSponge transcript;  // the state before λ
};

std::unique_ptr<Setup> make_setup(std::vector<AirWithTraces> airs, const SystemParams& params, uint32_t seed) {
  auto s = std::make_unique<Setup>();
  s->airs = std::move(airs);
  std::vector<std::shared_ptr<const Air>> air_ptrs;
  std::vector<std::optional<uint32_t>> heights;
  for (const AirWithTraces& a : s->airs) {
    air_ptrs.push_back(a.air);
    heights.push_back(uint32_t(std::countr_zero(a.common.height)));
  }
  s->pk = keygen(air_ptrs, params, cpu());
  s->shape = proof_shape(s->pk.vk, heights);
  ModelBatchInput& in = s->in;
  in.pk = &s->pk;
  in.order = s->shape.order;
  for (uint32_t a : in.order) {
    in.parts.push_back(s->airs[a].row_view_parts());
    in.public_values.push_back(s->airs[a].public_values);
  }
  in.row_start = s->shape.logup.row_start;
  in.n_logup = s->shape.logup.n_logup;
  DuplexSponge& t = s->transcript;
  t.observe(fp(seed));
  s->alpha = t.sample_ext();
  in.beta = t.sample_ext();
  const uint32_t n_global = std::max(s->shape.batch.n_max, in.n_logup);
  for (uint32_t i = 0; i < params.l_skip + n_global; ++i) in.xi.push_back(t.sample_ext());
  return s;
}

// The verifier's statement for the model's run.
BatchConstraintStatement statement(const Setup& s) {
  BatchConstraintStatement st;
  st.vk = &s.pk.vk;
  st.order = s.in.order;
  for (size_t T = 0; T < s.in.order.size(); ++T) {
    st.log_heights.push_back(uint32_t(std::countr_zero(s.in.parts[T].back().height)));
    st.public_values.push_back(s.in.public_values[T]);
  }
  st.row_start = s.in.row_start;
  st.n_logup = s.in.n_logup;
  st.alpha = s.alpha;
  st.beta = s.in.beta;
  std::tie(st.p_hat, st.q_hat) = model_logup_input_at(s.in, s.alpha);
  st.xi = s.in.xi;
  return st;
}

VerifyResult verify_model(const Setup& s, const BatchConstraintProof& proof, std::vector<Fp4>& r,
                          DuplexSponge* after = nullptr) {
  DuplexSponge t = s.transcript;
  const VerifyResult v = batch_constraint_verify(t, proof, statement(s), r);
  if (after) *after = t;
  return v;
}

// Every value of the proof, to change one at a time; the openings of variables no constraint or
// interaction reads (the vk's unused_variables) apart: this phase only observes those, and the
// stacked reduction checks them. Each checked value with the check that catches it changed: the
// first it reaches (s_0's sum over D sees only its coefficients of degree 0 mod 2^l_skip; the
// other coefficients, the rounds and the openings move the last claim).
struct Values {
  std::vector<Fp4*> checked, unused;
  std::vector<BatchConstraintReject> codes;  // one per checked value
};
Values every_value(BatchConstraintProof& p, const Setup& s) {
  Values out;
  auto check = [&](Fp4& v, BatchConstraintReject code) {
    out.checked.push_back(&v);
    out.codes.push_back(code);
  };
  for (Fp4& v : p.numerator_term_per_air) check(v, BatchConstraintReject::NumeratorSumMismatch);
  for (Fp4& v : p.denominator_term_per_air) check(v, BatchConstraintReject::DenominatorSumMismatch);
  const size_t N = size_t(1) << s.pk.vk.params.l_skip;
  for (size_t i = 0; i < p.univariate_round_coeffs.size(); ++i)
    check(p.univariate_round_coeffs[i],
          i % N == 0 ? BatchConstraintReject::Round0SumMismatch : BatchConstraintReject::FinalClaimMismatch);
  for (auto& round : p.sumcheck_round_polys)
    for (Fp4& v : round) check(v, BatchConstraintReject::FinalClaimMismatch);
  for (size_t T = 0; T < p.column_openings.size(); ++T) {
    const StarkVerifyingKey& vk = s.pk.vk.per_air[s.in.order[T]];
    const uint32_t pre = vk.params.width.preprocessed ? 1 : 0, stride = vk.params.need_rot ? 2 : 1;
    for (size_t q = 0; q < p.column_openings[T].size(); ++q)
      for (size_t i = 0; i < p.column_openings[T][q].size(); ++i) {
        Variable var;  // opening parts: common, preprocessed?, cached...
        var.offset = uint32_t(i % stride);
        var.index = uint32_t(i / stride);
        if (q == 0) {
          var.part = uint32_t(vk.params.width.cached_mains.size());
        } else if (q == 1 && pre) {
          var.entry = EntryKind::Preprocessed;
        } else {
          var.part = uint32_t(q - 1 - pre);
        }
        const auto& unused = vk.unused_variables;
        if (std::find(unused.begin(), unused.end(), var) != unused.end())
          out.unused.push_back(&p.column_openings[T][q][i]);
        else
          check(p.column_openings[T][q][i], BatchConstraintReject::FinalClaimMismatch);
      }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------

struct Case {
  std::string name;
  std::function<std::vector<AirWithTraces>()> fixture;
  uint32_t l_skip, n_stack;
};

std::vector<bool> alternating(uint32_t n) {
  std::vector<bool> v(n);
  for (uint32_t i = 0; i < n; ++i) v[i] = i % 2 == 0;
  return v;
}

std::vector<Case> cases() {
  const std::vector<uint32_t> self_widths{2, 5};
  std::vector<Case> out;
  for (auto [l, n_stack] : {std::pair{2u, 8u}, std::pair{4u, 6u}}) {
    const std::string sfx = "_l" + std::to_string(l);
    out.push_back({"fib" + sfx, [] { return fib_fixture(fp(0), fp(1), 256); }, l, n_stack});
    out.push_back({"interactions11" + sfx, [] { return interactions_fixture_11(); }, l, n_stack});
    out.push_back(
        {"preprocessed_fib" + sfx, [] { return preprocessed_fib_fixture(fp(7), fp(3), alternating(16)); }, l, n_stack});
    out.push_back({"cached11" + sfx, [] { return cached_fixture_11(); }, l, n_stack});
    out.push_back(
        {"self_interaction" + sfx, [self_widths] { return self_interaction_fixture(self_widths, 3, 5); }, l, n_stack});
    out.push_back({"mixture3" + sfx, [] { return mixture_fixture_standard(3); }, l, n_stack});
    // Preprocessed and two cached parts, all read on the next row: the opening part order of 12.1.
    out.push_back(
        {"preprocessed_cached" + sfx, [] { return preprocessed_and_cached_fixture(alternating(8), 2); }, l, n_stack});
  }
  // Traces of four different ñ (0..3 at l_skip = 2): the front-loaded batching of 9.2 and the head
  // / tail split of 9.5 over several rounds.
  out.push_back({"mixture5_l2", [] { return mixture_fixture_standard(5); }, 2, 8});
  return out;
}

void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

class BatchModel : public ::testing::TestWithParam<Case> {};

TEST_P(BatchModel, SatisfiesItsInvariantsTheLogUpGlueAndTheVerifierFinalCheck) {
  const Case& c = GetParam();
  auto s = make_setup(c.fixture(), test_system_params_small(c.l_skip, c.n_stack, 3), 17);
  DuplexSponge t = s->transcript;
  ModelBatchOutput out;
  ASSERT_NO_THROW(out = model_batch_prove(t, s->in));

  // Sizes (9.8) against proof_shape.
  const BatchConstraintShape& sh = s->shape.batch;
  const BatchConstraintProof& pr = out.proof;
  ASSERT_EQ(pr.numerator_term_per_air.size(), sh.traces);
  ASSERT_EQ(pr.denominator_term_per_air.size(), sh.traces);
  ASSERT_EQ(pr.univariate_round_coeffs.size(), sh.round0_coeffs);
  ASSERT_EQ(pr.sumcheck_round_polys.size(), sh.n_max);
  for (const auto& round : pr.sumcheck_round_polys) ASSERT_EQ(round.size(), sh.round_evals);
  ASSERT_EQ(pr.column_openings.size(), sh.traces);
  for (size_t T = 0; T < sh.traces; ++T) {
    ASSERT_EQ(pr.column_openings[T].size(), sh.opening_counts[T].size());
    for (size_t q = 0; q < pr.column_openings[T].size(); ++q)
      EXPECT_EQ(pr.column_openings[T][q].size(), sh.opening_counts[T][q]) << "trace " << T << " part " << q;
  }
  ASSERT_EQ(out.r.size(), sh.n_max + 1);
  ASSERT_EQ(out.claims.size(), sh.n_max + 1);

  // LogUp glue (8.5 / 9.2).
  const auto [p_hat, q_hat] = model_logup_input_at(s->in, s->alpha);
  Fp4 sum_p, sum_q;
  for (size_t T = 0; T < sh.traces; ++T) {
    sum_p += pr.numerator_term_per_air[T];
    sum_q += pr.denominator_term_per_air[T];
  }
  EXPECT_EQ(sum_p, p_hat);
  EXPECT_EQ(s->alpha + sum_q, q_hat);
  if (s->shape.logup.total_interactions > 0) {
    EXPECT_FALSE(sum_q.is_zero());
  }

  // Valid traces: the zerocheck part sums to 0 over D, per trace and batched.
  const uint32_t l = c.l_skip;
  Fp4 zc;
  for (size_t T = 0; T < sh.traces; ++T) {
    EXPECT_TRUE(model_sum_over_D(out.s_zc[T], l).is_zero()) << "trace " << T;
    zc += out.mu.pow(2 * uint64_t(sh.traces) + T) * model_sum_over_D(out.s_zc[T], l);
  }
  EXPECT_TRUE(zc.is_zero());
  // And then Σ_{z∈D} s_0 is exactly the LogUp claim.
  Fp4 claim;
  for (size_t T = 0; T < sh.traces; ++T)
    claim += out.mu.pow(2 * T) * pr.numerator_term_per_air[T] + out.mu.pow(2 * T + 1) * pr.denominator_term_per_air[T];
  EXPECT_EQ(model_sum_over_D(pr.univariate_round_coeffs, l), claim);

  // The verifier of 9.7 accepts, at the same point and transcript state; one value changed, it
  // rejects.
  std::vector<Fp4> r;
  DuplexSponge after;
  const VerifyResult v = verify_model(*s, pr, r, &after);
  EXPECT_TRUE(v.ok) << v.reason;
  EXPECT_EQ(r, out.r);
  EXPECT_TRUE(after == t) << "the verifier's transcript differs from the model's";
  BatchConstraintProof bad = pr;
  const Values values = every_value(bad, *s);
  for (size_t i = 0; i < values.checked.size(); ++i) {
    const Fp4 keep = *values.checked[i];
    *values.checked[i] += Fp4::one();
    const VerifyResult changed = verify_model(*s, bad, r);
    EXPECT_FALSE(changed.ok) << "value " << i << " of " << values.checked.size() << " changed";
    EXPECT_EQ(changed.code, RejectCode(values.codes[i])) << "value " << i << ": " << changed.reason;
    *values.checked[i] = keep;
  }
  for (Fp4* u : values.unused) {
    *u += Fp4::one();
    DuplexSponge changed;
    EXPECT_TRUE(verify_model(*s, bad, r, &changed).ok);
    EXPECT_FALSE(changed == t) << "an unused variable's opening is still observed";
    *u -= Fp4::one();
  }
  bad.sumcheck_round_polys.emplace_back();
  const VerifyResult shape = verify_model(*s, bad, r);
  EXPECT_NE(shape.reason.find("batch constraint proof shape"), std::string::npos);
  EXPECT_EQ(shape.code, RejectCode(BatchConstraintReject::Shape));
}

INSTANTIATE_TEST_SUITE_P(Fixtures, BatchModel, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<Case>& p) { return p.param.name; });

// One changed value of a Fibonacci trace: a violated constraint makes the zerocheck part's sum over
// D nonzero; the model refuses it unless told to go on, and its sumcheck still closes (the rounds
// prove the polynomial's actual sum, which the verifier's round-0 check would then reject).
TEST(BatchModelViolation, ChangedTraceValueGivesNonzeroZerocheckSum) {
  for (uint32_t l : {2u, 4u}) {
    auto s = make_setup(fib_fixture(fp(0), fp(1), 64), test_system_params_small(l, l == 2 ? 8 : 6, 3), 5);
    TraceMatrix& main = s->in.parts[0].back();
    main.at(13, 1) += Fp::one();
    {
      DuplexSponge t = s->transcript;
      EXPECT_THROW(model_batch_prove(t, s->in), std::logic_error);
    }
    s->in.allow_violations = true;
    DuplexSponge t = s->transcript;
    const ModelBatchOutput out = model_batch_prove(t, s->in);
    const Fp4 zc = out.mu.pow(2) * model_sum_over_D(out.s_zc[0], l);
    EXPECT_FALSE(zc.is_zero()) << "l_skip " << l;
    const Fp4 claim = out.proof.numerator_term_per_air[0] + out.mu * out.proof.denominator_term_per_air[0];
    EXPECT_NE(model_sum_over_D(out.proof.univariate_round_coeffs, l), claim);
    std::vector<Fp4> r;
    const VerifyResult v = verify_model(*s, out.proof, r);
    EXPECT_EQ(v.reason, "batch constraint round 0: s_0 does not sum to the claim over D") << "l_skip " << l;
    EXPECT_EQ(v.code, RejectCode(BatchConstraintReject::Round0SumMismatch)) << "l_skip " << l;
  }
}

}  // namespace
