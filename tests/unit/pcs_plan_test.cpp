// Golden counts of the PCS proof plan at the keccakf shape (42 columns of 2^21,
// app_params_with_100_bits_security(21)), the plan bench/pcs_bench runs: a change to the PCS
// stages or to the scheduler that adds dispatches, barriers or syncs fails here. The test only
// builds and compiles the graph (about a millisecond): no executor, no data.
#include <gtest/gtest.h>

#include "runtime/plan.hpp"
#include "stages/pcs/opening.hpp"

using namespace vkstark;

TEST(PcsPlan, KeccakfShapeIsOneSubmissionOf281DispatchesWith244Barriers) {
  PcsMatrixProof m = build_pcs_matrix_proof(42, 21, app_params_with_100_bits_security(21));
  Plan p = compile(std::move(m.graph));
  PlanCounts expected;
  expected.dispatches = 281;
  expected.barriers = 244;
  expected.memory_barriers = 239;
  expected.execution_barriers = 5;
  expected.submissions = 1;
  expected.host_syncs = 1;
  expected.host_tasks = 0;
  EXPECT_EQ(p.counts, expected) << p.to_text();
}
