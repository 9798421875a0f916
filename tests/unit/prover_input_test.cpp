// What the prover says of traces it cannot prove (stages/prover.hpp): an AirWithTraces without its
// AIR, or with another AIR than the key's, is an InputError naming the AIR, not a crash.
#include <gtest/gtest.h>

#include <functional>

#include "executors/executors.hpp"
#include "product/airs/fibonacci.hpp"
#include "product/airs/test_airs.hpp"
#include "runtime/error.hpp"
#include "stages/air/keygen.hpp"
#include "stages/prover.hpp"

using namespace vkstark;

namespace {
std::string prove_error(const ProvingKey& pk, Executor& exec, AirWithTraces t) {
  try {
    StarkProver prover(pk, exec);
    (void)prover.prove({std::optional<AirWithTraces>(std::move(t))});
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

// A key of FibonacciAir (`air`) under the small test params (stacked height 2^10), and a trace of
// `rows` rows without its AIR set.
struct FibKey {
  std::unique_ptr<Executor> exec = make_executor("cpu");
  std::shared_ptr<const Air> air = std::make_shared<FibonacciAir>();
  ProvingKey pk;
  AirWithTraces t;
  explicit FibKey(uint32_t rows) {
    const std::vector<std::shared_ptr<const Air>> airs{air};
    pk = keygen(airs, test_system_params_small(2, 8, 3), *exec);
    const FibonacciTrace fib = fibonacci_trace(Fp(), Fp::one(), rows);
    t.common = fib.main;
    t.public_values = fib.public_values;
  }
};
}  // namespace

TEST(ProverInput, TracesWithoutTheirAirOrForAnotherAirAreRefusedNamingTheAir) {
  FibKey k(64);
  auto& [exec, air, pk, t] = k;
  const std::string e = prove_error(pk, *exec, t);
  EXPECT_NE(e.find("AIR " + air->name() + " (AIR 0 of the proving key): its AirWithTraces has no AIR"),
            std::string::npos)
      << e;
  t.air = std::make_shared<DummyInteractionAir>(1, true, 0);
  const std::string other = prove_error(pk, *exec, t);
  EXPECT_NE(other.find("AIR 0 of the proving key is " + air->name() + ", its traces are given for AIR"),
            std::string::npos)
      << other;
  t.air = air;
  EXPECT_EQ(prove_error(pk, *exec, t), "");
}

namespace {
// Fibonacci's name and shape, one constraint less (the last row's check of the result): an AIR the
// key was not made from, which a match by name would prove against the key's constraints.
class ImpostorFibonacci final : public Air {
 public:
  std::string name() const override { return FibonacciAir().name(); }
  AirShape shape() const override { return FibonacciAir().shape(); }
  void eval(AirBuilder& b) const override {
    const Window m = b.main();
    b.when_transition().assert_eq(m.next(0), m.local(1));
  }
};
}  // namespace

// An AIR handed over with traces must be the key's AIR by its constraints, not only its name: another
// object of the same AIR is accepted (for the prover and for a prepared proof), one of other
// constraints is refused naming the AIR.
TEST(ProverInput, AnAirOfTheKeysNameButOtherConstraintsIsRefused) {
  FibKey k(64);
  auto& [exec, air, pk, t] = k;
  t.air = std::make_shared<ImpostorFibonacci>();
  const std::string e = prove_error(pk, *exec, t);
  EXPECT_NE(e.find("AIR fibonacci (AIR 0 of the proving key): the AIR given with its traces has the name of the "
                   "key's but other constraints"),
            std::string::npos)
      << e;
  t.air = std::make_shared<FibonacciAir>();  // another object of the key's AIR
  EXPECT_EQ(prove_error(pk, *exec, t), "");
  StarkProver prover(pk, *exec);
  std::unique_ptr<StarkProver::Prepared> prepared = prover.prepare({std::optional<AirWithTraces>(t)});
  AirWithTraces impostor = t;
  impostor.air = std::make_shared<ImpostorFibonacci>();
  EXPECT_THROW(prepared->start({std::optional<AirWithTraces>(impostor)}), InputError);
  EXPECT_NO_THROW((void)prepared->run({std::optional<AirWithTraces>(t)}));
}

TEST(ProverInput, ATraceTallerThanTheParamsTakeNamesTheAirAndWhatToChange) {
  FibKey k(2048);  // taller than the stacked height 2^10
  auto& [exec, air, pk, t] = k;
  t.air = air;
  const std::string e = prove_error(pk, *exec, t);
  EXPECT_NE(e.find("AIR fibonacci: trace height 2^11 exceeds the stacked height 2^10 of the params (l_skip 2 + "
                   "n_stack 8): use a smaller trace, or params of log stacked height 11 or more"),
            std::string::npos)
      << e;
}

namespace {
std::string build_error(const std::function<void()>& build) {
  try {
    build();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

// The proving input (stages/air/input.hpp) is checked when it is built: each mistake an InputError
// naming the AIR and what to fix, never a crash later.
TEST(ProverInput, TheInputIsCheckedWhenBuiltNamingTheAir) {
  auto fib = std::make_shared<FibonacciAir>();
  const FibonacciTrace t = fibonacci_trace(Fp(), Fp::one(), 64);
  EXPECT_NO_THROW(AirWithTraces(fib, t.main, t.public_values));
  EXPECT_NE(
      build_error([&] { AirWithTraces(nullptr, t.main, t.public_values); }).find("AirWithTraces: the AIR is null"),
      std::string::npos);
  EXPECT_NE(build_error([&] {
              AirWithTraces(fib, TraceMatrix(3, 64), t.public_values);
            }).find("AIR fibonacci: common main trace of width 3, the AIR has 2 columns"),
            std::string::npos);
  EXPECT_NE(build_error([&] {
              AirWithTraces(fib, TraceMatrix(2, 48), t.public_values);
            }).find("AIR fibonacci: trace height 48 is not a power of two (pad the trace)"),
            std::string::npos);
  EXPECT_NE(build_error([&] {
              AirWithTraces(fib, t.main, {Fp::one()});
            }).find("AIR fibonacci: 1 public values, the AIR has 3"),
            std::string::npos);
  TraceMatrix short_values = t.main;
  short_values.values.pop_back();
  EXPECT_NE(build_error([&] {
              AirWithTraces(fib, short_values, t.public_values);
            }).find("AIR fibonacci: the common main trace holds 127 values, not width 2 x height 64"),
            std::string::npos);
  // Cached parts: their number and each one's width and height.
  auto cached = std::make_shared<PreprocessedCachedAir>(std::vector<bool>{true, false, true, true}, 2);
  const AirWithTraces good = preprocessed_cached_trace(cached);
  EXPECT_NO_THROW(good.validate());
  EXPECT_NE(build_error([&] {
              AirWithTraces(cached, {good.cached[0]}, good.common, {});
            }).find("AIR preprocessed_cached: 1 cached main traces, the AIR has 2"),
            std::string::npos);
  EXPECT_NE(build_error([&] {
              AirWithTraces(cached, {good.cached[0], TraceMatrix(1, 8)}, good.common, {});
            }).find("AIR preprocessed_cached: cached main trace 1 is 1 x 8 (width x height), 1 x 4 expected"),
            std::string::npos);
}
