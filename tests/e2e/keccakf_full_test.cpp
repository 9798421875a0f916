// The keccakf example's proof at the reference's full size (protocol.md 15.1): 1024 Keccak-f
// permutations, 2633 columns x 2^15 rows, app_params_with_100_bits_security(21), on the CPU
// executor: verified, at most 2 host syncs, the proof size against protocol.md 12.2's 859 KB, the
// run's span times printed. And a few permutations with small params on the Vulkan executor, the
// CPU executor's bytes (lavapipe compiles the Keccak-f kernels for many minutes: run it on a GPU).
// Label slow.
#include <gtest/gtest.h>

#include <chrono>
#include <iostream>

#include "executors/executors.hpp"
#include "product/airs/test_airs.hpp"
#include "stages/air/keygen.hpp"
#include "stages/prover.hpp"
#include "stages/verifier.hpp"

using namespace vkstark;

namespace {

TEST(KeccakfFull, FewPermutationsOnVulkanAreTheCpuExecutorsBytes) {
  const std::vector<AirWithTraces> fixture = keccak_fixture(3, 1);
  const std::vector<std::optional<AirWithTraces>> airs(fixture.begin(), fixture.end());
  const std::vector<std::shared_ptr<const Air>> list{fixture[0].air};
  auto cpu = make_executor("cpu"), vulkan = make_executor("vulkan");
  const ProvingKey pk = keygen(list, test_system_params_small(2, 8, 3), *cpu);
  StarkProver on_cpu(pk, *cpu), on_vulkan(pk, *vulkan);
  Trace run;
  const std::vector<uint8_t> bytes = encode(on_vulkan.prove(airs, &run));
  EXPECT_TRUE(verify_bytes(pk.vk, bytes).ok);
  EXPECT_EQ(bytes, encode(on_cpu.prove(airs)));
  EXPECT_LE(run.counters.host_syncs, 2u);
}

TEST(KeccakfFull, ThousandPermutationsAtParams21VerifyOnTheCpuExecutor) {
  auto exec = make_executor("cpu");
  const std::vector<AirWithTraces> fixture = keccak_fixture(1024, 2);
  const std::vector<std::optional<AirWithTraces>> airs(fixture.begin(), fixture.end());
  const std::vector<std::shared_ptr<const Air>> list{fixture[0].air};
  const ProvingKey pk = keygen(list, app_params_with_100_bits_security(21), *exec);
  ASSERT_EQ(airs[0]->common.height, 1u << 15);
  StarkProver prover(pk, *exec);
  auto prepared = prover.prepare(airs);
  Trace trace;
  const auto t0 = std::chrono::steady_clock::now();
  const Proof proof = prepared->run(airs, &trace);
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  const std::vector<uint8_t> bytes = encode(proof);
  const auto v0 = std::chrono::steady_clock::now();
  const VerifyResult v = verify_bytes(pk.vk, bytes);
  const double verify_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - v0).count();
  EXPECT_TRUE(v.ok) << v.reason;
  EXPECT_LE(trace.counters.host_syncs, 2u);
  // protocol.md 12.2 estimates 859 KB; the stacked PCS and WHIR shapes alone fix most of it.
  EXPECT_GT(bytes.size(), 800'000u);
  EXPECT_LT(bytes.size(), 920'000u);
  std::printf("keccakf 1024 permutations, params(21), CPU executor: proof %zu bytes, run %.0f ms, verify %.1f ms\n",
              bytes.size(), ms, verify_ms);
  write_summary(trace, std::cout);
}

}  // namespace
