// Whole proofs of the Keccak-f AIR (protocol.md 15.1), the keccakf example's workload, with a few
// permutations and small params on the CPU executor: verified, at most 2 host syncs, and byte for
// byte the hybrid harness's proof (the naive host model of the batch sumcheck); a changed trace
// cell gives a rejected proof. The Vulkan executor's proof of the same (lavapipe takes many minutes
// to compile the Keccak-f kernels, so it runs where a GPU is) and the full size are in
// keccakf_full_test.cpp (label slow).
#include <gtest/gtest.h>

#include "executors/executors.hpp"
#include "product/airs/test_airs.hpp"
#include "stages/air/keygen.hpp"
#include "stages/prover.hpp"
#include "stages/verifier.hpp"
#include "tests/support/hybrid_prover.hpp"

using namespace vkstark;

namespace {

TEST(KeccakProve, FewPermutationsVerifyAndAreTheModelsBytes) {
  auto cpu = make_executor("cpu");
  Executor& exec = *cpu;
  const std::vector<AirWithTraces> fixture = keccak_fixture(3, 1);  // 72 rows, padded to 128
  const std::vector<std::optional<AirWithTraces>> airs(fixture.begin(), fixture.end());
  const std::vector<std::shared_ptr<const Air>> list{fixture[0].air};
  const ProvingKey pk = keygen(list, test_system_params_small(2, 8, 3), exec);
  StarkProver prover(pk, exec);
  Trace run;
  const Proof proof = prover.prove(airs, &run);
  const std::vector<uint8_t> bytes = encode(proof);
  const VerifyResult v = verify_bytes(pk.vk, bytes);
  EXPECT_TRUE(v.ok) << v.reason;
  EXPECT_LE(run.counters.host_syncs, 2u);
  EXPECT_EQ(bytes, encode(hybrid_prove(pk, airs, exec))) << "the device batch sumcheck differs from the model";
  std::printf("keccak x3 (2^7 rows, small params): %zu bytes, %llu dispatches, %llu submissions, %llu host syncs\n",
              bytes.size(), (unsigned long long)run.counters.dispatches, (unsigned long long)run.counters.submissions,
              (unsigned long long)run.counters.host_syncs);

  auto bad = airs;
  bad[0]->common.at(30, 200) += Fp::one();
  EXPECT_FALSE(verify(pk.vk, prover.prove(bad)).ok);
}

}  // namespace
