// Specifies the test AIRs of protocol.md 15.2 (product/airs/test_airs.hpp): every fixture's traces
// satisfy their AIRs and balance their buses; a corrupted cell is named by the debug checker as the
// constraint the reference's order gives it; the constraint-free interaction AIRs declare the
// reference's interactions (bus, message, count, count weight); bad inputs name the AIR.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "product/airs/test_airs.hpp"
#include "runtime/error.hpp"
#include "stages/air/dag.hpp"
#include "stages/air/debug_check.hpp"
#include "stages/air/eval.hpp"

using namespace vkstark;

namespace {

Fp fp(uint32_t v) { return Fp::from_canonical(v); }

// The AIR's first violated constraint (the debug checker's; its buses are not looked at here).
std::optional<ConstraintFailure> first_failure(const SymbolicAir& air, const std::vector<TraceMatrix>& parts,
                                               std::span<const Fp> pvs) {
  std::vector<const TraceMatrix*> refs;
  for (const TraceMatrix& p : parts) refs.push_back(&p);
  const DebugAirInput in{.air = &air, .parts = refs, .public_values = pvs};
  const DebugReport r = debug_check(std::span<const DebugAirInput>(&in, 1));
  if (r.constraint_failures.empty()) return std::nullopt;
  return r.constraint_failures[0];
}

std::optional<ConstraintFailure> violation(const AirWithTraces& a) {
  return first_failure(symbolic_air(*a.air), a.row_view_parts(), a.public_values);
}

// The violation after `corrupt` changes the row-view parts (preprocessed first when there is one)
// or the public values.
template <class F>
ConstraintFailure violation_after(const AirWithTraces& a, F corrupt) {
  std::vector<TraceMatrix> parts = a.row_view_parts();
  std::vector<Fp> pvs = a.public_values;
  corrupt(parts, pvs);
  auto v = first_failure(symbolic_air(*a.air), parts, pvs);
  EXPECT_TRUE(v.has_value()) << a.air->name();
  return v.value_or(ConstraintFailure{});
}

// Sum over all rows and interactions of the fixture of count per (bus, message): zero for every
// message when the buses balance. Returns the unbalanced entries.
std::map<std::pair<uint16_t, std::vector<uint32_t>>, Fp> bus_imbalance(const std::vector<AirWithTraces>& fixture) {
  std::map<std::pair<uint16_t, std::vector<uint32_t>>, Fp> sums;
  for (const AirWithTraces& a : fixture) {
    const SymbolicAir s = symbolic_air(*a.air);
    const SymbolicDag dag = build_dag(s);
    const std::vector<TraceMatrix> parts = a.row_view_parts();
    TraceRows rows(parts, a.public_values);
    std::vector<Fp> values;
    for (uint32_t r = 0; r < rows.height(); ++r) {
      rows.set_row(r);
      eval_nodes(dag, s.shape, rows, values);
      for (const DagInteraction& i : dag.interactions) {
        std::vector<uint32_t> msg;
        for (uint32_t n : i.message) msg.push_back(values[n].value());
        sums[{i.bus, msg}] += values[i.count];
      }
    }
  }
  std::erase_if(sums, [](const auto& e) { return e.second.is_zero(); });
  return sums;
}

Variable main_var(uint32_t part, uint32_t offset, uint32_t col) { return {EntryKind::Main, part, offset, col}; }

bool is_variable(const SymbolicDag& dag, uint32_t node, Variable v) {
  return dag.nodes[node].kind == NodeKind::Variable && dag.nodes[node].var == v;
}

std::vector<bool> sels_of(std::initializer_list<int> v) {
  std::vector<bool> s;
  for (int x : v) s.push_back(x != 0);
  return s;
}

}  // namespace

