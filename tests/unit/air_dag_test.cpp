// Specifies the AIR API and the symbolic DAG builder (protocol.md 4.3): degrees on trees, interning,
// the simplification rules (with unused children keeping their node index), constraint order, and
// the host evaluator and debug checker on the Fibonacci AIR.
#include <gtest/gtest.h>

#include "product/airs/fibonacci.hpp"
#include "runtime/error.hpp"
#include "stages/air/dag.hpp"
#include "stages/air/debug_check.hpp"
#include "stages/air/eval.hpp"

using namespace vkstark;

namespace {

Expr main_var(uint32_t col, uint32_t offset = 0) { return Expr::variable({EntryKind::Main, 0, offset, col}); }

}  // namespace

TEST(AirDag, DegreesAreComputedOnTheTreesBeforeSimplification) {
  const Expr x = main_var(0), y = main_var(1);
  EXPECT_EQ((x * y * Expr(0)).degree(), 2u);
  EXPECT_EQ((x + Expr(5)).degree(), 1u);
  EXPECT_EQ((x * x * x - y).degree(), 3u);
  EXPECT_EQ(Expr::variable({EntryKind::Public, 0, 0, 0}).degree(), 0u);
  EXPECT_EQ((-(x * y)).degree(), 2u);
  SymbolicAir air;
  air.name = "t";
  air.shape.common_width = 2;
  air.constraints = {x * y * Expr(0), x - y};
  EXPECT_EQ(max_constraint_degree(air), 2u);
}

TEST(AirDag, InternsIdenticalNodesInPostOrder) {
  const Expr x = main_var(0), y = main_var(1);
  // Two structurally identical trees built separately share nodes.
  SymbolicDag dag = build_dag(std::vector<Expr>{x * y + x, (main_var(0) * main_var(1)) - x}, {});
  // x, y, x*y, x*y + x, x*y - x
  ASSERT_EQ(dag.nodes.size(), 5u);
  EXPECT_EQ(dag.nodes[0].kind, NodeKind::Variable);
  EXPECT_EQ(dag.nodes[2].kind, NodeKind::Mul);
  EXPECT_EQ(dag.nodes[2].left, 0u);
  EXPECT_EQ(dag.nodes[2].right, 1u);
  EXPECT_EQ(dag.constraint_idx, (std::vector<uint32_t>{3, 4}));
}

TEST(AirDag, SimplifiesAndKeepsUnusedChildren) {
  const Expr x = main_var(0), y = main_var(1);
  std::vector<uint32_t> roots;
  SymbolicDag dag =
      build_dag(std::vector<Expr>{x * Expr(0) + y, x + (-y), x - (-y), Expr(2) + Expr(2) - x, x * Expr(1)}, {}, &roots);
  // x*0 -> 0 (the Constant 0 node stays), + y -> y. Root is y.
  EXPECT_EQ(dag.nodes[roots[0]].kind, NodeKind::Variable);
  EXPECT_EQ(dag.nodes[roots[0]].var.index, 1u);
  EXPECT_EQ(dag.nodes[roots[1]].kind, NodeKind::Sub);
  EXPECT_EQ(dag.nodes[roots[2]].kind, NodeKind::Add);
  // The Neg node of x + (-y) occupies an index though nothing uses it.
  auto counts = dag.count_by_kind();
  EXPECT_EQ(counts[size_t(NodeKind::Neg)], 1u);
  EXPECT_FALSE(dag.live_nodes()[dag.nodes.size() - 1] && dag.nodes.back().kind == NodeKind::Neg);
  // 2 + 2 folds to 4; 2 stays as a node.
  const DagNode& r3 = dag.nodes[roots[3]];
  ASSERT_EQ(r3.kind, NodeKind::Sub);
  EXPECT_EQ(dag.nodes[r3.left].constant, Fp::from_canonical(4));
  EXPECT_EQ(roots[4], 0u);                            // x * 1 -> x, node 0
  EXPECT_EQ(counts[size_t(NodeKind::Constant)], 4u);  // 0, 2, 4, 1
  // Constraint order is node order, deduplicated.
  EXPECT_TRUE(std::is_sorted(dag.constraint_idx.begin(), dag.constraint_idx.end()));
  EXPECT_EQ(dag.constraint_idx.size(), 5u);
  EXPECT_EQ(dag.constraint_idx.front(), 0u);  // x * 1, emitted last, is node 0: node order, not emission order
}

