// The Vulkan executor beyond the shared executor suite (tests/parity/): device choice, both memory
// paths (unified memory, and device-local buffers with staging copies forced on lavapipe), exact
// host tasks between submissions (staging counts), transient aliasing,
// Persistent buffers across plans, large grids, views at odd offsets, spans with device timestamps,
// the pipeline cache file, and errors. Every test runs under the Khronos validation layer with
// synchronization validation and ends with zero validation messages.
#include "executors/vulkan/vulkan_executor.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "kernels/basic.hpp"
#include "runtime/graph.hpp"

using namespace vkstark;

namespace {

// FillU32 with one invocation per workgroup: a modest grid then needs more workgroups than
// maxComputeWorkGroupCount[0] (65535 on lavapipe), forcing the two-dimensional dispatch mapping.
struct FillU32OnePerGroup {
  static constexpr std::string_view name = "fill_u32";
  static constexpr uint32_t workgroup_size = 1;
  using Args = FillU32::Args;
  static void cpu(const Args& a, const CpuContext& ctx) { FillU32::cpu(a, ctx); }
};

// FillU32 without the grid it states: for dispatches over grids its views do not imply.
struct FillU32AnyGrid {
  static constexpr std::string_view name = "fill_u32";
  using Args = FillU32::Args;
  static void cpu(const Args& a, const CpuContext& ctx) { FillU32::cpu(a, ctx); }
};

// A kernel with no GLSL body.
struct NoSpirv {
  static constexpr std::string_view name = "no_such_kernel";
  using Args = FillU32::Args;
  static void cpu(const Args&, const CpuContext&) {}
};

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& m : v) s += m + "\n";
  return s;
}

// Parameter: lavapipe's unified memory (0); the staging path discrete GPUs use (1), with the uploads
// in a submission of their own on a transfer queue that the run waits for (2: a queue of the compute
// family, lavapipe having no transfer family; the path a GPU's copy engines take).
class VulkanExecutorTest : public ::testing::TestWithParam<int> {
 protected:
  void SetUp() override {
    VulkanOptions options;
    options.validate = true;
    options.force_staging = GetParam() >= 1;
    options.transfer_queue = GetParam() == 2 ? "same" : "off";
    executor_ = make_vulkan_executor(options);
  }
  void TearDown() override {
    if (!executor_) return;
    EXPECT_TRUE(vulkan().validation_messages().empty()) << join(vulkan().validation_messages());
  }
  VulkanExecutor& vulkan() { return dynamic_cast<VulkanExecutor&>(*executor_); }
  Executor& exec() { return *executor_; }
  // The staging path: forced by the parameter, or the device's own (discrete GPUs).
  bool staging() { return !exec().limits().unified_memory; }

  std::unique_ptr<PreparedPlan> run(const Graph& g, const std::function<void(PreparedPlan&)>& upload = {},
                                    PlanOptions options = {}) {
    auto p = exec().prepare(compile(g, options));
    if (upload) upload(*p);
    p->run(trace);
    return p;
  }

  std::unique_ptr<Executor> executor_;
  Trace trace;
};

INSTANTIATE_TEST_SUITE_P(Memory, VulkanExecutorTest, ::testing::Values(0, 1, 2),
                         [](const ::testing::TestParamInfo<int>& p) {
                           return p.param == 0 ? "Unified" : p.param == 1 ? "Staging" : "StagingTransferQueue";
                         });

}  // namespace

TEST_P(VulkanExecutorTest, FillThenCopyGivesTheExpectedWords) {
  Graph g;
  auto a = g.output<uint32_t>("a", 1000);
  auto b = g.output<uint32_t>("b", 1000);
  g.dispatch<FillU32>("fill", {.out = a, .value = 0xdeadbeef});
  g.dispatch<CopyU32>("copy", {.src = a, .dst = b});
  auto p = run(g);
  EXPECT_EQ(p->download(b), std::vector<uint32_t>(1000, 0xdeadbeef));
  EXPECT_EQ(p->download(a), std::vector<uint32_t>(1000, 0xdeadbeef));
  EXPECT_EQ(trace.counters.bytes_down, 8000u);
  EXPECT_GT(trace.counters.peak_device_bytes, 8000u);
}

