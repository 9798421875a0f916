#include "runtime/fault.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "runtime/error.hpp"

namespace vkstark {

namespace {

struct Fault {
  std::string kind;
  std::map<std::string, uint64_t, std::less<>> conditions;
};

constexpr std::string_view kKinds[] = {"device_lost",       "oom",      "invalid_proof", "exit_in_write",
                                       "exit_after_writes", "disk_full"};

std::vector<Fault> parse(std::string_view text) {
  std::vector<Fault> faults;
  auto fail = [&](std::string_view what) {
    throw InputError(
        fmt::format("VKSTARK_FAULT='{}': {} (expected kind:key=N[:key=N][,...], kinds device_lost, oom, invalid_proof, "
                    "exit_in_write, exit_after_writes, disk_full)",
                    text, what));
  };
  size_t pos = 0;
  while (pos <= text.size()) {
    const size_t end = std::min(text.find(',', pos), text.size());
    const std::string_view item = text.substr(pos, end - pos);
    pos = end + 1;
    if (item.empty()) continue;
    Fault f;
    size_t at = 0;
    bool first = true;
    while (at <= item.size()) {
      const size_t stop = std::min(item.find(':', at), item.size());
      const std::string_view part = item.substr(at, stop - at);
      at = stop + 1;
      if (first) {
        if (std::find(std::begin(kKinds), std::end(kKinds), part) == std::end(kKinds))
          fail(fmt::format("unknown kind '{}'", part));
        f.kind = part;
        first = false;
        continue;
      }
      const size_t eq = part.find('=');
      uint64_t n = 0;
      if (eq == std::string_view::npos || eq == 0) fail(fmt::format("'{}' is not key=N", part));
      const std::string_view number = part.substr(eq + 1);
      const auto [ptr, ec] = std::from_chars(number.data(), number.data() + number.size(), n);
      if (ec != std::errc() || ptr != number.data() + number.size() || number.empty())
        fail(fmt::format("'{}' is not a number", number));
      f.conditions.emplace(std::string(part.substr(0, eq)), n);
    }
    faults.push_back(std::move(f));
  }
  return faults;
}

// The faults of VKSTARK_FAULT, parsed again only when it changes (a test's child process sets it).
std::vector<Fault> faults() {
  static std::mutex mutex;
  static std::string text;
  static std::vector<Fault> parsed;
  const char* env = std::getenv("VKSTARK_FAULT");
  const std::string_view now = env ? env : "";
  std::lock_guard lock(mutex);
  if (now != text) {
    parsed = parse(now);
    text = now;
  }
  return parsed;
}

}  // namespace

std::optional<uint64_t> fault_value(std::string_view kind, std::string_view key) {
  for (const Fault& f : faults())
    if (f.kind == kind)
      if (const auto it = f.conditions.find(key); it != f.conditions.end()) return it->second;
  return std::nullopt;
}

bool fault_kind_injected(std::string_view kind) {
  for (const Fault& f : faults())
    if (f.kind == kind) return true;
  return false;
}

bool fault_injected(std::string_view kind, std::string_view key, uint64_t value, uint64_t attempt) {
  for (const Fault& f : faults()) {
    if (f.kind != kind) continue;
    const auto it = f.conditions.find(key);
    if (it == f.conditions.end() || it->second != value) continue;
    const auto attempts = f.conditions.find(std::string_view("attempts"));
    if (attempt <= (attempts == f.conditions.end() ? 1 : attempts->second)) return true;
  }
  return false;
}

}  // namespace vkstark
