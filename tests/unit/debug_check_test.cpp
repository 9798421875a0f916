// The debug checker (stages/air/debug_check.hpp) and the prover's use of it: every violated
// constraint and every unbalanced bus message is found and named (AIR, constraint or bus, row,
// columns), on its own and through ProverOptions::debug_check and VKSTARK_DEBUG_CONSTRAINTS.
#include <gtest/gtest.h>

#include <cstdlib>

#include "executors/executors.hpp"
#include "product/airs/fibonacci.hpp"
#include "product/airs/test_airs.hpp"
#include "runtime/error.hpp"
#include "stages/air/debug_check.hpp"
#include "stages/air/keygen.hpp"
#include "stages/prover.hpp"

using namespace vkstark;

namespace {

// The checker's inputs for fixtures (their preprocessed traces and symbolic AIRs kept alive here).
struct Inputs {
  std::vector<SymbolicAir> symbolic;
  std::vector<std::optional<TraceMatrix>> preprocessed;
  std::vector<DebugAirInput> in;

  explicit Inputs(const std::vector<AirWithTraces>& airs) : symbolic(airs.size()), preprocessed(airs.size()) {
    for (size_t a = 0; a < airs.size(); ++a) {
      symbolic[a] = symbolic_air(*airs[a].air);
      in.push_back({.air = &symbolic[a],
                    .parts = airs[a].row_view_part_refs(preprocessed[a]),
                    .public_values = airs[a].public_values});
    }
  }
};

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST(DebugCheck, GoodTracesPass) {
  for (const auto& airs : {fib_fixture(Fp::from_canonical(1), Fp::from_canonical(1), 64), interactions_fixture_11(),
                           cached_fixture_11(), mixture_fixture_standard(4)}) {
    Inputs in(airs);
    const DebugReport r = debug_check(in.in);
    EXPECT_TRUE(r.ok()) << r.message();
    EXPECT_EQ(r.message(), "");
  }
}

TEST(DebugCheck, AViolatedConstraintNamesTheAirConstraintRowAndColumns) {
  std::vector<AirWithTraces> airs = fib_fixture(Fp::from_canonical(1), Fp::from_canonical(1), 64);
  airs[0].common.at(5, 1) += Fp::one();  // row 5's right: rows 4 (next) and 5 (local) and 6 read it
  Inputs in(airs);
  const DebugReport r = debug_check(in.in);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.unbalanced, 0u);
  EXPECT_EQ(r.violated, 3u);  // row 4: left + right = next right; row 5: right = next left and that again
  ASSERT_FALSE(r.problems.empty());
  const std::string& p = r.problems[0];
  EXPECT_TRUE(has(p, "AIR fibonacci: constraint 3 fails at row 4 (value -1); 3 failures in this AIR in all")) << p;
  EXPECT_TRUE(has(p, "left = 5, right = 8, right' = 14 (row 5)")) << p;
  EXPECT_TRUE(has(r.message(), "debug checker: 3 constraint failures")) << r.message();
}

TEST(DebugCheck, AnUnbalancedMessageNamesTheBusMessageAirsAndRows) {
  std::vector<AirWithTraces> airs = interactions_fixture_11();
  const std::string sender = airs[0].air->name(), receiver = airs[1].air->name();
  airs[1].common.at(1, 0) = Fp::from_canonical(2);  // receives 4 twice at row 1, not three times: 7 sent, 6 received
  Inputs in(airs);
  const DebugReport r = debug_check(in.in);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.violated, 0u);
  EXPECT_EQ(r.unbalanced, 1u);
  ASSERT_EQ(r.problems.size(), 1u);
  const std::string& p = r.problems[0];
  EXPECT_TRUE(has(p, "bus 0: message [4] has net multiplicity 1 (1 sends, 2 receives)")) << p;
  EXPECT_TRUE(has(p, "sent by AIR " + sender + " row 2 interaction 0")) << p;
  EXPECT_TRUE(has(p, "with count 7")) << p;
  EXPECT_TRUE(has(p, "received by AIR " + receiver + " row 1 interaction 0")) << p;
  EXPECT_TRUE(has(p, "with count -2")) << p;
}

