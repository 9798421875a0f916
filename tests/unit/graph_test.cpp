// Specifies Graph construction errors (architecture.md, "Errors"): each mistake throws GraphError
// when the task is added, and the message names the task and the buffer.
#include <gtest/gtest.h>

#include "kernels/basic.hpp"
#include "kernels/elementwise.hpp"
#include "runtime/graph.hpp"

using namespace vkstark;

namespace {
// Runs `f`, expects a GraphError whose message contains every string in `parts`.
template <class F>
void expect_graph_error(F&& f, std::initializer_list<std::string> parts) {
  try {
    f();
    FAIL() << "no GraphError";
  } catch (const GraphError& e) {
    std::string msg = e.what();
    for (const auto& p : parts) EXPECT_NE(msg.find(p), std::string::npos) << "'" << p << "' not in: " << msg;
  }
}
}  // namespace

TEST(Graph, RejectsWrongElementTypeWhenFindingByName) {
  Graph g;
  auto x = g.input<Fp4>("challenges", 4);
  (void)x;
  expect_graph_error([&] { (void)g.find<Fp>("challenges"); }, {"wrong element type", "challenges", "Fp4"});
  EXPECT_EQ(g.find<Fp4>("challenges").count(), 4u);
}

TEST(Graph, RejectsABitcastThatDoesNotDivideTheBuffer) {
  Graph g;
  auto x = g.input<uint32_t>("words", 6);  // 24 bytes cannot hold whole Fp4s (the view holds one, as y)
  auto y = g.output<Fp4>("y", 1);
  expect_graph_error([&] { g.dispatch<Fp4Add>("add", {.a = x.all().bitcast<Fp4>(), .b = y, .out = y}); },
                     {"add", "wrong element type", "words"});
}

TEST(Graph, RejectsViewOutOfRange) {
  Graph g;
  auto a = g.input<Fp>("a", 8);
  auto out = g.output<Fp>("out", 8);
  expect_graph_error([&] { g.dispatch<FpAdd>("sum", {.a = a.slice(4, 8), .b = a, .out = out}); },
                     {"sum", "view out of range", "'a'", "[4, 12)"});
}

TEST(Graph, RejectsWriteToAnInput) {
  Graph g;
  auto a = g.input<Fp>("witness", 8);
  expect_graph_error([&] { g.dispatch<FpAdd>("overwrite", {.a = a, .b = a, .out = a}); },
                     {"overwrite", "writes Input buffer 'witness'"});
}

TEST(Graph, RejectsReadOfATransientNobodyWrote) {
  Graph g;
  auto t = g.transient<Fp>("scratch", 8);
  auto out = g.output<Fp>("out", 8);
  expect_graph_error([&] { g.dispatch<FpAdd>("use", {.a = t, .b = t, .out = out}); },
                     {"use", "reads Transient buffer 'scratch'", "no earlier task writes"});
}

TEST(Graph, AcceptsReadOfATransientAfterItIsWritten) {
  Graph g;
  auto a = g.input<Fp>("a", 8);
  auto t = g.transient<Fp>("t", 8);
  auto out = g.output<Fp>("out", 8);
  g.dispatch<FpAdd>("write", {.a = a, .b = a, .out = t});
  g.dispatch<FpAdd>("read", {.a = t, .b = a, .out = out});
  EXPECT_EQ(g.tasks().size(), 2u);
  EXPECT_EQ(g.tasks()[1].bindings[0].buffer, t.id());
}

TEST(Graph, RejectsDuplicateBufferNamesAndNamelessTasks) {
  Graph g;
  (void)g.input<Fp>("a", 1);
  expect_graph_error([&] { (void)g.output<Fp>("a", 1); }, {"'a'", "twice"});
  auto b = g.output<uint32_t>("b", 1);
  expect_graph_error([&] { g.dispatch<FillU32>("", {.out = b, .value = 1}); }, {"name"});
}

TEST(Graph, RejectsAForeignBufferHandle) {
  Graph other;
  auto foreign = other.output<uint32_t>("x", 4);
  (void)other.output<uint32_t>("y", 4);
  Graph g;
  expect_graph_error([&] { g.dispatch<FillU32>("fill", {.out = foreign, .value = 1}); }, {"fill", "no buffer"});
}

TEST(Graph, DerivesBindingsAndScalarsFromArgsInDeclarationOrder) {
  Graph g;
  auto a = g.input<Fp>("a", 8);
  auto c = g.input<Fp>("c", 1);
  auto out = g.output<Fp>("out", 8);
  g.dispatch<FpScale>("scale", {.a = a.slice(2, 6), .c = c, .out = out.slice(0, 6)});
  const Task& t = g.tasks()[0];
  ASSERT_EQ(t.bindings.size(), 3u);
  EXPECT_EQ(t.bindings[0].buffer, a.id());
  EXPECT_EQ(t.bindings[0].offset, 2u);
  EXPECT_EQ(t.bindings[0].count, 6u);
  EXPECT_EQ(t.bindings[0].access, Access::Read);
  EXPECT_EQ(t.bindings[2].access, Access::Write);
  EXPECT_TRUE(t.scalars.empty());
  auto words = g.output<uint32_t>("w", 4);
  g.dispatch<FillU32>("fill", {.out = words, .value = 7});
  EXPECT_EQ(g.tasks()[1].scalars, std::vector<uint32_t>{7});
  EXPECT_EQ(g.tasks()[1].kernel->name, "fill_u32");
}

TEST(Graph, TasksBelongToTheSpanOpenWhenAdded) {
  Graph g;
  auto w = g.output<uint32_t>("w", 4);
  g.dispatch<FillU32>("outside", {.out = w, .value = 0});
  {
    auto s = g.span("prover");
    {
      auto t = g.span("commit");
      g.dispatch<FillU32>("inner", {.out = w, .value = 1});
    }
    g.dispatch<FillU32>("middle", {.out = w, .value = 2});
  }
  const auto& spans = g.spans();
  ASSERT_EQ(spans.size(), 3u);
  EXPECT_EQ(spans[2].path, "prover/commit");
  EXPECT_EQ(g.tasks()[0].span, 0u);
  EXPECT_EQ(spans[g.tasks()[1].span].path, "prover/commit");
  EXPECT_EQ(spans[g.tasks()[2].span].path, "prover");
}
