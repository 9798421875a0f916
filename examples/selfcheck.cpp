// selfcheck: computes the known-answer values of protocol.md 16.2 (BabyBear, its extension,
// Poseidon2, the sponge transcript, grinding) with the host code and with the device kernels on
// the chosen executor, and prints them next to the expected values. Exit status 0 when all match.
// --trace FILE writes the Chrome trace of the device run.
//
//   selfcheck [--executor cpu|vulkan|auto] [--trace FILE] [--json FILE]
#include <fmt/format.h>

#include <chrono>
#include <cstring>
#include <fstream>

#include "executors/cli.hpp"
#include "executors/executors.hpp"
#include "runtime/json.hpp"
#include "runtime/trace.hpp"
#include "stages/selfcheck.hpp"

using namespace vkstark;

int main(int argc, char** argv) try {
  CommonArgs common;
  for (int i = 1; i < argc; ++i) {
    if (parse_common_arg(argc, argv, i, common)) continue;
    fmt::print(
        "usage: selfcheck\n  Prints the protocol.md 16.2 known-answer checks, host and device; exit status 1 on a "
        "mismatch.\n{}",
        common_args_help());
    return std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0 ? 0 : 2;
  }
  auto t0 = std::chrono::steady_clock::now();
  auto checks = kat::host_checks();
  auto exec = make_executor(common.executor);
  Trace trace;
  auto device = device_known_answer_checks(*exec, &trace);
  checks.insert(checks.end(), device.begin(), device.end());
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  int failed = 0;
  fmt::print(
      "vkstark self-check: known-answer values of protocol.md 16.2\n  host code, and device kernels on executor {} "
      "({})\n\n",
      exec->name(), exec->device_name());
  std::string json;
  for (const auto& c : checks) {
    fmt::print("  [{}] {}\n", c.ok() ? " ok " : "FAIL", c.name);
    fmt::print("         got      {}\n", fmt::join(c.computed, ", "));
    if (!c.ok()) {
      fmt::print("         expected {}\n", fmt::join(c.expected, ", "));
      ++failed;
    }
    json += fmt::format("{}{{\"name\": {}, \"ok\": {}}}", json.empty() ? "" : ", ", json_string(c.name), c.ok());
  }
  fmt::print("\n{} of {} checks passed in {:.1f} ms\n", checks.size() - failed, checks.size(), ms);
  if (!common.json_file.empty()) {
    std::ofstream f(common.json_file);
    f << fmt::format("{{\"executor\": {}, \"device\": {}, \"checks\": [{}]}}\n", json_string(std::string(exec->name())),
                     json_string(exec->device_name()), json);
  }
  if (!common.trace_file.empty()) {
    write_chrome_trace_file(trace, common.trace_file);
    fmt::print("trace of the device run: {}\n", common.trace_file);
  }
  return failed == 0 ? 0 : 1;
} catch (const std::exception& e) {
  fmt::print(stderr, "selfcheck: {}\n", e.what());
  return 1;
}