TEST_P(VulkanExecutorTest, ViewsAtOddOffsetsAndSizesTouchExactlyTheirElements) {
  struct Case {
    uint32_t size, offset;
    Buffer<uint32_t> src, dst;
  };
  std::vector<Case> cases;
  Graph g;
  for (uint32_t size : {1u, 2u, 3u, 255u, 256u, 1023u, 1024u, 4097u})
    for (uint32_t offset : {0u, 1u, 3u, 5u}) {
      Case c{size, offset, {}, {}};
      uint32_t total = offset + size + 3;
      std::string id = std::to_string(size) + "@" + std::to_string(offset);
      c.src = g.output<uint32_t>("src" + id, total);
      c.dst = g.output<uint32_t>("dst" + id, total);
      g.dispatch<FillU32>("clear", {.out = c.src, .value = 1});
      g.dispatch<FillU32>("clear", {.out = c.dst, .value = 2});
      g.dispatch<FillU32>("fill", {.out = c.src.slice(offset, size), .value = size});
      // Copy to an offset that differs from the source's, so both windows are rounded differently.
      g.dispatch<CopyU32>("copy", {.src = c.src.slice(offset, size), .dst = c.dst.slice(3 - offset % 3, size)});
      cases.push_back(c);
    }
  auto p = run(g);
  for (const Case& c : cases) {
    auto src = p->download(c.src);
    auto dst = p->download(c.dst);
    uint32_t d0 = 3 - c.offset % 3;
    for (uint32_t i = 0; i < src.size(); ++i) {
      bool in_src = i >= c.offset && i < c.offset + c.size;
      bool in_dst = i >= d0 && i < d0 + c.size;
      ASSERT_EQ(src[i], in_src ? c.size : 1u) << "size " << c.size << " offset " << c.offset << " src[" << i << "]";
      ASSERT_EQ(dst[i], in_dst ? c.size : 2u) << "size " << c.size << " offset " << c.offset << " dst[" << i << "]";
    }
  }
}

TEST_P(VulkanExecutorTest, LargeGridsReachEveryElement) {
  const uint32_t n = 1u << 22;      // 16384 workgroups of 256
  const uint32_t m = 65535 + 1001;  // one invocation per workgroup: more groups than maxComputeWorkGroupCount[0]
  Graph g;
  auto x = g.output<uint32_t>("x", n);
  auto y = g.output<uint32_t>("y", m);
  g.dispatch<FillU32>("fill", {.out = x, .value = 3});
  g.dispatch<FillU32OnePerGroup>("fill one per group", {.out = y, .value = 4}, Grid{m});
  auto p = run(g);
  auto gx = p->download(x);
  auto gy = p->download(y);
  EXPECT_EQ(std::count(gx.begin(), gx.end(), 3u), n);
  EXPECT_EQ(std::count(gy.begin(), gy.end(), 4u), m);
}

TEST_P(VulkanExecutorTest, AnEmptyGridIsCountedButRunsNothing) {
  Graph g;
  auto x = g.output<uint32_t>("x", 8);
  g.dispatch<FillU32>("fill", {.out = x, .value = 9});
  g.dispatch<FillU32>("nothing", {.out = x.slice(8, 0), .value = 1});
  g.dispatch<FillU32AnyGrid>("rows of nothing", {.out = x.slice(0, 4), .value = 1}, Grid{0, 4});
  auto p = run(g);
  EXPECT_EQ(trace.counters.dispatches, 3u);
  EXPECT_EQ(p->download(x), std::vector<uint32_t>(8, 9));
}