TEST(TestAirs, EveryFixtureSatisfiesItsAirs) {
  const std::vector<uint32_t> widths{1, 3, 8};
  const std::vector<std::vector<AirWithTraces>> fixtures{
      fib_fixture(fp(0), fp(1), 8),
      interactions_fixture_11(),
      cached_fixture_11(),
      preprocessed_fib_fixture(fp(7), fp(3), sels_of({1, 1, 0, 1, 0, 0, 1, 1})),
      preprocessed_and_cached_fixture(sels_of({1, 0, 0, 1, 1, 0, 1, 0}), 3),
      self_interaction_fixture(widths, 4, 2),
      mixture_fixture_standard(3),
      mixture_fixture_standard(5),
  };
  for (const auto& fixture : fixtures)
    for (const AirWithTraces& a : fixture) {
      const auto v = violation(a);
      EXPECT_FALSE(v.has_value()) << "constraint " << v->constraint << " at row " << v->row << ": " << v->expression;
    }
}

TEST(TestAirs, MixtureStandardHasTheReferencesAirsInOrder) {
  const std::vector<AirWithTraces> m = mixture_fixture_standard(4);
  std::vector<std::string> names;
  for (const AirWithTraces& a : m) names.push_back(a.air->name());
  EXPECT_EQ(names,
            (std::vector<std::string>{
                "fibonacci", "dummy_interaction_send", "dummy_interaction_receive", "dummy_interaction_send_cached",
                "dummy_interaction_receive_cached", "fibonacci_selector", "self_interaction_w4", "self_interaction_w7",
                "self_interaction_w8", "self_interaction_w8", "self_interaction_w10", "self_interaction_w100"}));
  EXPECT_EQ(m[0].public_values, (std::vector<Fp>{fp(8), fp(8), m[0].common.at(15, 1)}));
  EXPECT_EQ(m[1].common.height, 4u);
  EXPECT_EQ(m[2].common.height, 8u);
  EXPECT_EQ(m[3].cached.size(), 1u);
  // Fib selector (7, 3) with sels 1, 0, 1, 0, ...: a step every other row.
  EXPECT_EQ(m[5].air->preprocessed_trace()->at(1, 0), Fp::zero());
  EXPECT_EQ(m[5].common.at(1, 0), fp(3));
  EXPECT_EQ(m[5].common.at(1, 1), fp(10));
  EXPECT_EQ(m[5].common.at(2, 1), fp(10));
  for (size_t i = 6; i < m.size(); ++i) EXPECT_EQ(m[i].common.height, 16u);
}

TEST(TestAirs, InteractionFixturesBalanceTheirBuses) {
  EXPECT_TRUE(bus_imbalance(interactions_fixture_11()).empty());
  EXPECT_TRUE(bus_imbalance(cached_fixture_11()).empty());
  const std::vector<uint32_t> widths{4, 7, 100};
  EXPECT_TRUE(bus_imbalance(self_interaction_fixture(widths, 3, 5)).empty());
  EXPECT_TRUE(bus_imbalance(mixture_fixture_standard(3)).empty());

  // Receiving one 889 less leaves 889 sent once more than received.
  std::vector<AirWithTraces> f = interactions_fixture_11();
  f[1].common.at(5, 0) = fp(544);
  const auto imbalance = bus_imbalance(f);
  ASSERT_EQ(imbalance.size(), 1u);
  EXPECT_EQ(imbalance.begin()->first, (std::pair<uint16_t, std::vector<uint32_t>>{0, {889}}));
  EXPECT_EQ(imbalance.begin()->second, Fp::one());
  // A cached field changed on the receiver: 5 received once less, 6 once more.
  std::vector<AirWithTraces> c = cached_fixture_11();
  c[1].cached[0].at(0, 0) = fp(6);
  EXPECT_EQ(bus_imbalance(c).size(), 2u);
}

