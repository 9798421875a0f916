// Specifies the memory side of compile() at scale (architecture.md, "Memory at scale"): the
// transient arena in chunks of at most one allocation, every buffer and view checked against the
// limits the plan is compiled for, Inputs that give their memory back after their last use, the
// breakdown of where a plan's memory goes, and check_plan_fits refusing a plan before anything is
// allocated.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "kernels/basic.hpp"
#include "kernels/elementwise.hpp"
#include "runtime/error.hpp"
#include "runtime/executor.hpp"
#include "runtime/plan.hpp"

using namespace vkstark;

namespace {
std::string graph_error(const Graph& g, const PlanOptions& options) {
  try {
    (void)compile(g, options);
  } catch (const GraphError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST(MemoryPlan, TheArenaIsSplitIntoChunksOfAtMostOneAllocation) {
  Graph g;
  auto a = g.input<uint32_t>("a", 1024);
  std::vector<Buffer<uint32_t>> ts;
  for (int i = 0; i < 6; ++i) ts.push_back(g.transient<uint32_t>(fmt::format("t{}", i), 1024));  // 4 KiB each
  for (auto& t : ts) g.dispatch<CopyU32>("fill", {.src = a, .dst = t});
  auto out = g.output<uint32_t>("out", 1024);
  for (auto& t : ts) g.dispatch<CopyU32>("read", {.src = t, .dst = out});  // all six live together
  PlanOptions options;
  options.limits.max_allocation_bytes = 3 * 4096;
  const Plan p = compile(g, options);
  EXPECT_EQ(p.memory.arena_chunks, (std::vector<uint64_t>{3 * 4096, 3 * 4096}));
  EXPECT_EQ(p.memory.transient_arena_bytes, 6u * 4096);
  EXPECT_EQ(p.memory.peak_live_bytes, 6u * 4096);
  const Plan whole = compile(g);
  EXPECT_EQ(whole.memory.arena_chunks, (std::vector<uint64_t>{6 * 4096}));
}

TEST(MemoryPlan, ABufferLargerThanOneAllocationIsAGraphErrorNamingIt) {
  PlanOptions options;
  options.limits.max_allocation_bytes = 8192;
  {
    Graph g;
    auto a = g.input<uint32_t>("a", 1024);
    auto big = g.transient<uint32_t>("big", 4096);
    g.dispatch<CopyU32>("copy", {.src = a, .dst = big.slice(0, 1024)});
    const std::string e = graph_error(g, options);
    EXPECT_NE(e.find("buffer 'big' (16384 bytes, Transient)"), std::string::npos) << e;
    EXPECT_NE(e.find("8192 bytes"), std::string::npos) << e;
  }
  {
    Graph g;
    auto a = g.input<uint32_t>("trace", 4096);
    auto t = g.transient<uint32_t>("t", 1024);
    g.dispatch<CopyU32>("copy", {.src = a.slice(0, 1024), .dst = t});
    EXPECT_NE(graph_error(g, options).find("buffer 'trace' (16384 bytes, Input)"), std::string::npos);
    options.inputs_in_arena = true;
    EXPECT_NE(graph_error(g, options).find("buffer 'trace' (16384 bytes, Input)"), std::string::npos);
  }
}

TEST(MemoryPlan, AViewLargerThanOneBindingIsAGraphErrorNamingTheTask) {
  Graph g;
  auto a = g.input<uint32_t>("a", 4096);
  auto t = g.transient<uint32_t>("t", 4096);
  g.dispatch<CopyU32>("small", {.src = a.slice(0, 1024), .dst = t.slice(0, 1024)});
  g.dispatch<CopyU32>("large", {.src = a, .dst = t});
  PlanOptions options;
  options.limits.max_binding_bytes = 8192;
  const std::string e = graph_error(g, options);
  EXPECT_NE(e.find("task 'large': its view of buffer 'a' is 16384 bytes"), std::string::npos) << e;
}

TEST(MemoryPlan, AViewFitsABindingOnlyWithItsAlignment) {
  MemoryLimits lim;
  lim.max_binding_bytes = 4096;
  EXPECT_TRUE(lim.binds(0, 4096));
  EXPECT_TRUE(lim.binds(256, 4096));
  EXPECT_FALSE(lim.binds(4, 4096));   // bound from byte 0: 4100 bytes
  EXPECT_TRUE(lim.binds(260, 4092));  // from byte 256
  EXPECT_EQ(lim.max_view_bytes(), 4096u - kTransientAlignment);
  EXPECT_EQ(MemoryLimits{}.max_view_bytes(), ~uint64_t(0));
  Graph g;
  auto a = g.input<uint32_t>("a", 2048);
  auto t = g.transient<uint32_t>("t", 1024);
  g.dispatch<CopyU32>("shifted", {.src = a.slice(1, 1023), .dst = t.slice(0, 1023)});
  EXPECT_EQ(graph_error(g, {.limits = lim}), "");
  g.dispatch<CopyU32>("shifted_whole", {.src = a.slice(1, 1024), .dst = t});
  EXPECT_NE(
      graph_error(g, {.limits = lim}).find("task 'shifted_whole': its view of buffer 'a' is 4096 bytes from byte 4"),
      std::string::npos);
}

TEST(MemoryPlan, InputsInTheArenaGiveTheirMemoryBackAfterTheirLastUse) {
  Graph g;
  auto a = g.input<uint32_t>("trace", 1024);
  auto b = g.transient<uint32_t>("b", 1024);
  auto c = g.transient<uint32_t>("c", 1024);
  auto out = g.output<uint32_t>("out", 1024);
  g.dispatch<CopyU32>("b", {.src = a, .dst = b});  // the trace's last use
  g.dispatch<CopyU32>("c", {.src = b, .dst = c});
  g.dispatch<CopyU32>("out", {.src = c, .dst = out});
  const Plan apart = compile(g);
  EXPECT_FALSE(apart.memory.placement[a.id()].in_arena());
  const Plan shared = compile(g, {.inputs_in_arena = true});
  ASSERT_TRUE(shared.memory.placement[a.id()].in_arena());
  EXPECT_EQ(shared.memory.placement[c.id()].offset, shared.memory.placement[a.id()].offset);
  EXPECT_LT(plan_device_bytes(shared.memory), plan_device_bytes(apart.memory));
  // Live from the start: nothing made before the Input's first use may take its memory.
  Graph h;
  auto early = h.transient<uint32_t>("early", 1024);
  auto x = h.input<uint32_t>("x", 1024);
  auto o = h.output<uint32_t>("o", 1024);
  h.dispatch<FillU32>("early", {.out = early, .value = 1});
  h.dispatch<CopyU32>("early_out", {.src = early, .dst = o});
  h.dispatch<CopyU32>("x_out", {.src = x, .dst = o});
  const Plan q = compile(h, {.inputs_in_arena = true});
  EXPECT_NE(q.memory.placement[early.id()].offset, q.memory.placement[x.id()].offset);
}

TEST(MemoryPlan, TheBreakdownNamesTheGroupsAndAddsUpToTheDeviceBytes) {
  Graph g;
  auto a = [&] {
    auto group = g.memory_group("trace");
    return g.input<uint32_t>("trace", 1024);
  }();
  Buffer<uint32_t> cw, tmp;
  {
    auto group = g.memory_group("codeword");
    cw = g.transient<uint32_t>("codeword", 2048);
    auto inner = g.memory_group("tree");
    tmp = g.transient<uint32_t>("tree", 512);
  }
  auto work = g.transient<uint32_t>("scratch", 256);
  auto out = g.output<uint32_t>("out", 16);
  g.dispatch<CopyU32>("cw", {.src = a, .dst = cw.slice(0, 1024)});
  g.dispatch<CopyU32>("tree", {.src = cw.slice(0, 512), .dst = tmp});
  g.dispatch<CopyU32>("work", {.src = tmp.slice(0, 256), .dst = work});
  g.dispatch<CopyU32>("out", {.src = work.slice(0, 16), .dst = out});
  g.dispatch<CopyU32>("keep", {.src = cw.slice(0, 16), .dst = out});
  EXPECT_EQ(g.buffers()[work.id()].group, "");
  const Plan p = compile(g);
  const std::vector<MemoryPart> parts = memory_breakdown(p);
  uint64_t total = 0;
  for (const MemoryPart& m : parts) total += m.bytes;
  EXPECT_EQ(total, plan_device_bytes(p.memory));
  ASSERT_FALSE(parts.empty());
  EXPECT_EQ(parts[0].group, "codeword");
  EXPECT_EQ(parts[0].bytes, 8192u);
  auto find = [&](const std::string& name) {
    for (const MemoryPart& m : parts)
      if (m.group == name) return m.bytes;
    return uint64_t(0);
  };
  EXPECT_EQ(find("trace"), 4096u);
  EXPECT_EQ(find("outputs"), 64u);
  EXPECT_EQ(find("tree") + find("work"), p.memory.peak_live_bytes - 8192);
  EXPECT_NE(format_memory_breakdown(parts).find("codeword 0.000"), std::string::npos);
  // The report for people shrinking a plan: the peak's task, the buffers live there with their
  // first and last tasks (largest first), the dedicated buffers apart.
  const std::string report = memory_report(p);
  EXPECT_NE(report.find(fmt::format("peak live {:.3f} GB at task {} '{}'", double(p.memory.peak_live_bytes) / 1e9,
                                    p.memory.peak_task, p.tasks[size_t(p.memory.peak_task)].name)),
            std::string::npos)
      << report;
  EXPECT_NE(report.find("codeword [codeword] cw .. keep"), std::string::npos) << report;
  EXPECT_LT(report.find("codeword [codeword]"), report.find("dedicated buffers")) << report;
  EXPECT_NE(report.find("trace [trace] cw .. cw"), std::string::npos) << report;
  EXPECT_LT(report.find("tree [tree] tree .. work"), report.find("scratch [work] work .. out")) << report;
}

TEST(MemoryPlan, APlanLargerThanTheDeviceIsRefusedBeforeAnythingIsAllocated) {
  Graph g;
  auto a = g.input<uint32_t>("a", 1 << 20);
  auto t = g.transient<uint32_t>("t", 1 << 20);
  auto o = g.output<uint32_t>("o", 16);
  g.dispatch<CopyU32>("t", {.src = a, .dst = t});
  g.dispatch<CopyU32>("o", {.src = t.slice(0, 16), .dst = o});
  const Plan p = compile(g);
  ExecutorLimits lim;
  lim.max_buffer_bytes = ~uint64_t(0);
  lim.max_binding_bytes = ~uint64_t(0);
  lim.device_memory_bytes = 9u << 20;
  EXPECT_NO_THROW(check_plan_fits(p, lim, "test device"));
  lim.device_memory_bytes = 6u << 20;
  try {
    check_plan_fits(p, lim, "test device");
    FAIL() << "no error";
  } catch (const DeviceError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find(fmt::format("needs {} bytes", plan_device_bytes(p.memory))), std::string::npos) << m;
    EXPECT_NE(m.find("6291456 bytes of test device"), std::string::npos) << m;
  }
  // A plan compiled without limits on a device with smaller allocations or bindings.
  lim.device_memory_bytes = ~uint64_t(0);
  lim.max_buffer_bytes = 1 << 20;
  EXPECT_THROW(check_plan_fits(p, lim, "test device"), DeviceError);
  lim.max_buffer_bytes = ~uint64_t(0);
  lim.max_binding_bytes = 1 << 20;
  try {
    check_plan_fits(p, lim, "test device");
    FAIL() << "no error";
  } catch (const DeviceError& e) {
    EXPECT_NE(std::string(e.what()).find("task 't'"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)compile(g, {.limits = memory_limits(lim)}), GraphError);  // its builder must split it
}
