// The shared suite every executor runs (style.md item 2): tests derive from ExecutorTest and are
// instantiated for "cpu" and "vulkan". Vulkan runs on whatever device the loader offers (lavapipe
// in CI, with VKSTARK_VALIDATE=1 set by CTest so any validation message fails the run). A missing
// Vulkan device fails the vulkan instances; nothing is skipped.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "executors/executors.hpp"
#include "executors/vulkan/vulkan_executor.hpp"
#include "kernels/types.hpp"
#include "runtime/graph.hpp"

namespace vkstark::testing {

// One executor of each kind per test process (a Vulkan instance with validation is slow to make).
// "vulkan-staging" is the Vulkan executor forced onto the discrete-GPU memory path (device-local
// buffers and staging copies, the uploads in a submission of their own on a transfer queue), so
// that path runs under validation on lavapipe too.
inline Executor& executor(const std::string& kind) {
  static std::map<std::string, std::unique_ptr<Executor>> cache;
  auto& e = cache[kind];
  if (!e) {
    if (kind == "vulkan-staging") {
      VulkanOptions options;
      options.force_staging = true;
      options.transfer_queue = "same";
      e = make_vulkan_executor(options);
    } else {
      e = make_executor(kind);
    }
  }
  return *e;
}

class ExecutorTest : public ::testing::TestWithParam<std::string> {
 protected:
  Executor& exec() { return executor(GetParam()); }

  // Compiles `g`, prepares it, lets `upload` fill the inputs, runs once into `trace`.
  std::unique_ptr<PreparedPlan> run(const Graph& g, const std::function<void(PreparedPlan&)>& upload,
                                    PlanOptions options = {}) {
    auto p = exec().prepare(compile(g, options));
    upload(*p);
    p->run(trace);
    return p;
  }
  Trace trace;
};

inline std::string executor_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string name = info.param;
  for (char& c : name)
    if (c == '-') c = '_';
  return name;
}

#define VKSTARK_INSTANTIATE_FOR_EXECUTORS(Suite) \
  INSTANTIATE_TEST_SUITE_P(Executors, Suite, ::testing::Values("cpu", "vulkan"), ::vkstark::testing::executor_name)
// The same, plus the Vulkan executor on its staging (discrete-GPU) memory path.
#define VKSTARK_INSTANTIATE_FOR_EXECUTORS_AND_STAGING(Suite)                                       \
  INSTANTIATE_TEST_SUITE_P(Executors, Suite, ::testing::Values("cpu", "vulkan", "vulkan-staging"), \
                           ::vkstark::testing::executor_name)

// Random and edge field values: 0, 1, p-1, and values around 2^31 and 2^32 mod p.
inline std::vector<Fp> field_values(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  const uint32_t edges[] = {0, 1, Fp::P - 1, Fp::P - 2, (1u << 31) % Fp::P, uint32_t((1ull << 32) % Fp::P), Fp::P / 2};
  std::vector<Fp> v(n);
  for (size_t i = 0; i < n; ++i)
    v[i] = (rng() % 4 == 0) ? Fp::from_canonical(edges[rng() % std::size(edges)]) : Fp::reduce(rng());
  return v;
}
inline std::vector<Fp4> ext_values(size_t n, uint64_t seed) {
  auto b = field_values(4 * n, seed);
  std::vector<Fp4> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = {b[4 * i], b[4 * i + 1], b[4 * i + 2], b[4 * i + 3]};
  return v;
}
// Sizes every kernel is checked at: 1, 2^k, 2^k - 1, and one that is not near a power of two.
inline std::vector<uint32_t> test_sizes() { return {1, 2, 3, 7, 8, 64, 255, 256, 1000, 4097}; }

}  // namespace vkstark::testing