TEST(TestAirs, DummyInteractionAirsDeclareTheReferencesInteractions) {
  for (bool cached : {false, true}) {
    for (bool send : {true, false}) {
      const DummyInteractionAir air(1, send, 3, cached);
      const SymbolicAir s = symbolic_air(air);
      EXPECT_TRUE(s.constraints.empty());
      const SymbolicDag dag = build_dag(s);
      EXPECT_FALSE(dag.need_rot());
      ASSERT_EQ(dag.interactions.size(), 1u);
      const DagInteraction& i = dag.interactions[0];
      EXPECT_EQ(i.bus, 3u);
      EXPECT_EQ(i.count_weight, 0u);
      ASSERT_EQ(i.message.size(), 1u);
      const uint32_t common = cached ? 1 : 0;
      EXPECT_TRUE(is_variable(dag, i.message[0], cached ? main_var(0, 0, 0) : main_var(0, 0, 1)));
      if (send) {
        EXPECT_TRUE(is_variable(dag, i.count, main_var(common, 0, 0)));
      } else {  // -1 * count
        const DagNode& n = dag.nodes[i.count];
        ASSERT_EQ(n.kind, NodeKind::Mul);
        EXPECT_EQ(dag.nodes[n.left].constant, -Fp::one());
        EXPECT_TRUE(is_variable(dag, n.right, main_var(common, 0, 0)));
      }
    }
  }
  const SymbolicAir wide = symbolic_air(DummyInteractionAir(3, true, 0));
  EXPECT_EQ(wide.shape.common_width, 4u);
  EXPECT_EQ(wide.interactions[0].message.size(), 3u);
}

TEST(TestAirs, SelfInteractionAirDeclaresTheReferencesInteractions) {
  const SymbolicAir s = symbolic_air(SelfInteractionAir(4, 5));
  EXPECT_TRUE(s.constraints.empty());
  const SymbolicDag dag = build_dag(s);
  EXPECT_TRUE(dag.need_rot());
  ASSERT_EQ(dag.interactions.size(), 8u);
  for (uint32_t k = 0; k < 8; ++k) {
    const DagInteraction& i = dag.interactions[k];
    EXPECT_EQ(i.bus, 5u);
    EXPECT_EQ(i.count_weight, 1u);
    ASSERT_EQ(i.message.size(), 4u);
    const uint32_t offset = k % 2;  // local, next, local, next, ...
    const bool reversed = k >= 6;   // the last pair
    for (uint32_t c = 0; c < 4; ++c)
      EXPECT_TRUE(is_variable(dag, i.message[c], main_var(0, offset, reversed ? 3 - c : c)));
  }
  auto count = [&](uint32_t k) -> const DagNode& { return dag.nodes[dag.interactions[k].count]; };
  EXPECT_EQ(count(0).kind, NodeKind::Constant);
  EXPECT_EQ(count(0).constant, Fp::one());
  EXPECT_EQ(count(1).constant, -Fp::one());
  // S = ((local[0] + local[1]) + local[2]) + local[3] (the leading 0 + folds away).
  EXPECT_EQ(node_to_string(dag, dag.interactions[2].count), "(((main[0][0] + main[0][1]) + main[0][2]) + main[0][3])");
  EXPECT_EQ(count(3).kind, NodeKind::Neg);
  EXPECT_EQ(count(3).left, dag.interactions[2].count);  // -S over the local row (the reference's quirk)
  EXPECT_TRUE(is_variable(dag, dag.interactions[4].count, main_var(0, 0, 0)));
  EXPECT_EQ(count(5).kind, NodeKind::Neg);
  EXPECT_TRUE(is_variable(dag, count(5).left, main_var(0, 1, 0)));
  EXPECT_EQ(dag.interactions[6].count, dag.interactions[2].count);
  EXPECT_EQ(dag.interactions[7].count, dag.interactions[3].count);
}

