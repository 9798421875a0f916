// Slow: commit + WHIR open + verify at the keccakf shape (42 stacked columns of 2^21,
// app_params_with_100_bits_security(21)) on the CPU executor, with the proof size protocol.md
// 12.2 gives for the WHIR part. (Too large for lavapipe's 2 GiB heap; the Vulkan run of this shape
// is bench/pcs_bench on a GPU.)
#include <gtest/gtest.h>

#include "executors/cpu/cpu_executor.hpp"
#include "stages/opening/opening.hpp"
#include "tests/parity/executor_fixture.hpp"

using namespace vkstark;

TEST(PcsKeccakfShape, CommitsOpensAndVerifiesOnTheCpuExecutor) {
  SystemParams params = app_params_with_100_bits_security(21);
  auto exec = make_cpu_executor();
  prepare_ntt_twiddles(*exec, 22);
  Graph g;
  Ntt ntt(g, 22);
  auto matrix = g.input<Fp>("matrix", uint64_t(42) << 21);
  PcsProofGraph pg = build_pcs_proof(g, ntt, {{{matrix, 42, 21}}}, params);
  auto p = exec->prepare(compile(g));
  p->upload(matrix, vkstark::testing::field_values(matrix.count(), 21));
  Trace trace;
  p->run(trace);
  EXPECT_EQ(trace.counters.host_syncs, 1u);
  PcsProof proof = pg.decode(p->download(pg.layout.buffer()));
  VerifyResult v = check_pcs_proof_self_consistency(proof, {42}, params);
  EXPECT_TRUE(v.ok) << v.reason;
  // WHIR part: 771,336 bytes (protocol.md 12.2); the framing adds 4 + 32 (root), 4 + 18 x 16 (point),
  // 4 + 42 x 16 (openings).
  EXPECT_EQ(encode(proof).size(), 771336u + 36 + 292 + 676);
}
