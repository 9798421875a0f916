// CPU-executor specifics: an exception thrown by a kernel body on a worker thread reaches the
// caller as ExecutionError naming the task (style.md item 4), also from a group of concurrent tasks.
#include <gtest/gtest.h>

#include <stdexcept>

#include "executors/cpu/cpu_executor.hpp"
#include "kernels/basic.hpp"
#include "runtime/graph.hpp"

using namespace vkstark;

namespace {
// A kernel whose CPU body throws. (Kernels reject bad Args in check() when the graph is built, so
// none of the library's bodies throws on purpose.)
struct FailingKernel {
  static constexpr std::string_view name = "failing_kernel";
  struct Args {
    Out<uint32_t> out;
  };
  static void cpu(const Args&, const CpuContext&) { throw std::runtime_error("this body always fails"); }
};

void add_failing_task(Graph& g, const std::string& name, View<uint32_t> out) {
  g.dispatch<FailingKernel>(name, {.out = out}, Grid{1});
}
}  // namespace

TEST(CpuExecutor, KernelExceptionNamesTheTask) {
  Graph g;
  auto out = g.output<uint32_t>("out", 1);
  add_failing_task(g, "draw_queries", out);
  auto exec = make_cpu_executor();
  auto p = exec->prepare(compile(g));
  Trace trace;
  try {
    p->run(trace);
    FAIL() << "no exception";
  } catch (const ExecutionError& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("draw_queries"), std::string::npos) << msg;
    EXPECT_NE(msg.find("failing_kernel"), std::string::npos) << msg;
    EXPECT_NE(msg.find("this body always fails"), std::string::npos) << msg;
  }
}

TEST(CpuExecutor, ExceptionFromOneOfSeveralConcurrentTasksIsNotLost) {
  Graph g;
  auto x = g.output<uint32_t>("x", 64);
  for (uint32_t i = 0; i < 32; ++i) g.dispatch<FillU32>("fill", {.out = x.slice(i, 1), .value = i});
  add_failing_task(g, "bad_one", x.slice(40, 1));
  for (uint32_t i = 0; i < 8; ++i) g.dispatch<FillU32>("fill2", {.out = x.slice(48 + i, 1), .value = i});
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
