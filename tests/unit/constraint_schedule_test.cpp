// Specifies the constraint compiler's schedule (stages/compiler/schedule.hpp), the one walk of a DAG
// that every lowering consumes: the live nodes are those the constraints reach (not those only
// interactions read, which SymbolicDag::live_nodes keeps); a node's uses are its reads by live
// operations (an operand read twice counts twice) and its folds; each constraint is folded right
// after its node; a malformed DAG is an InputError; and a lowering given the schedule compiles
// what it compiles from the DAG alone.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "runtime/error.hpp"
#include "stages/air/dag.hpp"
#include "stages/compiler/eval_cpu.hpp"
#include "stages/compiler/ext_program.hpp"
#include "stages/compiler/schedule.hpp"

using namespace vkstark;

namespace {

DagNode column(uint32_t c) {
  DagNode n;
  n.kind = NodeKind::Variable;
  n.var = {EntryKind::Main, 0, 0, c};
  return n;
}

DagNode op(NodeKind kind, uint32_t left, uint32_t right = 0) {
  DagNode n;
  n.kind = kind;
  n.left = left;
  n.right = right;
  n.degree = 2;
  return n;
}

// 0: x0, 1: x1, 2: x0 * x0, 3: x2, 4: x1 * x2 (read by the interaction only), 5: node 2 + x1,
// 6: -node 5; constraints 2, 5, 6; the interaction sends node 4 with count x1.
SymbolicDag small_dag() {
  SymbolicDag dag;
  dag.nodes = {column(0),
               column(1),
               op(NodeKind::Mul, 0, 0),
               column(2),
               op(NodeKind::Mul, 1, 3),
               op(NodeKind::Add, 2, 1),
               op(NodeKind::Neg, 5)};
  dag.constraint_idx = {2, 5, 6};
  dag.interactions = {DagInteraction{.message = {4}, .count = 1, .bus = 0}};
  return dag;
}

std::string input_error(const SymbolicDag& dag) {
  try {
    (void)schedule_constraints(dag);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no InputError";
}

}  // namespace

TEST(ConstraintSchedule, LiveNodesAreWhatTheConstraintsReach) {
  const SymbolicDag dag = small_dag();
  const ConstraintSchedule s = schedule_constraints(dag);
  EXPECT_EQ(s.live, (std::vector<uint8_t>{1, 1, 1, 0, 0, 1, 1}));
  EXPECT_EQ(s.live_nodes, 5u);
  // The AIR's own notion keeps what the interaction reads.
  EXPECT_EQ(dag.live_nodes(), (std::vector<bool>{true, true, true, true, true, true, true}));
}

TEST(ConstraintSchedule, UsesCountReadsByLiveOperationsAndFolds) {
  const ConstraintSchedule s = schedule_constraints(small_dag());
  // x0: twice by x0 * x0; x1: by the Add (not by the interaction's Mul); node 2: the Add and its
  // fold; node 5: the Neg and its fold; node 6: its fold; nodes 3 and 4: not live.
  EXPECT_EQ(s.uses, (std::vector<uint32_t>{2, 1, 2, 0, 0, 2, 1}));
}

TEST(ConstraintSchedule, EachConstraintIsFoldedRightAfterItsNode) {
  const ConstraintSchedule s = schedule_constraints(small_dag());
  EXPECT_EQ(s.folds, (std::vector<ConstraintFold>{{2, 0}, {5, 1}, {6, 2}}));
  std::string order;
  s.walk([&](uint32_t i) { order += "n" + std::to_string(i) + " "; },
         [&](uint32_t f, const ConstraintFold& c) {
           order += "f" + std::to_string(f) + ":" + std::to_string(c.constraint) + " ";
         });
  EXPECT_EQ(order, "n0 n1 n2 f0:0 n5 f1:1 n6 f2:2 ");
}

TEST(ConstraintSchedule, MalformedDagsAreInputErrors) {
  SymbolicDag past = small_dag();
  past.constraint_idx.push_back(7);
  EXPECT_EQ(input_error(past), "constraint node 7 is past the DAG's 7 nodes");
  SymbolicDag forward = small_dag();
  forward.nodes[5].right = 6;
  EXPECT_EQ(input_error(forward), "DAG node 5 reads node 6, which does not come before it");
  // A node no constraint reaches is not checked: no lowering reads it.
  SymbolicDag unread = small_dag();
  unread.nodes[4].right = 5;
  EXPECT_NO_THROW((void)schedule_constraints(unread));
}

TEST(ConstraintSchedule, LoweringsGivenTheScheduleCompileWhatTheyCompileAlone) {
  const SymbolicDag dag = small_dag();
  const AirShape shape{.common_width = 3};
  const ConstraintSchedule s = schedule_constraints(dag);
  const ExtProgram a = compile_ext_program(dag, shape), b = compile_ext_program(dag, s, shape);
  ASSERT_EQ(a.code.size(), b.code.size());
  for (size_t i = 0; i < a.code.size(); ++i) {
    EXPECT_EQ(a.code[i].op, b.code[i].op);
    EXPECT_EQ(a.code[i].dst, b.code[i].dst);
    EXPECT_EQ(a.code[i].a, b.code[i].a);
    EXPECT_EQ(a.code[i].b, b.code[i].b);
  }
  EXPECT_EQ(CompiledConstraints(dag, shape).summary(), CompiledConstraints(dag, s, shape).summary());
  // A schedule of another DAG is refused.
  const ConstraintSchedule other = schedule_constraints(SymbolicDag{});
  EXPECT_THROW((void)compile_ext_program(dag, other, shape), InputError);
  EXPECT_THROW((void)CompiledConstraints(dag, other, shape), InputError);
}