TEST(DebugCheck, AMessageNobodyReceivesIsNamed) {
  std::vector<AirWithTraces> airs = interactions_fixture_11();
  airs[0].common.at(3, 1) = Fp::from_canonical(888);  // sends 888 (546 times) where 889 is received
  Inputs in(airs);
  const DebugReport r = debug_check(in.in);
  EXPECT_EQ(r.unbalanced, 2u);
  const std::string m = r.message();
  EXPECT_TRUE(has(m, "message [888] has net multiplicity 546 (1 sends, 0 receives); nothing receives it")) << m;
  EXPECT_TRUE(has(m, "message [889] has net multiplicity -546 (0 sends, 2 receives); nothing sends it")) << m;
}

TEST(DebugCheck, TheReportIsCappedAndSaysHowManyMoreThereAre) {
  std::vector<AirWithTraces> airs = interactions_fixture_11();
  for (uint32_t r = 0; r < 8; ++r) airs[1].common.at(r, 1) += Fp::from_canonical(1000);  // every receive wrong
  Inputs in(airs);
  const DebugReport r = debug_check(in.in, 2);
  EXPECT_GT(r.unbalanced, 3u);
  ASSERT_EQ(r.problems.size(), 3u);
  EXPECT_TRUE(has(r.problems.back(), "more problems not shown")) << r.message();
}

TEST(DebugCheck, TracesThatDoNotFitTheirAirAreAnInputErrorNamingIt) {
  std::vector<AirWithTraces> airs = fib_fixture(Fp::from_canonical(1), Fp::from_canonical(1), 64);
  airs[0].common = TraceMatrix(3, 64);
  Inputs in(airs);
  try {
    (void)debug_check(in.in);
    FAIL() << "no InputError";
  } catch (const InputError& e) {
    EXPECT_TRUE(has(e.what(), "AIR fibonacci: common main part has width 3, the AIR declares 2")) << e.what();
  }
}

TEST(DebugCheck, TheProverRunsItWhenAskedAndNamesTheProblem) {
  auto exec = make_executor("cpu");
  auto air = std::make_shared<FibonacciAir>();
  const std::vector<std::shared_ptr<const Air>> keyed{air};
  const ProvingKey pk = keygen(keyed, test_system_params_small(2, 8, 3), *exec);
  std::vector<AirWithTraces> airs = fib_fixture(Fp::from_canonical(1), Fp::from_canonical(1), 64);
  airs[0].air = air;
  const std::vector<std::optional<AirWithTraces>> good{airs[0]};
  airs[0].common.at(5, 1) += Fp::one();
  const std::vector<std::optional<AirWithTraces>> broken{airs[0]};
  auto prove_error = [&](ProverOptions o, const std::vector<std::optional<AirWithTraces>>& t) -> std::string {
    try {
      StarkProver prover(pk, *exec, o);
      (void)prover.prove(t);
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_EQ(prove_error({.debug_check = true}, good), "");
  EXPECT_TRUE(has(prove_error({.debug_check = true}, broken), "AIR fibonacci: constraint 3 fails at row 4"));
  EXPECT_EQ(prove_error({}, broken), "");  // off: the proof is made (and fails verification)
  ::setenv("VKSTARK_DEBUG_CONSTRAINTS", "1", 1);
  const std::string off_by_option = prove_error({.debug_check = false}, broken);
  ::unsetenv("VKSTARK_DEBUG_CONSTRAINTS");
  EXPECT_EQ(off_by_option, "");  // an explicit false wins over the environment
  ::setenv("VKSTARK_DEBUG_CONSTRAINTS", "1", 1);
  const std::string by_env = prove_error({}, broken);
  ::unsetenv("VKSTARK_DEBUG_CONSTRAINTS");
  EXPECT_TRUE(has(by_env, "debug checker: 3 constraint failures")) << by_env;
}
