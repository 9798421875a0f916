// CPU-executor specifics: an exception thrown by a kernel body on a worker thread reaches the
// caller as ExecutionError naming the task (style.md item 4), also from a group of concurrent tasks.
#include <gtest/gtest.h>

#include "executors/cpu/cpu_executor.hpp"
#include "kernels/basic.hpp"
#include "kernels/transcript.hpp"
#include "stages/transcript.hpp"

using namespace vkstark;

namespace {
// A kernel whose CPU body throws: sample_bits(31) has no meaning (the DeviceTranscript builder
// rejects it; building the Args by hand skips that check).
void add_failing_task(Graph& g, const std::string& name, Buffer<SpongeState> t, View<uint32_t> out) {
  g.dispatch<TranscriptSampleBits>(name, {.t = t, .out = out, .bits = 31}, Grid{1});
}
}  // namespace

TEST(CpuExecutor, KernelExceptionNamesTheTask) {
  Graph g;
  DeviceTranscript t(g, "t");
  auto out = g.output<uint32_t>("out", 1);
  add_failing_task(g, "draw_queries", t.state(), out);
  auto exec = make_cpu_executor();
  auto p = exec->prepare(compile(g));
  Trace trace;
  try {
    p->run(trace);
    FAIL() << "no exception";
  } catch (const ExecutionError& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("draw_queries"), std::string::npos) << msg;
    EXPECT_NE(msg.find("transcript_sample_bits"), std::string::npos) << msg;
  }
}

TEST(CpuExecutor, ExceptionFromOneOfSeveralConcurrentTasksIsNotLost) {
  Graph g;
  auto x = g.output<uint32_t>("x", 64);
  for (uint32_t i = 0; i < 32; ++i) g.dispatch<FillU32>("fill", {.out = x.slice(i, 1), .value = i}, Grid{1});
  DeviceTranscript t(g, "t");
  add_failing_task(g, "bad_one", t.state(), x.slice(40, 1));
  for (uint32_t i = 0; i < 8; ++i) g.dispatch<FillU32>("fill2", {.out = x.slice(48 + i, 1), .value = i}, Grid{1});
  Plan plan = compile(g);
  auto exec = make_cpu_executor();
  auto p = exec->prepare(plan);
  Trace trace;
  EXPECT_THROW(p->run(trace), ExecutionError);
}

TEST(CpuExecutor, DescribesItself) {
  auto exec = make_cpu_executor();
  EXPECT_EQ(exec->name(), "cpu");
  EXPECT_NE(exec->device_name().find("TBB"), std::string::npos);
  EXPECT_TRUE(exec->limits().unified_memory);
}
