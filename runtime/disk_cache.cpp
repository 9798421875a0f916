#include "runtime/disk_cache.hpp"

#include <cstdlib>
#include <string_view>

namespace vkstark {

std::filesystem::path disk_cache_dir() {
  const char* off = std::getenv("VKSTARK_PIPELINE_CACHE");
  if (off && std::string_view(off) == "0") return {};
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::filesystem::path(xdg) / "vkstark";
  if (const char* home = std::getenv("HOME"); home && *home) return std::filesystem::path(home) / ".cache" / "vkstark";
  return {};
}

}  // namespace vkstark
