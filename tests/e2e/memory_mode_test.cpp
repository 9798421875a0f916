// Memory modes (ProverOptions::memory_mode, device_memory_bytes): the RS codeword kept whole
// (fast), in part (a budget between), or not at all (low, its queried rows made again for the
// openings) gives the same proof bytes on every executor, with and without column tiles; each
// keeps less memory than the one before; a budget picks the fastest that fits and a proof beyond it
// is refused before anything is allocated, naming the bytes, the budget and the mode that fits.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "product/airs/test_airs.hpp"
#include "runtime/error.hpp"
#include "stages/prover.hpp"
#include "stages/verifier.hpp"
#include "tests/parity/executor_fixture.hpp"

using namespace vkstark;
using namespace vkstark::testing;

namespace {

struct Case {
  std::string name;
  std::function<std::vector<AirWithTraces>()> airs;
  SystemParams params;
  MemoryLimits limits;  // to prove under as well as without
  // The codeword is most of the proof's memory (at small sizes the row sponges and a batch made
  // again can outweigh it): then each mode takes less than the one before, and a budget between
  // keeps part of it.
  bool codeword_dominates = false;
  bool interactions = false;  // LogUp GKR of at least 2^4 leaves
};

std::vector<Case> cases() {
  return {
      // 2633 columns x 256 rows (659 stacked columns of 2^10): with bindings of 768 KB the codeword
      // in tiles of 96 columns, so that a budget between keeps some tiles and part of one.
      {"keccakf",
       [] { return keccak_fixture(10, 3); },
       test_system_params_small(2, 8, 3),
       {.max_allocation_bytes = 8 * (768u << 10), .max_binding_bytes = 768u << 10},
       true},
      // Several commitments (preprocessed and cached parts, each its own codeword).
      {"preprocessed_cached",
       [] {
         return preprocessed_and_cached_fixture({true, false, true, true}, 2);
       },
       test_system_params_small(2, 8, 3),
       {.max_allocation_bytes = 8 * (64u << 10), .max_binding_bytes = 64u << 10}},
      {"mixture", [] { return mixture_fixture_standard(3); }, test_system_params_small(2, 8, 3), {}, false, true},
      // One short trace (64 rows): the low mode's round-1 tables in tiles of one row each by the
      // time the folds would merge them (once refused as not fitting one binding).
      {"fibonacci", [] { return fib_fixture(Fp(), Fp::one(), 64); }, test_system_params_small(2, 8, 3), {}},
  };
}

struct Fixture {
  std::vector<AirWithTraces> fixture;
  std::vector<std::optional<AirWithTraces>> airs;
  ProvingKey pk;
};

Fixture fixture_of(Executor& exec, const Case& c) {
  Fixture f{c.airs(), {}, {}};
  std::vector<std::shared_ptr<const Air>> list;
  for (const AirWithTraces& a : f.fixture) list.push_back(a.air);
  f.pk = keygen(list, c.params, exec);
  f.airs.assign(f.fixture.begin(), f.fixture.end());
  return f;
}

// Round 0 on the interpreter on Vulkan (keccak's generated kernels take minutes to compile on
// lavapipe), on generated kernels on the CPU executor: either way the same bytes.
ProverOptions options(Executor& exec, const MemoryLimits& limits, std::optional<MemoryMode> mode,
                      std::optional<uint64_t> budget) {
  return {.memory_mode = mode,
          .device_memory_bytes = budget,
          .keep_narrow_codewords = false,
          .low_memory_min_bytes = 0,
          .limits = limits,
          .round0_kernels = exec.limits().runs_spirv ? Round0Kernels::Interpreted : Round0Kernels::Generated};
}

struct Proved {
  std::vector<uint8_t> bytes;
  uint64_t plan_bytes = 0;
  std::string choice;
  // Tasks that make the batch constraint's and the stacked reduction's round-1 tables again, and
  // LogUp GKR's leaves.
  uint32_t constraint_remakes = 0, reduction_remakes = 0, leaf_remakes = 0;
};

Proved prove(Executor& exec, const Fixture& f, const ProverOptions& o, const std::string& what) {
  StarkProver prover(f.pk, exec, o);
  auto prepared = prover.prepare(f.airs);
  Proved p{encode(prepared->run(f.airs)), prepared->device_bytes(), prepared->memory_choice()};
  for (const Task& t : prepared->plan().tasks) {
    if (t.name.starts_with("batch_constraint.round1.") && t.name.find(".made") != std::string::npos)
      ++p.constraint_remakes;
    if (t.name.starts_with("stacked_reduction.round") && t.name.find(".made") != std::string::npos)
      ++p.reduction_remakes;
    if (t.name.starts_with("gkr.input.gkr.")) ++p.leaf_remakes;
  }
  const VerifyResult v = verify_bytes(f.pk.vk, p.bytes);
  EXPECT_TRUE(v.ok) << what << ": " << v.reason;
  return p;
}

}  // namespace

class MemoryModes : public ExecutorTest {
 protected:
  void check(const std::string& name) {
    for (const Case& c : cases())
      if (c.name == name) return check_case(c);
    FAIL() << "no case " << name;
  }

  // The message of the DeviceError that planning a proof beyond its budget gives.
  std::string refusal(const Fixture& f, const ProverOptions& o, const std::string& at) {
    StarkProver prover(f.pk, exec(), o);
    try {
      (void)prover.plan(f.airs);
    } catch (const DeviceError& e) {
      return e.what();
    }
    ADD_FAILURE() << at << ": a proof beyond its budget was planned";
    return {};
  }

