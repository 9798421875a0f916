// The constraint kernel at scale (label `slow`: on lavapipe the shader compiles for minutes): a random
// DAG of 20k nodes, 1000 constraints and 500 columns in four parts, half the Keccak-f AIR's (39k
// nodes, 3182 constraints, 2633 columns), bit-identical to the host evaluator on every executor.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "tests/parity/constraint_kernel_fixture.hpp"

using namespace vkstark;
using namespace vkstark::testing;

namespace {

class ConstraintKernelScale : public ConstraintKernelTest {};
VKSTARK_INSTANTIATE_FOR_EXECUTORS(ConstraintKernelScale);

TEST_P(ConstraintKernelScale, RandomDagOf20kNodesAnd500ColumnsMatchesTheHostEvaluator) {
  const AirShape shape{
      .preprocessed_width = 40, .cached_widths = {60, 100}, .common_width = 300, .num_public_values = 8};
  const SymbolicAir air = random_air(shape, 1000, 40000, 11);
  const SymbolicDag dag = build_dag(air);
  const std::vector<bool> live = dag.live_nodes();
  EXPECT_GE(std::count(live.begin(), live.end(), true), 20000);
  EXPECT_GE(dag.num_constraints(), 950u);
  expect_matches_host(air, std::vector<uint32_t>{10}, 12);
}

}  // namespace
