// Typed columns (stages/air/columns.hpp) and typed buses (stages/air/bus.hpp): widths, indices and
// names from a column struct, expressions read through it, names in the debug checker's messages,
// lookups with their count weights and multiplicities counted from the keys.
#include <gtest/gtest.h>

#include "runtime/error.hpp"
#include "stages/air/bus.hpp"
#include "stages/air/columns.hpp"
#include "stages/air/debug_check.hpp"

using namespace vkstark;

namespace {

template <class T>
struct PairCols {
  T a, b;
  template <class F>
  void visit(F&& f) {
    f("a", a);
    f("b", b);
  }
};

template <class T>
struct TestCols {
  T x;
  std::array<std::array<T, 3>, 2> limbs;
  PairCols<T> pair;
  T flag;
  template <class F>
  void visit(F&& f) {
    f("x", x);
    f("limbs", limbs);
    f("pair", pair);
    f("flag", flag);
  }
};

constexpr LookupBus kTable{7, "table"};

// x counts up from 0; flag is boolean; every row looks up x in a 4-row table AIR.
class CountingAir final : public Air {
 public:
  std::string name() const override { return "counting"; }
  AirShape shape() const override { return {.common_width = column_count<TestCols>()}; }
  std::vector<std::vector<std::string>> column_names() const override { return {column_names_of<TestCols>()}; }
  void eval(AirBuilder& b) const override {
    const TestCols<Expr> local = read_columns<TestCols>(b.main(), 0), next = read_columns<TestCols>(b.main(), 1);
    b.when_first_row().assert_zero(local.x);
    b.when_transition().assert_eq(next.x, local.x + 1);
    b.assert_bool(local.flag);
    kTable.lookup(b, {local.x}, local.flag);
  }
};

class TableAir final : public Air {
 public:
  std::string name() const override { return "table"; }
  AirShape shape() const override { return {.common_width = 2}; }
  std::vector<std::vector<std::string>> column_names() const override { return {{"key", "multiplicity"}}; }
  void eval(AirBuilder& b) const override {
    const Window m = b.main();
    kTable.provide(b, {m.local(0)}, m.local(1));
  }
};

class WrongNames final : public Air {
 public:
  std::string name() const override { return "wrong_names"; }
  AirShape shape() const override { return {.common_width = 2}; }
  std::vector<std::vector<std::string>> column_names() const override { return {{"only_one"}}; }
  void eval(AirBuilder& b) const override { b.assert_zero(b.main().local(0)); }
};

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// visit() leaves out `hi` (declared between lo and the array): a column no constraint would see.
template <class T>
struct ForgottenCols {
  T lo, hi;
  std::array<T, 2> limbs;
  template <class F>
  void visit(F&& f) {
    f("lo", lo);
    f("limbs", limbs);
  }
};

// A nested struct's visit() leaves out its last member.
template <class T>
struct HalfPair {
  T a, b;
  template <class F>
  void visit(F&& f) {
    f("a", a);
  }
};
template <class T>
struct NestedForgottenCols {
  T x;
  HalfPair<T> pair;
  template <class F>
  void visit(F&& f) {
    f("x", x);
    f("pair", pair);
  }
};

// One member visited twice (and so another not at all).
template <class T>
struct TwiceCols {
  T a, b;
  template <class F>
  void visit(F&& f) {
    f("a", a);
    f("b", a);
  }
};

class ForgottenColumnAir final : public Air {
 public:
  std::string name() const override { return "forgotten"; }
  AirShape shape() const override { return {.common_width = column_count<ForgottenCols>()}; }
  void eval(AirBuilder& b) const override {
    const ForgottenCols<Expr> local = read_columns<ForgottenCols>(b.main(), 0);
    b.assert_eq(local.lo, local.limbs[0] + local.limbs[1]);
  }
};

template <template <class> class Cols>
std::string column_error() {
  try {
    (void)column_count<Cols>();
  } catch (const InputError& e) {
    return e.what();
  }
  return "no InputError";
}

}  // namespace

TEST(Columns, WidthsIndicesAndNamesFollowTheVisitOrder) {
  EXPECT_EQ(column_count<TestCols>(), 10u);
  const TestCols<uint32_t> at = column_indices<TestCols>();
  EXPECT_EQ(at.x, 0u);
  EXPECT_EQ(at.limbs[0][0], 1u);
  EXPECT_EQ(at.limbs[1][2], 6u);
  EXPECT_EQ(at.pair.a, 7u);
  EXPECT_EQ(at.pair.b, 8u);
  EXPECT_EQ(at.flag, 9u);
  const std::vector<std::string> names = column_names_of<TestCols>();
  ASSERT_EQ(names.size(), 10u);
  EXPECT_EQ(names[0], "x");
  EXPECT_EQ(names[4], "limbs[1][0]");
  EXPECT_EQ(names[8], "pair.b");
  EXPECT_EQ(names[9], "flag");
}

TEST(Columns, ReadColumnsGivesTheWindowsVariables) {
  AirBuilder b("counting", {.common_width = column_count<TestCols>()});
  const TestCols<Expr> next = read_columns<TestCols>(b.main(), 1);
  EXPECT_EQ(to_string(next.limbs[1][2]), "main[0].next[6]");
  const SymbolicAir s = symbolic_air(CountingAir());
  EXPECT_EQ(expression_text(s, next.limbs[1][2]), "limbs[1][2]'");
  EXPECT_EQ(expression_text(s, next.pair.a - 1), "pair.a' - 1");
  // A struct wider than the window is the window's InputError naming the AIR.
  AirBuilder narrow("narrow", {.common_width = 3});
  EXPECT_THROW((void)read_columns<TestCols>(narrow.main(), 0), InputError);
}

