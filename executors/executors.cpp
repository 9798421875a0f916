#include "executors/executors.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <cstdlib>

#include "executors/cpu/cpu_executor.hpp"
#include "executors/vulkan/vulkan_executor.hpp"
#include "runtime/error.hpp"

namespace vkstark {

std::unique_ptr<Executor> make_executor(std::string_view kind) {
  std::string chosen(kind);
  if (chosen.empty()) {
    const char* env = std::getenv("VKSTARK_EXECUTOR");
    chosen = env && *env ? env : "auto";
  }
  if (chosen == "cpu") return make_cpu_executor();
  if (chosen == "vulkan") return make_vulkan_executor();
  if (chosen == "auto") {
    // A Vulkan GPU if one works; CPU implementations of Vulkan (lavapipe) only when asked for.
    try {
      VulkanOptions gpu_only;
      gpu_only.allow_cpu_device = false;
      return make_vulkan_executor(gpu_only);
    } catch (const DeviceError& e) {
      spdlog::info("executor auto: no Vulkan GPU ({}); using the CPU executor", e.what());
      return make_cpu_executor();
    }
  }
  throw InputError(fmt::format("unknown executor '{}': expected cpu, vulkan or auto", chosen));
}

}  // namespace vkstark