TEST(TestAirs, FibonacciSelectorAirHasTheReferencesConstraints) {
  const FibonacciSelectorAir air(sels_of({1, 0, 1, 1}));
  const SymbolicAir s = symbolic_air(air);
  ASSERT_EQ(s.constraints.size(), 7u);
  EXPECT_EQ(max_constraint_degree(s), 3u);
  EXPECT_TRUE(s.interactions.empty());
  EXPECT_EQ(to_string(s.constraints[0]), "is_first_row * (main[0][0] - public[0])");
  EXPECT_EQ(to_string(s.constraints[2]), "is_transition * (preprocessed[0] * (main[0][1] - main[0].next[0]))");
  EXPECT_EQ(to_string(s.constraints[3]), "is_transition * ((preprocessed[0] - 1) * (main[0][0] - main[0].next[0]))");
  EXPECT_EQ(to_string(s.constraints[4]),
            "is_transition * (preprocessed[0] * ((main[0][0] + main[0][1]) - main[0].next[1]))");
  EXPECT_EQ(to_string(s.constraints[5]), "is_transition * ((preprocessed[0] - 1) * (main[0][1] - main[0].next[1]))");
  EXPECT_EQ(to_string(s.constraints[6]), "is_last_row * (main[0][1] - public[2])");
  EXPECT_EQ(air.preprocessed_trace()->at(1, 0), Fp::zero());

  // With lookups: left + right sent with count -sel, weight 0, on bus 0.
  const SymbolicDag dag = build_dag(symbolic_air(FibonacciSelectorAir(sels_of({1, 0}), true)));
  ASSERT_EQ(dag.interactions.size(), 1u);
  EXPECT_EQ(dag.interactions[0].bus, 0u);
  EXPECT_EQ(dag.interactions[0].count_weight, 0u);
  EXPECT_EQ(node_to_string(dag, dag.interactions[0].message[0]), "(main[0][0] + main[0][1])");
  EXPECT_EQ(node_to_string(dag, dag.interactions[0].count), "-(preprocessed[0])");
}

TEST(TestAirs, CheckerNamesTheFibonacciSelectorConstraintACorruptionBreaks) {
  // sels[2] = 1: row 3 is a step of row 2; sels[3] = 0: row 4 copies row 3.
  const AirWithTraces a = preprocessed_fib_fixture(fp(1), fp(2), sels_of({1, 1, 1, 0, 1, 0, 1, 1}))[0];
  ConstraintFailure v = violation_after(a, [](auto& parts, auto&) { parts[1].at(3, 0) += Fp::one(); });
  EXPECT_EQ(v.air, "fibonacci_selector");
  EXPECT_EQ(v.constraint, 2u);  // sel * (right - next.left) at row 2
  EXPECT_EQ(v.row, 2u);
  v = violation_after(a, [](auto& parts, auto&) { parts[1].at(4, 1) += Fp::one(); });
  EXPECT_EQ(v.constraint, 5u);  // (sel - 1) * (right - next.right) at row 3
  EXPECT_EQ(v.row, 3u);
  v = violation_after(a, [](auto&, auto& pvs) { pvs[2] += Fp::one(); });
  EXPECT_EQ(v.constraint, 6u);
  EXPECT_EQ(v.row, 7u);
  // Turning a copy row into a step (the preprocessed column): the copy constraints fail.
  v = violation_after(a, [](auto& parts, auto&) { parts[0].at(3, 0) = Fp::one(); });
  EXPECT_EQ(v.constraint, 2u);
  EXPECT_EQ(v.row, 3u);
}

TEST(TestAirs, PreprocessedCachedAirHasTheReferencesConstraints) {
  const PreprocessedCachedAir air(sels_of({0, 1}), 2);
  const SymbolicAir s = symbolic_air(air);
  const AirShape shape = air.shape();
  EXPECT_EQ(shape.preprocessed_width, 1u);
  EXPECT_EQ(shape.cached_widths, (std::vector<uint32_t>{1, 1}));
  EXPECT_EQ(shape.common_width, 1u);
  ASSERT_EQ(s.constraints.size(), 7u);
  EXPECT_EQ(to_string(s.constraints[0]), "preprocessed[0] * (preprocessed[0] - 1)");
  EXPECT_EQ(to_string(s.constraints[1]), "is_first_row * main[2][0]");
  EXPECT_EQ(to_string(s.constraints[2]), "is_transition * ((main[2].next[0] - main[2][0]) - 1)");
  EXPECT_EQ(to_string(s.constraints[3]), "(main[2][0] + preprocessed[0]) - main[0][0]");
  EXPECT_EQ(to_string(s.constraints[4]),
            "is_transition * ((main[2].next[0] + preprocessed.next[0]) - main[0].next[0])");
  EXPECT_EQ(to_string(s.constraints[5]), "(main[0][0] + preprocessed[0]) - main[1][0]");
  EXPECT_EQ(to_string(s.constraints[6]),
            "is_transition * ((main[0].next[0] + preprocessed.next[0]) - main[1].next[0])");
  EXPECT_TRUE(build_dag(s).need_rot());
}

