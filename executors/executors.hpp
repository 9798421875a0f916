// Choosing an executor per run (architecture.md): make_executor. The command-line option is
// cli/options.hpp's executor_option.
#pragma once

#include <memory>
#include <string_view>

#include "runtime/executor.hpp"

namespace vkstark {

// "cpu", "vulkan" or "auto" (a Vulkan GPU if one works, else the CPU executor; lavapipe and other
// CPU implementations of Vulkan only when asked for "vulkan"). An empty kind reads the environment
// variable VKSTARK_EXECUTOR (default "auto"). Asking for "vulkan" where no Vulkan device works
// throws DeviceError naming why: there is no silent fallback. Unknown kinds throw InputError.
[[nodiscard]] std::unique_ptr<Executor> make_executor(std::string_view kind = "");

}  // namespace vkstark