TEST(Columns, NamesThatDoNotFitTheShapeAreAnInputErrorNamingTheAir) {
  try {
    (void)symbolic_air(WrongNames());
    FAIL() << "no InputError";
  } catch (const InputError& e) {
    EXPECT_TRUE(has(e.what(), "AIR wrong_names: column_names() gives 1 names for part 0 of width 2")) << e.what();
  }
}

TEST(Columns, AMemberLeftOutOfVisitIsAnInputErrorNamingTheStructAndWhere) {
  const std::string forgotten = column_error<ForgottenCols>();
  EXPECT_TRUE(has(forgotten, "column struct")) << forgotten;
  EXPECT_TRUE(has(forgotten, "ForgottenCols<unsigned int>")) << forgotten;
  EXPECT_TRUE(has(forgotten, "bytes 4.. of its 16 are in no column (after column 'lo')")) << forgotten;
  // Every use of the struct says so, not only the first.
  EXPECT_THROW((void)column_indices<ForgottenCols>(), InputError);
  EXPECT_THROW((void)column_names_of<ForgottenCols>(), InputError);
  AirBuilder b("forgotten", {.common_width = 4});
  EXPECT_THROW((void)read_columns<ForgottenCols>(b.main(), 0), InputError);
  const std::string nested = column_error<NestedForgottenCols>();
  EXPECT_TRUE(has(nested, "bytes 8.. of its 12 are in no column (after column 'pair.a')")) << nested;
  const std::string twice = column_error<TwiceCols>();
  EXPECT_TRUE(has(twice, "column 'b' is the slot of column 'a' again (a member visited twice)")) << twice;
  // Keygen reads the AIR's shape: the AIR is refused before any key is made.
  EXPECT_THROW((void)symbolic_air(ForgottenColumnAir()), InputError);
  // A struct whose visit() covers it is accepted (every struct of this file above, and the shipped AIRs').
  EXPECT_EQ(column_error<TestCols>(), "no InputError");
}

TEST(Buses, LookupsAndTheirTableCarryTheirCountWeightsAndTheBusName) {
  const SymbolicAir user = symbolic_air(CountingAir()), table = symbolic_air(TableAir());
  ASSERT_EQ(user.interactions.size(), 1u);
  EXPECT_EQ(user.interactions[0].bus, 7u);
  EXPECT_EQ(user.interactions[0].count_weight, 1u);
  EXPECT_EQ(expression_text(user, user.interactions[0].count), "flag");
  ASSERT_EQ(table.interactions.size(), 1u);
  EXPECT_EQ(table.interactions[0].count_weight, 0u);
  EXPECT_EQ(expression_text(table, table.interactions[0].count), "-(multiplicity)");
  EXPECT_EQ(user.bus_names.at(7), "table");
  // AirBuilder::receive takes a count weight too (it was always 1).
  AirBuilder b("r", {.common_width = 1});
  b.receive(3, {b.main().local(0)}, Expr(2), 5);
  EXPECT_EQ(b.interactions()[0].count_weight, 5u);
}

TEST(Buses, LookupCountsCountKeysAndNameTheTableForAKeyOutsideIt) {
  LookupCounts counts("bytes", 4);
  counts.add(1);
  counts.add(1);
  counts.add(3, 5);
  EXPECT_EQ(counts.column(), (std::vector<Fp>{Fp(), Fp::from_canonical(2), Fp(), Fp::from_canonical(5)}));
  try {
    counts.add(4);
    FAIL() << "no InputError";
  } catch (const InputError& e) {
    EXPECT_TRUE(has(e.what(), "lookup table bytes: key 4 is not in the table (rows 0..3)")) << e.what();
  }
}

// The debug checker names columns and buses by the names the AIRs give.
TEST(Columns, TheDebugCheckerNamesColumnsAndBuses) {
  const uint32_t h = 4;
  const TestCols<uint32_t> at = column_indices<TestCols>();
  TraceMatrix user(column_count<TestCols>(), h), table(2, h);
  LookupCounts counts("table", h);
  for (uint32_t r = 0; r < h; ++r) {
    user.at(r, at.x) = Fp::from_canonical(r);
    user.at(r, at.flag) = Fp::one();
    counts.add(r);
    table.at(r, 0) = Fp::from_canonical(r);
  }
  const std::vector<Fp> m = counts.column();
  for (uint32_t r = 0; r < h; ++r) table.at(r, 1) = m[r];
  const SymbolicAir su = symbolic_air(CountingAir()), st = symbolic_air(TableAir());
  auto check = [&](const TraceMatrix& u, const TraceMatrix& t) {
    const std::vector<DebugAirInput> in{{.air = &su, .parts = {&u}, .public_values = {}},
                                        {.air = &st, .parts = {&t}, .public_values = {}}};
    return debug_check(in);
  };
  EXPECT_TRUE(check(user, table).ok()) << check(user, table).message();
  TraceMatrix broken = user;
  broken.at(2, at.x) = Fp::from_canonical(3);  // row 1's transition and row 2's lookup break
  const DebugReport r = check(broken, table);
  ASSERT_FALSE(r.ok());
  const std::string msg = r.message();
  EXPECT_TRUE(has(msg, "AIR counting: constraint 1 fails at row 1 (value 1)")) << msg;
  EXPECT_TRUE(has(msg, "x' - (x + 1)")) << msg;
  EXPECT_TRUE(has(msg, "reads x = 1, x' = 3 (row 2)")) << msg;
  EXPECT_TRUE(has(msg, "bus 7 (table): message [2] has net multiplicity -1 (0 sends, 1 receives)")) << msg;
  EXPECT_TRUE(has(msg, "received by AIR table row 2 interaction 0 (message [key] count -(multiplicity))")) << msg;
}
