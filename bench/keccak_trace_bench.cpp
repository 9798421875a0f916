// keccak_trace_bench: host time of the Keccak-f trace generator (product/airs/keccak.hpp), the
// largest host cost of a keccakf proof batch: keccak_trace over N random permutations (1024: the
// keccakf example's 2^15 rows), written into reused storage as batches do. Prints the median, min
// and max of R runs (after a warm-up run) on 1 thread and on all threads (TBB).
// JSON: bench/results/keccak_trace_bench-cpu.json.
//
//   keccak_trace_bench [--permutations 1024] [--runs 9] [--threads N] [--json F]
#include <algorithm>
#include <array>
#include <cstdint>
#include <random>
#include <vector>

#include <fmt/format.h>
#include <tbb/global_control.h>
#include <tbb/info.h>

#include "bench/bench_util.hpp"
#include "cli/options.hpp"
#include "executors/executors.hpp"
#include "product/airs/keccak.hpp"
#include "runtime/clock.hpp"
#include "runtime/json.hpp"

using namespace vkstark;

namespace {

// Milliseconds of each of `runs` trace generations into the same storage, after a warm-up one.
std::vector<double> time_traces(const std::vector<std::array<uint64_t, 25>>& inputs, uint32_t runs) {
  TraceMatrix t = keccak_trace(inputs);
  std::vector<double> ms;
  for (uint32_t r = 0; r < runs; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    t = keccak_trace(inputs, std::move(t));
    ms.push_back(ms_since(t0));
  }
  return ms;
}

}  // namespace

int main(int argc, char** argv) try {
  cli::Options options("keccak_trace_bench",
                       "  Host time of the Keccak-f trace generator into reused storage, on 1 thread and all.");
  uint32_t permutations = 0, runs = 0, threads = 0;
  std::string json;
  options.number<uint32_t>("--permutations", "N", permutations, 1024, {1, 1u << 20}, "permutation inputs");
  options.number<uint32_t>("--runs", "R", runs, 9, {1, 1000}, "timed runs (after a warm-up run)");
  options.number<uint32_t>("--threads", "N", threads, 0, {0, 1024}, "only N threads (0: 1 thread, then all)");
  options.output("--json", json, "the result file (default bench/results/keccak_trace_bench-cpu.json)");
  options.parse_or_exit(argc, argv);
  const std::string path = bench::result_path(json, "keccak_trace_bench", "cpu");

  std::mt19937_64 rng(42);
  std::vector<std::array<uint64_t, 25>> inputs(permutations);
  for (auto& s : inputs)
    for (auto& lane : s) lane = rng();
  fmt::print("keccak_trace: {} permutations, {} columns x {} rows ({:.0f} MB)\n", permutations, KeccakCols::kWidth,
             keccak_trace_height(permutations),
             double(KeccakCols::kWidth) * keccak_trace_height(permutations) * sizeof(Fp) / 1e6);
  const std::vector<int> counts =
      threads ? std::vector<int>{int(threads)} : std::vector{1, tbb::info::default_concurrency()};
  std::string results;
  for (const int n : counts) {
    const tbb::global_control limit(tbb::global_control::max_allowed_parallelism, size_t(n));
    const std::vector<double> ms = time_traces(inputs, runs);
    const double lo = *std::min_element(ms.begin(), ms.end()), hi = *std::max_element(ms.begin(), ms.end());
    fmt::print("  {:2} thread(s): median {:7.2f} ms  (min {:.2f}, max {:.2f}, {} runs)\n", n, bench::median(ms), lo, hi,
               runs);
    results +=
        fmt::format("{}{{\"threads\": {}, \"median_ms\": {}, \"min_ms\": {}, \"max_ms\": {}}}",
                    results.empty() ? "" : ", ", n, json_number(bench::median(ms)), json_number(lo), json_number(hi));
  }
  bench::write_result(
      path, "keccak_trace_bench", "cpu", make_executor("cpu")->device_name(),
      fmt::format("{{\"permutations\": {}, \"runs\": {}, \"results\": [{}]}}", permutations, runs, results));
  fmt::print("wrote {}\n", path);
  return 0;
} catch (const std::exception& e) {
  fmt::print(stderr, "keccak_trace_bench: {}\n", e.what());
  return 1;
}
