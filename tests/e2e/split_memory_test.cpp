// Proofs built for devices with small allocations and bindings (ProverOptions::limits, as the
// executors' own limits would make them): the transient arena in several chunks, the commitment's
// message and codeword in column tiles, the trace in row tiles, every task's views within one
// binding, and the same proof bytes as without limits, on every executor.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "product/airs/fibonacci.hpp"
#include "product/airs/test_airs.hpp"
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
  std::vector<uint64_t> bindings;  // limits to prove under (allocations: 8 bindings)
};

std::vector<Case> cases() {
  return {
      // 2633 columns x 64 rows (674 KB): with bindings of 768 KB its codeword (1.4 MB) in two tiles,
      // round 0 in blocks of two chunks; with 512 KB the trace itself in three pieces of its stacked
      // matrix, round 0 a chunk at a time.
      {"keccakf", [] { return keccak_fixture(2, 3); }, app_params_with_100_bits_security(12), {768u << 10, 512u << 10}},
      // 128 rows: the MLE tables (674 KB) in two row tiles, merged once they fit.
      {"keccakf_128_rows", [] { return keccak_fixture(4, 4); }, app_params_with_100_bits_security(12), {512u << 10}},
      // Interactions across AIRs (of a part in pieces, the columns its interactions read are copied
      // for the LogUp input layer).
      {"interactions_l4", [] { return interactions_fixture_11(); }, test_system_params_small(4, 6, 3), {32u << 10}},
      {"preprocessed_cached",
       [] {
         return preprocessed_and_cached_fixture({true, false, true, true}, 2);
       },
       test_system_params_small(2, 8, 3),
       {64u << 10}},
      {"mixture", [] { return mixture_fixture_standard(3); }, test_system_params_small(2, 8, 3), {64u << 10}},
      // AIRs of 48 and 30 columns of 2^8 rows with interactions, in tiles of 15 stacked columns (60 KB):
      // the second lies in two pieces: the columns its interactions read are copied into one view for
      // the LogUp input layer, read by its compact interaction kernels.
      {"self_interaction_pieces",
       [] {
         const uint32_t widths[] = {48, 30};
         return self_interaction_fixture(widths, 8, 0);
       },
       test_system_params_small(2, 8, 3),
       {128u << 10}},
  };
}

struct Result {
  std::vector<uint8_t> bytes;
  Plan plan;
};

Result prove(Executor& exec, const Case& c, const MemoryLimits& limits) {
  const std::vector<AirWithTraces> fixture = c.airs();
  std::vector<std::shared_ptr<const Air>> list;
  for (const AirWithTraces& a : fixture) list.push_back(a.air);
  const ProvingKey pk = keygen(list, c.params, exec);
  const std::vector<std::optional<AirWithTraces>> airs(fixture.begin(), fixture.end());
  // Round 0 on generated kernels on every executor (the default where compiling costs nothing or
  // is slow; elsewhere Auto would pick by what the SPIR-V cache holds), so that the plans compared
  // below differ only by the splitting.
  StarkProver prover(pk, exec, {.limits = limits, .round0_kernels = Round0Kernels::Generated});
  auto prepared = prover.prepare(airs);
  Result r{encode(prepared->run(airs)), prepared->plan()};
  const VerifyResult v = verify_bytes(pk.vk, r.bytes);
  EXPECT_TRUE(v.ok) << c.name << ": " << v.reason;
  return r;
}

void check_case(Executor& exec, const Case& c) {
  {
    // The unsplit proof on the CPU executor (every executor's unsplit bytes are the same:
    // prove_verify_test), the split ones on the executor under test.
    const Result whole = prove(executor("cpu"), c, {});
    EXPECT_EQ(whole.plan.memory.arena_chunks.size(), 1u) << c.name;
    for (uint64_t binding : c.bindings) {
      const MemoryLimits limits{.max_allocation_bytes = 8 * binding, .max_binding_bytes = binding};
      const Result split = prove(exec, c, limits);
      EXPECT_EQ(split.bytes, whole.bytes) << c.name << " with bindings of " << binding << " bytes";
      EXPECT_GT(split.plan.tasks.size(), whole.plan.tasks.size()) << c.name << ": nothing was split";
      for (const BufferDesc& b : split.plan.buffers)
        ASSERT_LE(b.bytes(), limits.max_allocation_bytes) << c.name << ": buffer " << b.name;
      for (const Task& t : split.plan.tasks)
        for (const Binding& b : t.bindings)
          ASSERT_TRUE(!b.used() || limits.binds(b.byte_offset(), b.byte_count()))
              << c.name << ": task " << t.name << " binds " << b.byte_count() << " bytes of "
              << split.plan.buffers[b.buffer].name;
      auto count = [&](std::string_view part) {
        size_t n = 0;
        for (const Task& t : split.plan.tasks) n += t.name.find(part) != std::string::npos;
        return n;
      };
      std::printf(
          "%s, bindings of %llu bytes: %zu arena chunks, %zu tasks (%zu unsplit); codeword tile hashes %zu, pieces "
          "extended %zu, compact copies %zu, round-0 blocks %zu, Merkle row ranges %zu, MLE table tiles %zu, merges "
          "%zu\n",
          c.name.c_str(), (unsigned long long)binding, split.plan.memory.arena_chunks.size(), split.plan.tasks.size(),
          whole.plan.tasks.size(), count("tree.rows.1"), count(".local.coset1.c") + count(".local.coset1.b0.c"),
          count(".compact."), count("coset1.b1.f0"), count(".rows.r1"), count("fold_r0.selectors."), count(".merge."));
      if (c.name == "self_interaction_pieces") {
        EXPECT_GT(count(".compact."), 0u) << "no part in pieces";
      }
    }
  }
}

}  // namespace

class SplitMemory : public ExecutorTest {
 protected:
  void check(const std::string& name) {
    for (const Case& c : cases())
      if (c.name == name) return check_case(exec(), c);
    FAIL() << "no case " << name;
  }
};
VKSTARK_INSTANTIATE_FOR_EXECUTORS(SplitMemory);

TEST_P(SplitMemory, KeccakfCodewordTilesTracePiecesAndRound0BlocksKeepTheBytes) { check("keccakf"); }
TEST_P(SplitMemory, KeccakfMleTableTilesKeepTheBytes) { check("keccakf_128_rows"); }
TEST_P(SplitMemory, InteractionsKeepTheBytes) { check("interactions_l4"); }
TEST_P(SplitMemory, PreprocessedAndCachedPartsKeepTheBytes) { check("preprocessed_cached"); }
TEST_P(SplitMemory, MixtureKeepsTheBytes) { check("mixture"); }
TEST_P(SplitMemory, APartInPiecesIsGatheredForTheLogupInputAndKeepsTheBytes) { check("self_interaction_pieces"); }
