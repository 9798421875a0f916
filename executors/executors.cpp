#include "executors/executors.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <cstdlib>

#include "executors/cpu/cpu_executor.hpp"
#include "executors/vulkan/vulkan_executor.hpp"
#include "runtime/error.hpp"
#include "runtime/log.hpp"

namespace vkstark {

namespace {

std::string chosen_kind(std::string_view kind) {
  std::string chosen(kind);
  if (chosen.empty()) {
    const char* env = std::getenv("VKSTARK_EXECUTOR");
    chosen = env && *env ? env : "auto";
  }
  if (chosen != "cpu" && chosen != "vulkan" && chosen != "auto")
    throw InputError(fmt::format("unknown executor '{}': expected cpu, vulkan or auto", chosen));
  return chosen;
}

}  // namespace

std::unique_ptr<Executor> make_executor(std::string_view kind) {
  const std::string chosen = chosen_kind(kind);
  if (chosen == "cpu") return make_cpu_executor();
  if (chosen == "vulkan") return make_vulkan_executor();
  // auto: a Vulkan GPU if one works; CPU implementations of Vulkan (lavapipe) only when asked for.
  try {
    VulkanOptions gpu_only;
    gpu_only.allow_cpu_device = false;
    return make_vulkan_executor(gpu_only);
  } catch (const DeviceError& e) {
    // A device profile asks for a Vulkan device under it: its refusal is the answer, not the CPU.
    if (const char* profile = std::getenv("VKSTARK_DEVICE_PROFILE");
        profile && *profile && std::string_view(profile) != "none")
      throw;
    named_logger("vkstark.executors").info("executor auto: no Vulkan GPU ({}); using the CPU executor", e.what());
    return make_cpu_executor();
  }
}

std::vector<NamedExecutor> make_executors(std::string_view kind, std::string_view devices, bool cpu_worker,
                                          uint32_t share_index, uint32_t share_count) {
  if (share_count == 0 || share_index >= share_count)
    throw InputError(fmt::format("make_executors: share {} of {}", share_index, share_count));
  const std::string chosen = chosen_kind(kind);
  std::vector<NamedExecutor> out;
  std::string wanted(devices);
  if (wanted.empty()) {
    const char* env = std::getenv("VKSTARK_VULKAN_DEVICE");
    if (env) wanted = env;
  }
  if (chosen == "cpu") {
    cpu_worker = true;
  } else if (wanted.empty() && share_count == 1) {
    auto exec = make_executor(chosen);
    if (exec->name() == "cpu") {
      cpu_worker = true;  // auto without a GPU
    } else {
      std::string label = fmt::format("vulkan ({})", exec->device_name());
      out.push_back({std::move(label), std::move(exec)});
    }
  } else {
    if (wanted.empty()) wanted = "all";  // shared among processes: the devices are split
    std::vector<uint32_t> indices;
    try {
      // "all" takes lavapipe only where there is no GPU, and only for kind vulkan.
      indices = select_vulkan_devices(wanted, false);
    } catch (const DeviceError& e) {
      if (chosen == "vulkan") {
        indices = select_vulkan_devices(wanted, true);
      } else if (wanted == "all") {
        named_logger("vkstark.executors").info("executor auto: no Vulkan GPU ({}); using the CPU executor", e.what());
        cpu_worker = true;
      } else {
        throw;  // devices named explicitly: no fallback to the CPU
      }
    }
    // "all" is split among the processes; a list is taken as it is by each.
    const uint32_t step = wanted == "all" ? share_count : 1, first = wanted == "all" ? share_index : 0;
    std::vector<uint32_t> mine;
    for (size_t k = first; k < indices.size(); k += step) mine.push_back(indices[k]);
    if (mine.empty() && !indices.empty() && !cpu_worker)
      throw DeviceError(
          fmt::format("{} Vulkan device(s) shared among {} processes: none left for process {} "
                      "(run fewer processes per machine, or add the CPU worker)",
                      indices.size(), share_count, share_index));
    for (uint32_t i : mine) {
      VulkanOptions options;
      options.device = std::to_string(i);
      options.allow_cpu_device = chosen == "vulkan";
      auto exec = make_vulkan_executor(options);
      std::string label = fmt::format("vulkan {} ({})", i, exec->device_name());
      out.push_back({std::move(label), std::move(exec)});
    }
  }
  if (cpu_worker) out.push_back({"cpu", make_cpu_executor()});
  return out;
}

}  // namespace vkstark
