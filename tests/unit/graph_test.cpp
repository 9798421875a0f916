// Specifies Graph construction errors (architecture.md, "Errors"): each mistake throws GraphError
// when the task is added, and the message names the task and the buffer; a grid other than the one
// a kernel states, or scalars its check() rejects, are such mistakes too (runtime/kernel.hpp).
#include <gtest/gtest.h>

#include "kernels/basic.hpp"
#include "kernels/elementwise.hpp"
#include "kernels/ntt.hpp"
#include "kernels/pcs.hpp"
#include "kernels/transcript.hpp"
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
  expect_graph_error([&] { g.dispatch<FillU32>("fill", {.out = foreign, .value = 1}, Grid{4}); },
                     {"fill", "another graph"});
}

TEST(Graph, RejectsAForeignHandleWhoseIdIsValidHere) {
  Graph other;
  auto foreign = other.output<uint32_t>("x", 4);
  Graph g;
  auto mine = g.output<uint32_t>("x", 4);  // same id, same name, same type and size as `foreign`
  ASSERT_EQ(mine.id(), foreign.id());
  expect_graph_error([&] { g.dispatch<FillU32>("fill", {.out = foreign, .value = 1}, Grid{4}); },
                     {"task 'fill'", "binding 0", "another graph"});
  expect_graph_error([&] { g.dispatch<FillU32>("slice", {.out = foreign.slice(1, 2), .value = 1}, Grid{2}); },
                     {"slice", "another graph"});
  auto words = other.output<Fp>("words", 4);
  expect_graph_error(
      [&] { g.dispatch<FillU32>("bitcast", {.out = words.all().bitcast<uint32_t>(), .value = 1}, Grid{4}); },
      {"bitcast", "another graph"});
  expect_graph_error([&] { g.host("inspect", {host_read(foreign.all())}, [](const HostContext&) {}); },
                     {"host task 'inspect'", "another graph"});
  EXPECT_TRUE(g.tasks().empty());
  g.dispatch<FillU32>("fill", {.out = mine, .value = 1}, Grid{4});
  EXPECT_EQ(g.tasks().size(), 1u);
}

TEST(Graph, RejectsAHandleNoGraphMade) {
  Graph g;
  Buffer<uint32_t> unset;
  expect_graph_error([&] { g.dispatch<FillU32>("fill", {.out = unset, .value = 1}, Grid{4}); },
                     {"fill", "refers to no buffer of this graph"});
}

