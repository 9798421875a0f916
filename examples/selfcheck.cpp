// selfcheck: computes the known-answer values of protocol.md 16.2 (BabyBear, its extension,
// Poseidon2, the sponge transcript, grinding) and prints them next to the expected values.
// Exit status 0 when every value matches.
#include <fmt/format.h>

#include <chrono>
#include <cstring>

#include "kernels/known_answers.hpp"

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
      fmt::print(
          "usage: selfcheck\n  Prints the protocol.md 16.2 known-answer checks; exit status 1 on any mismatch.\n");
      return 0;
    }
    fmt::print(stderr, "selfcheck: unknown argument '{}' (try --help)\n", argv[i]);
    return 2;
  }
  auto t0 = std::chrono::steady_clock::now();
  auto checks = vkstark::kat::host_checks();
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  int failed = 0;
  fmt::print("vkstark self-check: known-answer values of protocol.md 16.2 (host field and hash code)\n\n");
  for (const auto& c : checks) {
    fmt::print("  [{}] {}\n", c.ok() ? " ok " : "FAIL", c.name);
    fmt::print("         got      {}\n", fmt::join(c.computed, ", "));
    if (!c.ok()) {
      fmt::print("         expected {}\n", fmt::join(c.expected, ", "));
      ++failed;
    }
  }
  fmt::print("\n{} of {} checks passed in {:.1f} ms\n", checks.size() - failed, checks.size(), ms);
  return failed == 0 ? 0 : 1;
}