TEST_P(VulkanExecutorTest, AHostTaskSplitsTheSubmissionAndSeesAndWritesCurrentData) {
  Graph g;
  auto x = g.output<uint32_t>("x", 100);
  auto y = g.transient<uint32_t>("y", 100);
  auto z = g.output<uint32_t>("z", 100);
  g.dispatch<FillU32>("fill", {.out = x, .value = 5});
  g.host("double", {host_read(x.slice(10, 80)), host_write(y.all())}, [&](const HostContext& ctx) {
    auto in = ctx.read(x.slice(10, 80));
    auto out = ctx.write(y.all());
    for (uint32_t i = 0; i < 100; ++i) out[i] = i < 80 ? 2 * in[i] + i : i;
  });
  g.dispatch<CopyU32>("copy", {.src = y, .dst = z});
  auto p = run(g);
  EXPECT_EQ(trace.counters.submissions, 2u);
  EXPECT_EQ(trace.counters.host_syncs, 2u);
  EXPECT_EQ(trace.counters.host_tasks, 1u);
  EXPECT_EQ(trace.counters.dispatches, 2u);
  EXPECT_EQ(trace.counters.bytes_down, 800u + 320u);  // Outputs + what the host task read
  auto got = p->download(z);
  for (uint32_t i = 0; i < 100; ++i) ASSERT_EQ(got[i], i < 80 ? 10 + i : i) << i;
}

TEST_P(VulkanExecutorTest, HostTasksFirstAndBackToBackSeeEachOthersWrites) {
  Graph g;
  auto x = g.output<uint32_t>("x", 32);
  auto y = g.output<uint32_t>("y", 32);
  auto z = g.output<uint32_t>("z", 32);
  g.host("make x", {host_write(x.all())}, [&](const HostContext& ctx) {
    auto out = ctx.write(x.all());
    for (uint32_t i = 0; i < 32; ++i) out[i] = i;
  });
  g.host("x to y", {host_read(x.all()), host_write(y.all())}, [&](const HostContext& ctx) {
    auto in = ctx.read(x.all());
    auto out = ctx.write(y.all());
    for (uint32_t i = 0; i < 32; ++i) out[i] = in[i] * 3;
  });
  g.dispatch<CopyU32>("copy", {.src = y, .dst = z});
  g.host("patch z", {host_write(z.slice(0, 1))}, [&](const HostContext& ctx) { ctx.write(z.slice(0, 1))[0] = 99; });
  auto p = run(g);
  // On the staging path a host task with no submission right before it needs its own copy submission.
  EXPECT_EQ(trace.counters.submissions, staging() ? 3u : 1u);
  EXPECT_EQ(trace.counters.host_syncs, staging() ? 3u : 1u);
  EXPECT_EQ(trace.counters.host_tasks, 3u);
  auto got = p->download(z);
  EXPECT_EQ(got[0], 99u);
  for (uint32_t i = 1; i < 32; ++i) ASSERT_EQ(got[i], 3 * i) << i;
  // A second run starts from the same state and gives the same result.
  p->run(trace);
  EXPECT_EQ(p->download(z), got);
}

TEST_P(VulkanExecutorTest, TransientsWithDisjointLifetimesShareMemoryAndKeepTheirValues) {
  Graph g;
  auto in = g.input<uint32_t>("in", 300);
  auto out = g.output<uint32_t>("out", 300);
  std::vector<Buffer<uint32_t>> t;
  for (int i = 0; i < 5; ++i) t.push_back(g.transient<uint32_t>("t" + std::to_string(i), 300));
  g.dispatch<CopyU32>("start", {.src = in, .dst = t[0]});
  for (int i = 0; i + 1 < 5; ++i) {
    g.dispatch<CopyU32>("step", {.src = t[i], .dst = t[i + 1]});
    // Overwrite part of each new transient so that a stale alias would show.
    g.dispatch<FillU32>("mark", {.out = t[i + 1].slice(0, uint32_t(i + 1)), .value = uint32_t(100 + i)});
  }
  g.dispatch<CopyU32>("end", {.src = t[4], .dst = out});
  Plan plan = compile(g);
  EXPECT_LT(plan.memory.transient_arena_bytes, 5u * 300 * 4);
  std::vector<uint32_t> data(300);
  for (uint32_t i = 0; i < 300; ++i) data[i] = 1000 + i;
  auto p = run(g, [&](PreparedPlan& pp) { pp.upload(in, data); });
  EXPECT_EQ(trace.counters.bytes_up, 1200u);
  auto got = p->download(out);
  for (uint32_t i = 0; i < 300; ++i) ASSERT_EQ(got[i], i < 4 ? 103u : data[i]) << i;
}

