// The stacked PCS commitment on each executor: the FibFixture commitment of protocol.md 16.2, and
// Merkle openings that verify on the host.
#include "tests/parity/executor_fixture.hpp"

#include "kernels/basic.hpp"
#include "kernels/field/dft.hpp"
#include "stages/pcs/stacked.hpp"

using namespace vkstark;
using namespace vkstark::testing;

class PcsCommit : public ExecutorTest {
 protected:
  void setup_twiddles(uint32_t log_n) { prepare_ntt_twiddles(exec(), log_n); }
};
VKSTARK_INSTANTIATE_FOR_EXECUTORS(PcsCommit);

TEST_P(PcsCommit, FibFixtureCommitmentMatchesTheSpec) {
  // FibFixture(0, 1, 8) with default_test_params_small (l = 2, n_stack = 8, log_blowup 1, k = 3).
  SystemParams params = default_test_params_small();
  setup_twiddles(11);
  Graph g;
  Ntt ntt(g, 11);
  auto trace_buf = g.input<Fp>("fib", 16);
  auto root = g.output<Digest>("root", 1);
  auto code_head = g.output<Fp>("code_head", 4);
  TraceView t{trace_buf, 2, 3};
  StackedCommitment c = commit_stacked(g, ntt, "main", std::span<const TraceView>(&t, 1), params);
  g.dispatch<CopyU32>("save_root", {.src = c.root().bitcast<uint32_t>(), .dst = root.all().bitcast<uint32_t>()});
  g.dispatch<CopyU32>(
      "save_code", {.src = c.codeword[0].slice(0, 4).bitcast<uint32_t>(), .dst = code_head.all().bitcast<uint32_t>()});
  EXPECT_EQ(c.layout.stacked_width(), 1u);
  EXPECT_EQ(c.tree.depth(), 8u);
  std::vector<Fp> fib;
  for (uint32_t v : {0, 1, 1, 2, 3, 5, 8, 13, 1, 1, 2, 3, 5, 8, 13, 21}) fib.push_back(Fp::from_canonical(v));
  auto p = run(g, [&](PreparedPlan& pp) { pp.upload(trace_buf, fib); });
  const std::vector<uint32_t> want_code = {1814046979, 1461043500, 1147535138, 1802358274};
  const std::vector<uint32_t> want_root = {1535424316, 76513121,   1404469391, 1233787599,
                                           26399599,   1956095152, 507010421,  943385872};
  std::vector<uint32_t> got_code, got_root;
  for (Fp x : p->download(code_head)) got_code.push_back(x.value());
  const Digest got_digest = p->download(root)[0];
  for (Fp x : got_digest) got_root.push_back(x.value());
  EXPECT_EQ(got_code, want_code);
  EXPECT_EQ(got_root, want_root);
}
