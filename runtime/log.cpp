#include "runtime/log.hpp"

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <cstdlib>
#include <mutex>

namespace vkstark {

spdlog::logger& named_logger(const char* name) {
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  std::shared_ptr<spdlog::logger> l = spdlog::get(name);
  if (!l) {
    l = spdlog::stderr_color_mt(name);
    if (const char* level = std::getenv("VKSTARK_LOG_LEVEL"); level && *level)
      l->set_level(spdlog::level::from_str(level));
  }
  return *l;  // spdlog's registry keeps it until exit
}

}  // namespace vkstark