// Host memory of the executor's (Executor::host_memory): uploads from it are copied by the device
// in place (staging path) and the plan holds it until the run has finished; an upload from part of
// it lands where it should; the device's copies are timed (Trace::upload_device_ms).
TEST_P(VulkanExecutorTest, UploadsFromHostMemoryAreCopiedInPlaceAndHeldUntilTheRunEnds) {
  Graph g;
  auto in = g.input<uint32_t>("in", 1000);
  auto out = g.output<uint32_t>("out", 1000);
  g.dispatch<CopyU32>("copy", {.src = in, .dst = out});
  auto p = exec().prepare(compile(g));
  std::vector<uint32_t> expected(1000);
  for (int round = 0; round < 2; ++round) {
    std::shared_ptr<HostMemory> memory = exec().host_memory(4 * 1200);
    ASSERT_GE(memory->size(), 4u * 1200);
    auto* words = reinterpret_cast<uint32_t*>(memory->data());
    for (uint32_t i = 0; i < 1200; ++i) words[i] = 7 * i + uint32_t(round);
    // From an offset into the memory, which the caller then drops: the plan holds it.
    p->upload(in, std::span<const uint32_t>(words + 100, 1000));
    for (uint32_t i = 0; i < 1000; ++i) expected[i] = 7 * (i + 100) + uint32_t(round);
    std::weak_ptr<HostMemory> weak = memory;
    memory.reset();
    words = nullptr;
    EXPECT_EQ(weak.expired(), !staging()) << "a staging upload from host memory is copied in place";
    p->start(trace);
    p->wait();
    EXPECT_TRUE(weak.expired()) << "held past the run";
    EXPECT_EQ(p->download(out), expected);
    EXPECT_EQ(trace.counters.bytes_up, 4000u * uint64_t(round + 1));
  }
  if (staging()) EXPECT_GE(trace.upload_device_ms, 0.0);
}

TEST_P(VulkanExecutorTest, APersistentBufferWrittenByOnePlanIsReadByTheNext) {
  {
    Graph g;
    auto table = g.persistent<uint32_t>("test.table", 64);
    auto keys = g.persistent<uint32_t>("test.keys", 8);
    g.dispatch<FillU32>("init", {.out = table, .value = 42});
    auto p = run(g, [&](PreparedPlan& pp) { pp.upload(keys, std::vector<uint32_t>{1, 2, 3, 4, 5, 6, 7, 8}); });
    EXPECT_EQ(p->download(table), std::vector<uint32_t>(64, 42));
  }
  Graph g;
  auto table = g.persistent<uint32_t>("test.table", 64);
  auto keys = g.persistent<uint32_t>("test.keys", 8);
  auto out = g.output<uint32_t>("out", 72);
  g.dispatch<CopyU32>("read table", {.src = table, .dst = out.slice(0, 64)});
  g.dispatch<CopyU32>("read keys", {.src = keys, .dst = out.slice(64, 8)});
  g.host("bump keys", {host_read(keys.all()), host_write(keys.slice(0, 1))},
         [&](const HostContext& ctx) { ctx.write(keys.slice(0, 1))[0] = ctx.read(keys.all())[7] + 100; });
  auto p = run(g);
  auto got = p->download(out);
  EXPECT_EQ(std::vector<uint32_t>(got.begin(), got.begin() + 64), std::vector<uint32_t>(64, 42));
  EXPECT_EQ(std::vector<uint32_t>(got.begin() + 64, got.end()), (std::vector<uint32_t>{1, 2, 3, 4, 5, 6, 7, 8}));
  EXPECT_EQ(p->download(keys), (std::vector<uint32_t>{108, 2, 3, 4, 5, 6, 7, 8}));

  Graph wrong;
  (void)wrong.persistent<uint32_t>("test.table", 65);
  EXPECT_THROW((void)exec().prepare(compile(wrong)), GraphError);
}

TEST_P(VulkanExecutorTest, AnInputNeverUploadedIsAnInputErrorNamingIt) {
  Graph g;
  auto in = g.input<uint32_t>("the input", 4);
  auto out = g.output<uint32_t>("out", 4);
  g.dispatch<CopyU32>("copy", {.src = in, .dst = out});
  auto p = exec().prepare(compile(g));
  try {
    p->run(trace);
    FAIL() << "ran without its input";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("'the input'"), std::string::npos) << e.what();
  }
  p->upload(in, std::vector<uint32_t>{1, 2, 3, 4});
  p->run(trace);
  p->run(trace);  // the upload stays for later runs and is counted once
  EXPECT_EQ(trace.counters.bytes_up, 16u);
  EXPECT_EQ(p->download(out), (std::vector<uint32_t>{1, 2, 3, 4}));
}

