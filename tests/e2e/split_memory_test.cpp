// Proofs built for devices with small allocations and bindings (ProverOptions::limits, as the
// executors' own limits would make them): the transient arena in several chunks, the commitment's
// message and codeword in column tiles, the trace in row tiles, every task's views within one
// binding, and the same proof bytes as without limits, on every executor.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "stages/airs/fibonacci.hpp"
#include "stages/airs/test_airs.hpp"
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
  std::vector<uint64_t> bindings;  // limits to prove under (allocations: 4 bindings)
};

std::vector<Case> cases() {
  return {
      // 2633 columns x 64 rows (674 KB) in one binding; its codeword (1.4 MB) in two tiles, round 0
      // in blocks of two chunks.
      {"keccakf", [] { return keccak_fixture(2, 3); }, app_params_with_100_bits_security(12), {768u << 10}},
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
  StarkProver prover(pk, exec, {.limits = limits});
  auto prepared = prover.prepare(airs);
  Result r{encode(prepared->run(airs)), prepared->plan()};
  const VerifyResult v = verify_bytes(pk.vk, r.bytes);
  EXPECT_TRUE(v.ok) << c.name << ": " << v.reason;
  return r;
}

}  // namespace

class SplitMemory : public ExecutorTest {};
VKSTARK_INSTANTIATE_FOR_EXECUTORS(SplitMemory);

TEST_P(SplitMemory, ProofsForSmallAllocationsAndBindingsHaveTheBytesOfUnsplitProofs) {
  for (const Case& c : cases()) {
    const Result whole = prove(exec(), c, {});
    EXPECT_EQ(whole.plan.memory.arena_chunks.size(), 1u) << c.name;
    for (uint64_t binding : c.bindings) {
      const MemoryLimits limits{.max_allocation_bytes = 4 * binding, .max_binding_bytes = binding};
      const Result split = prove(exec(), c, limits);
      EXPECT_EQ(split.bytes, whole.bytes) << c.name << " with bindings of " << binding << " bytes";
      EXPECT_GT(split.plan.memory.arena_chunks.size(), 1u) << c.name;
      for (const Task& t : split.plan.tasks)
        for (const Binding& b : t.bindings)
          ASSERT_TRUE(!b.used() || limits.binds(b.byte_offset(), b.byte_count()))
              << c.name << ": task " << t.name << " binds " << b.byte_count() << " bytes of "
              << split.plan.buffers[b.buffer].name;
      std::printf("%s, bindings of %llu bytes: %zu arena chunks, %zu tasks (%zu unsplit)\n", c.name.c_str(),
                  (unsigned long long)binding, split.plan.memory.arena_chunks.size(), split.plan.tasks.size(),
                  whole.plan.tasks.size());
    }
  }
}