TEST(Graph, HandlesCarryTheIdOfTheirGraph) {
  Graph g, h;
  EXPECT_NE(g.id(), h.id());
  EXPECT_NE(g.id(), kNoGraph);
  auto x = g.input<Fp>("x", 8);
  EXPECT_EQ(x.graph(), g.id());
  EXPECT_EQ(x.slice(2, 3).graph, g.id());
  EXPECT_EQ(x.all().bitcast<uint32_t>().graph, g.id());
  EXPECT_EQ(g.find<Fp>("x").graph(), g.id());
  EXPECT_EQ(host_write(x.all()).graph, g.id());
  Graph copy = g;  // a copy is the same graph so far: the handles stay valid in it
  EXPECT_EQ(copy.id(), g.id());
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

TEST(Graph, RejectsAGridOtherThanTheOneTheViewsNeed) {
  Graph g;
  auto a = g.input<Fp>("a", 8);
  auto out = g.output<Fp>("out", 8);
  expect_graph_error([&] { g.dispatch<FpAdd>("sum", {.a = a, .b = a, .out = out}, Grid{7}); },
                     {"sum", "fp_add", "grid 7x1", "need grid 8x1"});
  expect_graph_error(
      [&] {
        g.dispatch<FpAdd>("sum", {.a = a, .b = a, .out = out}, Grid{8, 2});
      },
      {"sum", "grid 8x2", "need grid 8x1"});
  EXPECT_TRUE(g.tasks().empty());
}

TEST(Graph, TakesTheGridAKernelStatesWhenNoneIsGiven) {
  Graph g;
  auto a = g.input<Fp>("a", 8);
  auto out = g.output<Fp>("out", 8);
  g.dispatch<FpAdd>("sum", {.a = a, .b = a, .out = out});
  // Three columns of 2^3 rows stacked with l_skip = 2 into a matrix of height 2^4.
  auto trace = g.input<Fp>("trace", 24);
  auto stacked = g.output<Fp>("stacked", 32);
  g.dispatch<StackColumns>("stack", {.src = trace,
                                     .dst = stacked,
                                     .log_slice = 3,
                                     .log_stride = 0,
                                     .log_stacked_height = 4,
                                     .start_col = 0,
                                     .start_row = 0,
                                     .dst_col_stride = 16});
  auto state = g.transient<SpongeState>("t", 1);
  g.dispatch<FillU32>("init", {.out = state.all().bitcast<uint32_t>(), .value = 0});
  g.dispatch<TranscriptObserve>("observe", {.t = state, .values = a});
  ASSERT_EQ(g.tasks().size(), 4u);
  EXPECT_EQ(g.tasks()[0].grid, (Grid{8, 1}));
  EXPECT_EQ(g.tasks()[1].grid, (Grid{8, 3}));
  EXPECT_EQ(g.tasks()[2].grid, (Grid{18, 1}));
  EXPECT_EQ(g.tasks()[3].grid, (Grid{16, 1}));
}

TEST(Graph, RejectsScalarsAKernelCannotComputeWithWhenTheTaskIsAdded) {
  Graph g;
  auto data = g.output<Fp>("data", 64);
  g.dispatch<FillU32>("zero", {.out = data.all().bitcast<uint32_t>(), .value = 0});
  // Five bits per dispatch: the bodies hold at most 2^kNttMaxLogRadix = 16 entries in registers.
  expect_graph_error(
      [&] { g.dispatch<NttZetaFp>("zeta", {.data = data, .log_n = 6, .col_stride = 64, .bit_lo = 0, .num_bits = 5}); },
      {"zeta", "ntt_zeta_fp", "num_bits 5 outside 1 .. 4"});
  // The same with the grid given: the scalars are checked first.
  expect_graph_error(
      [&] {
        g.dispatch<NttZetaFp>("zeta", {.data = data, .log_n = 6, .col_stride = 64, .bit_lo = 3, .num_bits = 4},
                              Grid{4});
      },
      {"zeta", "bits [3, 7) of columns of 2^6 entries"});
  auto state = g.transient<SpongeState>("t", 1);
  g.dispatch<FillU32>("init", {.out = state.all().bitcast<uint32_t>(), .value = 0});
  auto out = g.output<uint32_t>("queries", 4);
  expect_graph_error([&] { g.dispatch<TranscriptSampleBits>("draw", {.t = state, .out = out, .bits = 31}); },
                     {"draw", "transcript_sample_bits", "bits 31", "at most 30"});
  EXPECT_EQ(g.tasks().size(), 2u);
}

TEST(Graph, RejectsAShapeOfViewsAKernelCannotComputeOn) {
  Graph g;
  auto src = g.input<Fp>("src", 40);
  auto tw = g.persistent<Fp>("tw", 8);
  auto dst = g.output<Fp>("dst", 40);
  // Two columns of 16 at stride 20 end at 36, not 40: the destination must hold exactly its columns.
  expect_graph_error(
      [&] {
        g.dispatch<NttStageFp>("pass", {.src = src,
                                        .dst = dst,
                                        .tw = tw,
                                        .src_stride = 20,
                                        .dst_stride = 20,
                                        .log_n = 4,
                                        .stage = 0,
                                        .log_radix = 4,
                                        .log_src = 4,
                                        .log_tw = 4});
      },
      {"pass", "ntt_stage_fp", "dst has 40 elements", "columns of 16 entries at stride 20"});
  expect_graph_error(
      [&] {
        g.dispatch<CopyU32>("copy", {.src = src.all().bitcast<uint32_t>(), .dst = dst.slice(0, 8).bitcast<uint32_t>()});
      },
      {"copy", "src has 40 elements, 8 expected"});
}
