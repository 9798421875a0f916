// Choosing an executor per run (architecture.md): make_executor. The command-line option is
// cli/options.hpp's executor_option.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/executor.hpp"

namespace vkstark {

// "cpu", "vulkan" or "auto" (a Vulkan GPU if one works, else the CPU executor; lavapipe and other
// CPU implementations of Vulkan only when asked for "vulkan"). An empty kind reads the environment
// variable VKSTARK_EXECUTOR (default "auto"). Asking for "vulkan" where no Vulkan device works
// throws DeviceError naming why: there is no silent fallback. Unknown kinds throw InputError.
[[nodiscard]] std::unique_ptr<Executor> make_executor(std::string_view kind = "");

// One executor of a batch (product/batch/batch.hpp), named for messages: "vulkan 1 (NVIDIA H100 80GB
// HBM3)", "cpu".
struct NamedExecutor {
  std::string label;
  std::unique_ptr<Executor> executor;
};

// The executors a batch runs on, one worker each. `kind` as make_executor's. `devices` picks the
// Vulkan devices: "" reads VKSTARK_VULKAN_DEVICE, and when that is unset too gives the one device
// make_executor(kind) would; "all" every usable GPU; or a comma-separated list of device indices
// and name substrings ("0,1"). CPU implementations of Vulkan (lavapipe) are taken only with kind
// "vulkan" (for "all": only where there is no GPU). kind "auto" with no GPU gives the CPU executor;
// "vulkan" with none, or any kind with a list naming no usable device, throws DeviceError. `cpu_worker` adds the CPU
// executor as one more worker (kind "cpu": the CPU executor alone, whatever `devices` says). share_count > 1: the
// devices of "all" (also the default then) are shared among that many processes of one machine (MPI ranks of a node),
// and this one takes every share_count-th, from share_index on; DeviceError when that leaves it none and no CPU worker.
// A list is taken as it is by every process.
[[nodiscard]] std::vector<NamedExecutor> make_executors(std::string_view kind, std::string_view devices,
                                                        bool cpu_worker, uint32_t share_index = 0,
                                                        uint32_t share_count = 1);

}  // namespace vkstark
