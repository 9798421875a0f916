// keccakf: the reference's keccakf example (protocol.md 15.1). Proves Keccak-f[1600] permutations
// of random inputs with the Keccak-f AIR (1024 permutations: 2633 columns x 2^15 rows) at
// app_params_with_100_bits_security(21), verifies the proof, and prints the run's span tree with
// times and counters, the proof size and the verdict. Exit status 0 when the proof verifies.
//
//   keccakf [--executor cpu|vulkan|auto] [--permutations 1024] [--log-stacked-height 21]
//           [--trace FILE] [--json FILE] [--proof FILE] [--debug-check] [--quiet]
//
// In a terminal, progress lines on stderr name each phase as it finishes (--quiet: none).
// --trace writes a Chrome trace of the proof's run (open in Perfetto), --json the run's trace as
// JSON (runtime/trace.hpp's schema), --proof the encoded proof (protocol.md 12.2).
#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <iostream>

#include "cli/options.hpp"
#include "cli/progress.hpp"
#include "executors/executors.hpp"
#include "product/airs/test_airs.hpp"
#include "runtime/error.hpp"
#include "runtime/trace.hpp"
#include "stages/air/debug_check.hpp"
#include "stages/air/keygen.hpp"
#include "stages/prover.hpp"
#include "stages/verifier.hpp"

using namespace vkstark;

int main(int argc, char** argv) try {
  cli::Options options("keccakf",
                       "  Proves Keccak-f permutations (the reference's keccakf example), verifies the proof, prints\n"
                       "  the span tree, the proof size and the verdict; exit status 1 when the proof is rejected.");
  std::string executor, trace_file, json_file, proof_file;
  uint32_t permutations = 0, log_stacked = 0;
  cli::executor_option(options, executor);
  options.number<uint32_t>("--permutations", "P", permutations, 1024, {1, 1u << 16},
                           "Keccak-f permutations of random inputs (24 trace rows each)");
  options.number<uint32_t>("--log-stacked-height", "S", log_stacked, 21, {8, 24},
                           "the params: app_params_with_100_bits_security(S)");
  options.output("--trace", trace_file, "write a Chrome trace of the proof's run (open in Perfetto)");
  options.output("--json", json_file, "write the proof run's trace as JSON");
  options.output("--proof", proof_file, "write the encoded proof");
  bool quiet = false, check = false;
  options.flag("--debug-check", check,
               "first check every constraint on every row on the host (debug_check): a failure names the AIR, the "
               "constraint, the row and the columns' values");
  options.flag("--quiet", quiet, "no progress lines (there are none either when stderr is not a terminal)");
  options.parse_or_exit(argc, argv);
  cli::Progress progress(quiet);

  using Clock = std::chrono::steady_clock;
  auto ms_since = [](Clock::time_point a) {
    return std::chrono::duration<double, std::milli>(Clock::now() - a).count();
  };
  const SystemParams params = app_params_with_100_bits_security(log_stacked);
  params.validate();
  auto exec = make_executor(executor);
  const std::vector<AirWithTraces> fixture = keccak_fixture(permutations, 1);
  const std::vector<std::optional<AirWithTraces>> airs(fixture.begin(), fixture.end());
  const std::vector<std::shared_ptr<const Air>> list{fixture[0].air};
  fmt::print("keccakf: {} Keccak-f permutations, trace {} columns x {} rows, app_params_with_100_bits_security({})\n",
             permutations, fixture[0].common.width, fixture[0].common.height, log_stacked);
  fmt::print("  executor {} ({})\n", exec->name(), exec->device_name());

  auto t0 = Clock::now();
  const ProvingKey pk = keygen(list, params, *exec);
  fmt::print("  keygen {:.0f} ms\n", ms_since(t0));
  std::fflush(stdout);
  if (check) {  // the debug checker: host time of the order of a CPU proof's constraint evaluation
    t0 = Clock::now();
    const DebugReport report = debug_check(pk, airs);
    fmt::print("  debug check {:.0f} ms: {}\n", ms_since(t0),
               report.ok() ? "every constraint holds" : report.message());
    if (!report.ok()) return 1;
  }
  StarkProver prover(pk, *exec);
  t0 = Clock::now();
  auto prepared = prover.prepare(airs);
  fmt::print("  prepare {:.0f} ms (graph, kernels, pipelines)\n", ms_since(t0));
  std::fflush(stdout);
  Trace trace;
  progress.follow_spans(trace, 3);
  t0 = Clock::now();
  const Proof proof = prepared->run(airs, &trace);
  const double prove_ms = ms_since(t0);
  trace.on_span_end = nullptr;
  progress.report_remaining_spans(trace);
  const std::vector<uint8_t> bytes = encode(proof);
  t0 = Clock::now();
  const VerifyResult verdict = verify_bytes(pk.vk, bytes);
  const double verify_ms = ms_since(t0);

  fmt::print("\n");
  write_summary(trace, std::cout);
  fmt::print("\n  proof: {} bytes, proved in {:.1f} ms (traces uploaded, one run, proof downloaded)\n", bytes.size(),
             prove_ms);
  fmt::print("  verification: {} in {:.1f} ms\n",
             verdict.ok ? "accepted" : fmt::format("REJECTED [{}]: {}", to_string(verdict.code), verdict.reason),
             verify_ms);
  if (!trace_file.empty()) write_chrome_trace_file(trace, trace_file);
  if (!json_file.empty()) write_json_file(trace, json_file);
  if (!proof_file.empty()) cli::write_binary_file(proof_file, bytes);
  return verdict.ok ? 0 : 1;
} catch (const std::exception& e) {
  fmt::print(stderr, "keccakf: {}\n", e.what());
  return 1;
}
