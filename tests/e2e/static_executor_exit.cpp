// Specifies a clean process exit with executors kept in statics (the test suites do this): run a
// plan on every executor, keep the executors in a function-local static map (created before the
// executors, so destroyed after the driver's exit handlers) and in a static made after them, then
// return from main. The process must exit 0. On NVIDIA this died with SIGSEGV at exit before the
// exit guard (executors/vulkan/vk.hpp); CTest runs it and checks the status.
#include <fmt/format.h>

#include <map>
#include <memory>
#include <string>

#include "executors/executors.hpp"
#include "kernels/basic.hpp"

using namespace vkstark;

namespace {

std::map<std::string, std::unique_ptr<Executor>>& cache() {
  static std::map<std::string, std::unique_ptr<Executor>> executors;  // constructed before any executor
  return executors;
}

bool run_on(Executor& exec) {
  Graph g;
  auto out = g.output<uint32_t>("out", 64);
  g.dispatch<FillU32>("fill", {.out = out, .value = 7}, Grid{64});
  auto p = exec.prepare(compile(std::move(g)));
  Trace t;
  p->run(t);
  for (uint32_t v : p->download(out))
    if (v != 7) return false;
  return true;
}

}  // namespace

int main(int argc, char** argv) try {
  const std::string kind = argc > 1 ? argv[1] : "vulkan";
  auto& e = cache()[kind];
  e = make_executor(kind);
  if (!run_on(*e)) return 1;
  // A second executor in a static constructed after the first: destroyed before the exit guard runs.
  static std::unique_ptr<Executor> late = make_executor(kind);
  if (!run_on(*late)) return 1;
  fmt::print("static_executor_exit: {} executors ran; exiting with them alive in statics\n", kind);
  return 0;
} catch (const std::exception& e) {
  fmt::print(stderr, "static_executor_exit: {}\n", e.what());
  return 1;
}