TEST_P(VulkanExecutorTest, AKernelWithoutSpirvIsADeviceErrorAtPrepare) {
  Graph g;
  auto x = g.output<uint32_t>("x", 4);
  g.dispatch<NoSpirv>("orphan", {.out = x, .value = 1}, Grid{4});
  try {
    (void)exec().prepare(compile(g));
    FAIL() << "prepared a kernel without SPIR-V";
  } catch (const DeviceError& e) {
    EXPECT_NE(std::string(e.what()).find("no_such_kernel"), std::string::npos) << e.what();
  }
}

TEST_P(VulkanExecutorTest, NestedSpansCountTheirDispatchesAndGetDeviceTimes) {
  Graph g;
  auto x = g.output<uint32_t>("x", 256);
  g.dispatch<FillU32>("first", {.out = x, .value = 0});
  {
    auto outer = g.span("outer");
    g.dispatch<FillU32>("a", {.out = x.slice(0, 128), .value = 1});
    {
      auto inner = g.span("inner");
      g.dispatch<FillU32>("b", {.out = x.slice(128, 128), .value = 2});
      g.dispatch<CopyU32>("c", {.src = x.slice(128, 128), .dst = x.slice(0, 128)});
    }
    auto host = g.span("host only");
    g.host("look", {host_read(x.all())}, [](const HostContext&) {});
  }
  auto p = run(g);
  ASSERT_EQ(trace.spans.size(), 4u);
  EXPECT_EQ(trace.executor, "vulkan");
  EXPECT_EQ(trace.device, exec().device_name());
  EXPECT_EQ(trace.spans[0].dispatches, 4u);
  EXPECT_EQ(trace.spans[1].dispatches, 3u);
  EXPECT_EQ(trace.spans[2].dispatches, 2u);
  EXPECT_EQ(trace.spans[3].dispatches, 0u);
  EXPECT_EQ(trace.spans[0].barriers, 2u);
  EXPECT_EQ(trace.spans[1].barriers, 2u);  // before "a" (WAW on x) and before "c" (RAW)
  EXPECT_EQ(trace.spans[2].barriers, 1u);
  EXPECT_EQ(trace.spans[1].submissions, 1u);
  for (int s = 0; s < 3; ++s) {
    EXPECT_GE(trace.spans[s].device_ms, 0.0) << trace.spans[s].path;
    EXPECT_GE(trace.spans[s].device_start_ms, 0.0) << trace.spans[s].path;
    EXPECT_GE(trace.spans[s].host_ms, 0.0) << trace.spans[s].path;
  }
  EXPECT_EQ(trace.spans[3].device_ms, -1.0);
  EXPECT_LE(trace.spans[2].device_ms, trace.spans[1].device_ms);
  EXPECT_LE(trace.spans[1].host_ms, trace.spans[0].host_ms);
  EXPECT_GT(trace.total_host_ms, 0.0);
  auto got = p->download(x);
  EXPECT_EQ(got, std::vector<uint32_t>(256, 2));
}

TEST_P(VulkanExecutorTest, LimitsComeFromTheDevice) {
  ExecutorLimits l = exec().limits();
  EXPECT_EQ(exec().name(), "vulkan");
  EXPECT_GE(l.max_workgroup_size, 1u);
  EXPECT_LE(l.max_workgroup_size, 256u);
  EXPECT_GE(l.subgroup_size, 1u);
  EXPECT_GT(l.max_buffer_bytes, 0u);
  EXPECT_GT(l.max_binding_bytes, 0u);
  if (GetParam()) {
    EXPECT_FALSE(l.unified_memory);
  }
  EXPECT_TRUE(vulkan().validation_enabled());
}

