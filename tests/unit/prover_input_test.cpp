// What the prover says of traces it cannot prove (stages/prover.hpp): an AirWithTraces without its
// AIR, or with another AIR than the key's, is an InputError naming the AIR, not a crash.
#include <gtest/gtest.h>

#include "executors/executors.hpp"
#include "runtime/error.hpp"
#include "stages/air/keygen.hpp"
#include "stages/airs/fibonacci.hpp"
#include "stages/airs/test_airs.hpp"
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
}  // namespace

TEST(ProverInput, TracesWithoutTheirAirOrForAnotherAirAreRefusedNamingTheAir) {
  auto exec = make_executor("cpu");
  auto air = std::make_shared<FibonacciAir>();
  const std::vector<std::shared_ptr<const Air>> airs{air};
  const ProvingKey pk = keygen(airs, test_system_params_small(2, 8, 3), *exec);
  const FibonacciTrace fib = fibonacci_trace(Fp(), Fp::one(), 64);
  AirWithTraces t;
  t.common = fib.main;
  t.public_values = fib.public_values;
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

TEST(ProverInput, ATraceTallerThanTheParamsTakeNamesTheAirAndWhatToChange) {
  auto exec = make_executor("cpu");
  auto air = std::make_shared<FibonacciAir>();
  const std::vector<std::shared_ptr<const Air>> airs{air};
  const ProvingKey pk = keygen(airs, test_system_params_small(2, 8, 3), *exec);  // stacked height 2^10
  const FibonacciTrace fib = fibonacci_trace(Fp(), Fp::one(), 2048);
  AirWithTraces t;
  t.air = air;
  t.common = fib.main;
  t.public_values = fib.public_values;
  const std::string e = prove_error(pk, *exec, t);
  EXPECT_NE(e.find("AIR fibonacci: trace height 2^11 exceeds the stacked height 2^10 of the params (l_skip 2 + "
                   "n_stack 8): use a smaller trace, or params of log stacked height 11 or more"),
            std::string::npos)
      << e;
}
