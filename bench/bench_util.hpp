// Shared helpers of the benchmarks: medians, result files (bench/results/*.json with the device,
// executor, commit and date). The command line is cli/options.hpp's.
#pragma once

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "git_version.h"
#include "runtime/error.hpp"
#include "runtime/executor.hpp"
#include "runtime/file.hpp"
#include "runtime/json.hpp"
#include "runtime/trace.hpp"

namespace vkstark::bench {

inline double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// Median time (ms) of the span "work" over `runs` runs of a prepared plan, after one warm-up run:
// device time where the executor measures it, else host time. `last` gets the last run's trace.
inline double median_work_span_ms(PreparedPlan& p, int runs, Trace& last) {
  Trace warm;
  p.run(warm);
  std::vector<double> ms;
  for (int r = 0; r < runs; ++r) {
    last = Trace();
    p.run(last);
    for (const TraceSpan& s : last.spans)
      if (s.path == "work") ms.push_back(s.device_ms >= 0 ? s.device_ms : s.host_ms);
  }
  return median(ms);
}

inline std::string utc_date() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

// bench/results/<name>-<executor>.json, relative to the working directory (the repository root).
inline std::string default_result_path(const std::string& name, const std::string& executor) {
  return fmt::format("bench/results/{}-{}.json", name, executor);
}

// The result file: `json_option` (--json, created by the option parser already) or else the default
// path, whose folder is created and which is checked writable now, before the work, without touching
// an earlier result there. InputError if it cannot be written.
inline std::string result_path(const std::string& json_option, const std::string& name, const std::string& executor) {
  if (!json_option.empty()) return json_option;
  std::string path = default_result_path(name, executor);
  std::filesystem::path p(path);
  std::error_code ec;
  if (p.has_parent_path()) std::filesystem::create_directories(p.parent_path(), ec);
  const bool existed = std::filesystem::exists(p, ec);
  std::FILE* f = std::fopen(path.c_str(), "a");
  if (!f) throw InputError(fmt::format("cannot write '{}': {}", path, std::strerror(errno)));
  std::fclose(f);
  if (!existed) std::filesystem::remove(p, ec);
  return path;
}

// Writes {"bench", "executor", "device", "device_profile", "commit", "date", "results": <results_json>}
// (device_profile: VKSTARK_DEVICE_PROFILE, "none" when unset).
inline void write_result(const std::string& path, const std::string& name, const std::string& executor,
                         const std::string& device, const std::string& results_json) {
  std::filesystem::path p(path);
  if (p.has_parent_path()) std::filesystem::create_directories(p.parent_path());
  try {
    const char* profile = std::getenv("VKSTARK_DEVICE_PROFILE");
    replace_file(path,
                 fmt::format("{{\n  \"bench\": {},\n  \"executor\": {},\n  \"device\": {},\n  "
                             "\"device_profile\": {},\n  \"commit\": {},\n  \"date\": {},\n  \"results\": {}\n}}\n",
                             json_string(name), json_string(executor), json_string(device),
                             json_string(profile && *profile ? profile : "none"), json_string(VKSTARK_GIT_COMMIT),
                             json_string(utc_date()), results_json));
  } catch (const std::runtime_error& e) {
    throw InputError(e.what());
  }
}

}  // namespace vkstark::bench