TEST(VulkanExecutor, ADeviceOverrideMatchingNothingIsADeviceError) {
  VulkanOptions options;
  options.device = "nonexistent";
  EXPECT_THROW((void)make_vulkan_executor(options), DeviceError);
  setenv("VKSTARK_VULKAN_DEVICE", "nonexistent", 1);
  try {
    (void)make_vulkan_executor();
    FAIL() << "made an executor on a device that does not exist";
  } catch (const DeviceError& e) {
    EXPECT_NE(std::string(e.what()).find("nonexistent"), std::string::npos) << e.what();
  }
  setenv("VKSTARK_VULKAN_DEVICE", "0", 1);  // an index works
  EXPECT_NO_THROW((void)make_vulkan_executor());
  unsetenv("VKSTARK_VULKAN_DEVICE");
}

TEST(VulkanExecutor, ListsTheDevicesTheLoaderSees) {
  auto names = list_vulkan_devices();
  ASSERT_FALSE(names.empty());
  auto exec = make_vulkan_executor();
  EXPECT_NE(std::find(names.begin(), names.end(), exec->device_name()), names.end());
}

TEST(VulkanExecutor, AutoSelectionRefusesCpuDevicesWhenAsked) {
  VulkanOptions options;
  options.allow_cpu_device = false;
  try {
    auto exec = make_vulkan_executor(options);
    EXPECT_NE(exec->device_name().find("llvmpipe"), 0u) << "a CPU device was chosen";
  } catch (const DeviceError& e) {  // the usual case on a machine whose only device is lavapipe
    EXPECT_NE(std::string(e.what()).find("no usable Vulkan device"), std::string::npos) << e.what();
  }
}

TEST(VulkanExecutor, SavesItsPipelineCacheUnderXdgCacheHome) {
  auto dir = std::filesystem::temp_directory_path() / ("vkstark-cache-test-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  setenv("XDG_CACHE_HOME", dir.c_str(), 1);
  unsetenv("VKSTARK_PIPELINE_CACHE");
  for (int round = 0; round < 2; ++round) {  // the second round loads the file the first wrote
    VulkanOptions options;
    options.validate = true;
    auto exec = make_vulkan_executor(options);
    Graph g;
    auto x = g.output<uint32_t>("x", 4);
    g.dispatch<FillU32>("fill", {.out = x, .value = 1});
    Trace trace;
    auto p = exec->prepare(compile(g));
    p->run(trace);
    EXPECT_EQ(p->download(x), std::vector<uint32_t>(4, 1));
    p.reset();
    EXPECT_TRUE(dynamic_cast<VulkanExecutor&>(*exec).validation_messages().empty());
  }
  bool found = false;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir))
    found |= e.path().filename().string().starts_with("pipelines-") && e.file_size() > 0;
  EXPECT_TRUE(found) << "no pipeline cache file under " << dir;
  std::filesystem::remove_all(dir);
  unsetenv("XDG_CACHE_HOME");
}

// What the driver lets the process allocate (VK_EXT_memory_budget) falls by a prepared plan's
// memory, and the staging it counts is what a discrete GPU's plan takes beside it.
TEST_P(VulkanExecutorTest, TheMemoryAvailableFallsByWhatAPreparedPlanHolds) {
  Graph g;
  auto in = g.input<uint32_t>("in", 1 << 20);
  auto t = g.transient<uint32_t>("t", 16 << 20);
  auto out = g.output<uint32_t>("out", 1 << 20);
  g.dispatch<CopyU32>("t", {.src = in, .dst = t.slice(0, 1 << 20)});
  g.dispatch<CopyU32>("out", {.src = t.slice(0, 1 << 20), .dst = out});
  const Plan plan = compile(g);
  EXPECT_EQ(exec().staging_bytes(plan), staging() ? uint64_t(8) << 20 : 0u);
  const std::optional<Executor::MemoryAvailable> before = exec().memory_available();
  if (!before) GTEST_SKIP() << "the device has no VK_EXT_memory_budget (Mesa 22's lavapipe): the staging only";
  EXPECT_LE(before->device_bytes, exec().limits().device_memory_bytes);
  auto p = exec().prepare(plan);
  const std::optional<Executor::MemoryAvailable> after = exec().memory_available();
  ASSERT_TRUE(after);
  // At least the plan's 64 MiB transient (drivers round allocations up; other processes may move it).
  EXPECT_LE(after->device_bytes + (uint64_t(60) << 20), before->device_bytes);
}