TEST(TestAirs, CheckerNamesThePreprocessedCachedConstraintACorruptionBreaks) {
  const AirWithTraces a = preprocessed_and_cached_fixture(sels_of({1, 0, 0, 1, 1, 0, 1, 0}), 3)[0];
  ASSERT_EQ(a.cached.size(), 3u);
  EXPECT_EQ(a.cached[2].at(3, 0), fp(3 + 3));
  // Row view: preprocessed, cached 0..2, common.
  ConstraintFailure v = violation_after(a, [](auto& parts, auto&) { parts[2].at(4, 0) += Fp::one(); });
  EXPECT_EQ(v.air, "preprocessed_cached");
  EXPECT_EQ(v.constraint, 6u);  // cached 1's transition at row 3 reads row 4
  EXPECT_EQ(v.row, 3u);
  v = violation_after(a, [](auto& parts, auto&) { parts[4].at(0, 0) = fp(5); });
  EXPECT_EQ(v.constraint, 1u);
  EXPECT_EQ(v.row, 0u);
  v = violation_after(a, [](auto& parts, auto&) { parts[0].at(5, 0) = fp(2); });
  EXPECT_EQ(v.constraint, 4u);  // row 4 reads sel[5] as next first, in cached 0's transition
  EXPECT_EQ(v.row, 4u);
}

TEST(TestAirs, CheckerNamesTheFibonacciConstraintInTheMixture) {
  const AirWithTraces a = mixture_fixture_standard(3)[0];
  const ConstraintFailure v = violation_after(a, [](auto& parts, auto&) { parts[0].at(0, 1) += Fp::one(); });
  EXPECT_EQ(v.air, "fibonacci");
  EXPECT_EQ(v.constraint, 1u);
  EXPECT_EQ(v.row, 0u);
}

TEST(TestAirs, BadInputsNameTheAir) {
  auto expect_error = [](auto f, const std::string& text) {
    try {
      f();
      ADD_FAILURE() << "no InputError for " << text;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
    }
  };
  expect_error([] { PreprocessedCachedAir(sels_of({1, 0}), 0); }, "AIR preprocessed_cached");
  expect_error([] { PreprocessedCachedAir(sels_of({1, 0, 1}), 1); }, "AIR preprocessed_cached");
  expect_error([] { FibonacciSelectorAir(sels_of({1, 0, 1})); }, "AIR fibonacci_selector");
  expect_error([] { FibonacciSelectorAir(std::vector<bool>{}); }, "AIR fibonacci_selector");
  expect_error([] { DummyInteractionAir(0, true, 0); }, "AIR dummy_interaction_send");
  expect_error([] { SelfInteractionAir(0, 0); }, "AIR self_interaction");
  auto air = std::make_shared<DummyInteractionAir>(1, false, 0);
  const std::vector<uint32_t> count{1, 2};
  const std::vector<std::vector<uint32_t>> one_row{{5}}, wide{{5, 6}, {7, 8}};
  expect_error([&] { dummy_interaction_trace(air, count, one_row); }, "AIR dummy_interaction_receive");
  expect_error([&] { dummy_interaction_trace(air, count, wide); }, "AIR dummy_interaction_receive");
  expect_error([&] { dummy_interaction_trace(air, {}, {}); }, "AIR dummy_interaction_receive");
  // Padding to a power of two with zero rows.
  const std::vector<uint32_t> three{1, 2, 3};
  const std::vector<std::vector<uint32_t>> fields{{4}, {5}, {6}};
  const AirWithTraces t = dummy_interaction_trace(air, three, fields);
  EXPECT_EQ(t.common.height, 4u);
  EXPECT_EQ(t.common.at(3, 0), Fp::zero());
  EXPECT_EQ(t.common.at(2, 1), fp(6));
}