TEST(AirDag, DeepLeftFoldedSumsDoNotOverflowTheStack) {
  Expr s = main_var(0);
  for (int i = 0; i < 200000; ++i) s = s + main_var(0);
  SymbolicDag dag = build_dag(std::vector<Expr>{s}, {});
  EXPECT_EQ(dag.nodes.size(), 200001u);
  EXPECT_FALSE(node_to_string(dag, dag.constraint_idx[0], 50).empty());
}

TEST(AirDag, FibonacciHasFiveDegreeTwoConstraints) {
  FibonacciAir air;
  SymbolicAir s = symbolic_air(air);
  ASSERT_EQ(s.constraints.size(), 5u);
  EXPECT_EQ(max_constraint_degree(s), 2u);
  SymbolicDag dag = build_dag(s);
  EXPECT_EQ(dag.num_constraints(), 5u);
  EXPECT_TRUE(dag.need_rot());
  EXPECT_EQ(to_string(s.constraints[2]), "is_transition * (main[0][1] - main[0].next[0])");
}

TEST(AirDag, CheckerAcceptsAValidFibonacciTraceAndNamesAViolation) {
  const auto air = std::make_shared<FibonacciAir>();
  FibonacciTrace t = fibonacci_trace(Fp::from_canonical(1), Fp::from_canonical(1), 16);
  EXPECT_EQ(t.public_values[2], Fp::from_canonical(1597));
  AirWithTraces a{air, {}, t.main, t.public_values};
  EXPECT_TRUE(debug_check(std::span<const AirWithTraces>(&a, 1)).ok());
  a.common.at(5, 1) += Fp::one();
  const DebugReport r = debug_check(std::span<const AirWithTraces>(&a, 1));
  ASSERT_EQ(r.constraint_failures.size(), 1u);
  EXPECT_EQ(r.constraint_failures[0].row, 4u);  // row 4's transition to row 5's right breaks first
  EXPECT_EQ(r.constraint_failures[0].constraint, 3u);
  EXPECT_THROW(r.throw_if_failed(), InputError);
  try {
    r.throw_if_failed();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("AIR fibonacci: constraint 3 fails at row 4"), std::string::npos) << e.what();
  }
}

TEST(AirDag, HostEvaluatorFoldsWithLambdaPowers) {
  FibonacciAir air;
  SymbolicAir s = symbolic_air(air);
  SymbolicDag dag = build_dag(s);
  FibonacciTrace t = fibonacci_trace(Fp::from_canonical(3), Fp::from_canonical(7), 8);
  std::vector<TraceMatrix> parts{t.main};
  const Fp4 lambda = Fp4::from_canonical(5, 6, 7, 8);
  auto ok = eval_constraints_on_trace(dag, s.shape, parts, t.public_values, powers(lambda, 5));
  for (const Fp4& v : ok) EXPECT_TRUE(v.is_zero());
  parts[0].at(0, 0) =
      Fp::from_canonical(4);  // first-row left = a + 1 (constraint 0 at row 0 only: next.left reads row 1)
  auto bad = eval_constraints_on_trace(dag, s.shape, parts, t.public_values, powers(lambda, 5));
  // row 7 (last): transition constraints off; next of row 7 is row 0: no effect
  EXPECT_TRUE(bad[7].is_zero());
  // row 0's constraint 3 reads left + right - next.right too: (4 + 7) - 10 = 1, times lambda^3
  // (Fibonacci's constraint roots are in emission order).
  EXPECT_EQ(bad[0], Fp4::one() + lambda.pow(3));
}

TEST(AirDag, ShapeErrorsNameTheAir) {
  FibonacciAir air;
  SymbolicAir s = symbolic_air(air);
  TraceMatrix wrong(3, 8);
  std::vector<Fp> pvs(3);
  const auto check = [&](const TraceMatrix& m) {
    const std::vector<const TraceMatrix*> parts{&m};
    const DebugAirInput in{.air = &s, .parts = parts, .public_values = pvs};
    (void)debug_check(std::span<const DebugAirInput>(&in, 1));
  };
  try {
    check(wrong);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("AIR fibonacci: common main part has width 3, the AIR declares 2"),
              std::string::npos)
        << e.what();
  }
  TraceMatrix h(2, 6);
  EXPECT_THROW(check(h), InputError);
  AirShape shape;
  shape.common_width = 2;
  AirBuilder b("x", shape);
  EXPECT_THROW(b.main().local(2), InputError);
  EXPECT_THROW(b.public_value(0), InputError);
}
