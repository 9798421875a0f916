// The library's named logs on stderr ("vkstark.vulkan", "vkstark.glsl", ...), each at the level
// VKSTARK_LOG_LEVEL names (debug, info, warn, ...; spdlog's default when unset). Thread-safe.
#pragma once

#include <spdlog/logger.h>

namespace vkstark {

// The log called `name`, made on first use. Callers keep the reference (it lives until exit).
spdlog::logger& named_logger(const char* name);

}  // namespace vkstark
