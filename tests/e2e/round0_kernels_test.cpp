// Round 0's kernels (ProverOptions::round0_kernels): Auto proves on the base-field interpreter while
// the generated kernels compile in the background, and on the generated kernels once they are ready
// (at once when the caches hold them); every choice gives the same proof bytes on every executor.
// The SPIR-V cache is a fresh folder of this test's own, so nothing is ready at first. On an
// executor that runs CPU bodies only (the CPU executor), generated kernels compile nothing, so Auto
// takes them from the first proof.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "product/airs/test_airs.hpp"
#include "runtime/error.hpp"
#include "stages/proof/proof.hpp"
#include "stages/prover.hpp"
#include "stages/verifier.hpp"
#include "tests/parity/executor_fixture.hpp"

using namespace vkstark;
using namespace vkstark::testing;

namespace {

Fp fp(uint64_t v) { return Fp::reduce(v); }

// Sets an environment variable for a scope, restoring the old value (or its absence) after.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* v = std::getenv(name)) old_ = v;
    ::setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (old_)
      ::setenv(name_, old_->c_str(), 1);
    else
      ::unsetenv(name_);
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

// A new empty cache folder (XDG_CACHE_HOME) for this test, removed at the end.
class FreshCache {
 public:
  explicit FreshCache(const std::string& tag)
      : dir_(std::filesystem::temp_directory_path() /
             ("vkstark-round0-" + tag + "-" + std::to_string(::getpid()) + "-" + std::to_string(counter_++))),
        env_("XDG_CACHE_HOME", (std::filesystem::remove_all(dir_), dir_.string())) {}
  ~FreshCache() {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

 private:
  static inline int counter_ = 0;
  std::filesystem::path dir_;
  ScopedEnv env_;
};

// Whether a profiled trace dispatched a kernel whose name contains `part`.
bool dispatched(const Trace& t, const std::string& part) {
  return std::any_of(t.tasks.begin(), t.tasks.end(),
                     [&](const TraceTask& task) { return task.kernel.find(part) != std::string::npos; });
}

Proof profiled_proof(StarkProver& prover, const std::vector<std::optional<AirWithTraces>>& airs, Trace& t) {
  t.profile_tasks = true;
  return prover.prove(airs, &t);
}

class Round0KernelChoice : public ExecutorTest {
 protected:
  // The executor made before a test points the caches at its fresh folder: its pipeline cache is
  // the usual one (the fixed kernels' pipelines in it), its SPIR-V cache the test's.
  void SetUp() override { (void)exec(); }
  // Each test its own fixture (seeded by the executor and test), so that no other test of this
  // executable made these kernels first on the shared executor.
  void make(Fp start) {
    const std::vector<AirWithTraces> fixture = fib_fixture(fp(0), start, 64);
    airs_.assign(fixture.begin(), fixture.end());
    const std::vector<std::shared_ptr<const Air>> list{fixture[0].air};
    pk_.emplace(keygen(list, test_system_params_small(2, 8, 3), exec()));
  }
  std::vector<std::optional<AirWithTraces>> airs_;
  std::optional<ProvingKey> pk_;
};
VKSTARK_INSTANTIATE_FOR_EXECUTORS(Round0KernelChoice);

constexpr const char* kInterpreter = "base_constraint_interpreter_fused";
constexpr const char* kGenerated = "_zc_constraints";

TEST_P(Round0KernelChoice, AutoStartsOnTheInterpreterAndSwitchesOnceTheGeneratedKernelsAreCompiled) {
  FreshCache cache("switch");
  make(fp(1));
  StarkProver prover(*pk_, exec(), {.round0_kernels = Round0Kernels::Auto});
  if (!exec().limits().runs_spirv) {  // generated kernels compile nothing here: used from the start
    EXPECT_TRUE(prover.round0_generated(0));
    Trace t;
    const Proof proof = profiled_proof(prover, airs_, t);
    EXPECT_FALSE(dispatched(t, kInterpreter));
    EXPECT_TRUE(dispatched(t, kGenerated));
    StarkProver interpreted(*pk_, exec(), {.round0_kernels = Round0Kernels::Interpreted});
    EXPECT_EQ(encode(proof), encode(interpreted.prove(airs_)));
    return;
  }
  EXPECT_FALSE(prover.round0_generated(0)) << "nothing is cached: the interpreter first";
  Trace first_trace;
  const Proof first = profiled_proof(prover, airs_, first_trace);
  EXPECT_TRUE(dispatched(first_trace, kInterpreter));
  EXPECT_FALSE(dispatched(first_trace, kGenerated));

  prover.wait_for_kernels();
  EXPECT_TRUE(prover.round0_generated(0)) << "compiled in the background after the first prepare";
  Trace second_trace;
  const Proof second = profiled_proof(prover, airs_, second_trace);
  EXPECT_FALSE(dispatched(second_trace, kInterpreter));
  EXPECT_TRUE(dispatched(second_trace, kGenerated));

  StarkProver generated(*pk_, exec(), {.round0_kernels = Round0Kernels::Generated});
  const Proof reference = generated.prove(airs_);
  EXPECT_EQ(encode(first), encode(reference));
  EXPECT_EQ(encode(second), encode(reference));
  EXPECT_TRUE(verify(pk_->vk, reference).ok);

  // A new prover finds them ready (SPIR-V cached, pipelines made) and uses them from its first proof.
  StarkProver later(*pk_, exec(), {.round0_kernels = Round0Kernels::Auto});
  EXPECT_TRUE(later.round0_generated(0));
}

TEST_P(Round0KernelChoice, WithoutBackgroundCompilationAutoStaysOnTheInterpreter) {
  FreshCache cache("stay");
  make(fp(2));
  StarkProver prover(*pk_, exec(), {.round0_kernels = Round0Kernels::Auto, .background_kernels = false});
  if (!exec().limits().runs_spirv) {  // nothing to compile: generated kernels without the background
    EXPECT_TRUE(prover.round0_generated(0));
    return;
  }
  const Proof first = prover.prove(airs_);
  prover.wait_for_kernels();
  EXPECT_FALSE(prover.round0_generated(0));
  Trace t;
  const Proof second = profiled_proof(prover, airs_, t);
  EXPECT_TRUE(dispatched(t, kInterpreter));
  EXPECT_EQ(encode(first), encode(second));

  StarkProver interpreted(*pk_, exec(), {.round0_kernels = Round0Kernels::Interpreted});
  EXPECT_FALSE(interpreted.round0_generated(0));
  EXPECT_EQ(encode(interpreted.prove(airs_)), encode(first));
  EXPECT_TRUE(verify(pk_->vk, first).ok);
}

TEST_P(Round0KernelChoice, AProverDestroyedWhileCompilingStopsAndALaterOneStillProves) {
  FreshCache cache("cancel");
  make(fp(3));
  Proof first;
  {
    StarkProver prover(*pk_, exec(), {.round0_kernels = Round0Kernels::Auto});
    first = prover.prove(airs_);  // the background compilation starts after its prepare
  }                               // cancelled here: the destructor waits only for what is under way
  StarkProver again(*pk_, exec(), {.round0_kernels = Round0Kernels::Auto});
  EXPECT_EQ(encode(again.prove(airs_)), encode(first));
  again.wait_for_kernels();
  EXPECT_TRUE(again.round0_generated(0));
  EXPECT_EQ(encode(again.prove(airs_)), encode(first));
}

TEST_P(Round0KernelChoice, TheEnvironmentChoosesWhenTheOptionIsUnsetAndABadValueIsNamed) {
  FreshCache cache("env");
  make(fp(4));
  {
    ScopedEnv env("VKSTARK_ROUND0_KERNELS", "fused");
    StarkProver prover(*pk_, exec());
    EXPECT_FALSE(prover.round0_generated(0));
    StarkProver chosen(*pk_, exec(), {.round0_kernels = Round0Kernels::Generated});
    EXPECT_TRUE(chosen.round0_generated(0)) << "the option wins over the environment";
  }
  {
    ScopedEnv env("VKSTARK_ROUND0_KERNELS", "sometimes");
    try {
      StarkProver prover(*pk_, exec());
      ADD_FAILURE() << "no InputError";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("VKSTARK_ROUND0_KERNELS='sometimes'"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("'auto', 'generated' or 'fused'"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
