// selfcheck: computes the known-answer values of protocol.md 16.2 (BabyBear, its extension,
// Poseidon2, the sponge transcript, grinding) with the host code and with the device kernels on
// the chosen executor, and prints them next to the expected values. Exit status 0 when all match.
// --trace FILE writes the Chrome trace of the device run, --json FILE the checks as JSON.
//
//   selfcheck [--executor cpu|vulkan|auto] [--trace FILE] [--json FILE]
#include <fmt/format.h>

#include <chrono>
#include <fstream>

#include "cli/options.hpp"
#include "executors/executors.hpp"
#include "product/selfcheck.hpp"
#include "runtime/error.hpp"
#include "runtime/file.hpp"
#include "runtime/json.hpp"
#include "runtime/trace.hpp"

using namespace vkstark;

int main(int argc, char** argv) try {
  cli::Options options("selfcheck",
                       "  Prints the protocol.md 16.2 known-answer checks, host and device; exit status 1 on a "
                       "mismatch.");
  std::string executor, trace_file, json_file;
  cli::executor_option(options, executor);
  options.output("--trace", trace_file, "write a Chrome trace of the device run (open in Perfetto)");
  options.output("--json", json_file, "write the checks as JSON (executor, device, each check's name and ok)");
  options.parse_or_exit(argc, argv);
  auto t0 = std::chrono::steady_clock::now();
  auto checks = kat::host_checks();
  auto exec = make_executor(executor);
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
  if (!json_file.empty()) {
    replace_file(json_file,
                 fmt::format("{{\"executor\": {}, \"device\": {}, \"checks\": [{}]}}\n",
                             json_string(std::string(exec->name())), json_string(exec->device_name()), json));
  }
  if (!trace_file.empty()) {
    write_chrome_trace_file(trace, trace_file);
    fmt::print("trace of the device run: {}\n", trace_file);
  }
  return failed == 0 ? 0 : 1;
} catch (const std::exception& e) {
  fmt::print(stderr, "selfcheck: {}\n", e.what());
  return 1;
}