  void check_case(const Case& c) {
    // The fast proof on the CPU executor without limits: every executor's bytes (prove_verify_test).
    const Fixture cpu = fixture_of(executor("cpu"), c);
    const Proved want =
        prove(executor("cpu"), cpu, options(executor("cpu"), {}, MemoryMode::Fast, std::nullopt), c.name);
    const Fixture f = fixture_of(exec(), c);
    for (const MemoryLimits& limits : {MemoryLimits{}, c.limits}) {
      const std::string at = fmt::format("{} (allocations of {} bytes)", c.name, limits.max_allocation_bytes);
      const Proved fast = prove(exec(), f, options(exec(), limits, MemoryMode::Fast, std::nullopt), at + ", fast");
      const Proved low = prove(exec(), f, options(exec(), limits, MemoryMode::Low, std::nullopt), at + ", low");
      EXPECT_EQ(fast.bytes, want.bytes) << at;
      EXPECT_EQ(low.bytes, want.bytes) << at << ": the low mode's proof differs";
      EXPECT_NE(fast.choice.find("memory mode fast"), std::string::npos) << fast.choice;
      EXPECT_NE(low.choice.find("memory mode low"), std::string::npos) << low.choice;
      EXPECT_NE(low.choice.find("none"), std::string::npos) << low.choice;
      // Low makes the stacked reduction's round-1 tables again (twice), the batch constraint's, and
      // LogUp GKR's leaves where there are interactions; fast makes nothing again.
      EXPECT_EQ(fast.constraint_remakes + fast.reduction_remakes + fast.leaf_remakes, 0u) << at;
      EXPECT_GT(low.reduction_remakes, 0u) << at;
      if (c.codeword_dominates) {
        EXPECT_GT(low.constraint_remakes, 0u) << at;  // keccakf: 2^6 chunks
      }
      if (c.interactions) {
        EXPECT_GT(low.leaf_remakes, 0u) << at;
      }
      if (!c.codeword_dominates) continue;
      EXPECT_LT(low.plan_bytes, fast.plan_bytes) << at;
      // Budgets between: the fastest plan that fits each (the most codeword kept, without or with
      // the tables made again); somewhere some of it kept and the rest made again.
      bool partly = false;
      for (const uint64_t eighths : {4u, 6u, 7u}) {
        const uint64_t budget = low.plan_bytes + (fast.plan_bytes - low.plan_bytes) * eighths / 8;
        const Proved mid = prove(exec(), f, options(exec(), limits, std::nullopt, budget), at + ", a budget between");
        EXPECT_EQ(mid.bytes, want.bytes) << at << ": " << mid.choice;
        EXPECT_LE(mid.plan_bytes, budget) << mid.choice;
        EXPECT_GE(mid.plan_bytes, low.plan_bytes) << mid.choice;
        partly = partly || mid.choice.find("the rest made again") != std::string::npos;
      }
      EXPECT_TRUE(partly) << at << ": no budget between kept part of the codeword";
      const uint64_t budget = (fast.plan_bytes + low.plan_bytes) / 2;
      // A budget everything fits: the fast mode's plan.
      const Proved roomy =
          prove(exec(), f, options(exec(), limits, std::nullopt, fast.plan_bytes), at + ", roomy budget");
      EXPECT_EQ(roomy.plan_bytes, fast.plan_bytes) << roomy.choice;
      EXPECT_NE(roomy.choice.find("memory mode fast"), std::string::npos) << roomy.choice;
      // Beyond the budget: refused at plan time, naming the bytes, the budget and what would fit.
      const std::string too_fast = refusal(f, options(exec(), limits, MemoryMode::Fast, budget), at);
      EXPECT_NE(too_fast.find(fmt::format("needs {} bytes in memory mode fast", fast.plan_bytes)), std::string::npos)
          << too_fast;
      EXPECT_NE(too_fast.find(fmt::format("more than the {} bytes", budget)), std::string::npos) << too_fast;
      EXPECT_NE(too_fast.find(fmt::format("Memory mode low would fit ({} bytes)", low.plan_bytes)), std::string::npos)
          << too_fast;
      const std::string too_small = refusal(f, options(exec(), limits, std::nullopt, low.plan_bytes - 1), at);
      EXPECT_NE(too_small.find(fmt::format("Even memory mode low needs {} bytes", low.plan_bytes)), std::string::npos)
          << too_small;
      EXPECT_NE(too_small.find("nothing was allocated"), std::string::npos) << too_small;
    }
  }
};
VKSTARK_INSTANTIATE_FOR_EXECUTORS(MemoryModes);

TEST_P(MemoryModes, KeccakfEveryModeKeepsTheBytes) { check("keccakf"); }
TEST_P(MemoryModes, PreprocessedAndCachedCommitmentsKeepTheBytes) { check("preprocessed_cached"); }
TEST_P(MemoryModes, MixtureKeepsTheBytes) { check("mixture"); }
TEST_P(MemoryModes, AShortTraceKeepsTheBytes) { check("fibonacci"); }

TEST(MemoryModeNames, ParseAndPrint) {
  for (MemoryMode m : {MemoryMode::Fast, MemoryMode::Default, MemoryMode::Low})
    EXPECT_EQ(parse_memory_mode(to_string(m)), m);
  EXPECT_THROW((void)parse_memory_mode("tiny"), InputError);
}
