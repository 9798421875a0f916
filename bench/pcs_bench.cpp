// pcs_bench: commit + WHIR-open a random matrix, then verify (protocol.md 6 and 11). Default: the
// keccakf stacked matrix (42 columns of 2^21, log_blowup 1, k_whir 4, app_params(21): 3 WHIR
// rounds with 193/88/81 queries, final length 512). Prints median span times over R runs, the
// counters of one run and the proof size; writes JSON (default bench/results/pcs_bench-<executor>.json).
// Also times the setup: building the graph and compiling it (medians of R), preparing the plan cold
// (the first prepare in the process: Vulkan makes its pipelines, through the on-disk pipeline
// cache unless VKSTARK_PIPELINE_CACHE=0) and cached (a second prepare: the pipelines exist).
//
//   pcs_bench [--executor cpu|vulkan|auto] [--log-height 21] [--width 42] [--runs 5] [--trace F] [--json F]
#include <fmt/format.h>
#include <tbb/parallel_for.h>

#include <bit>
#include <chrono>
#include <iostream>
#include <map>
#include <memory>

#include "bench/bench_util.hpp"
#include "cli/options.hpp"
#include "executors/executors.hpp"
#include "stages/opening/opening.hpp"

using namespace vkstark;

namespace {

std::vector<Fp> random_matrix(uint64_t n, uint64_t seed) {
  std::vector<Fp> v(n);
  tbb::parallel_for(tbb::blocked_range<uint64_t>(0, n, 1 << 16), [&](const tbb::blocked_range<uint64_t>& r) {
    for (uint64_t i = r.begin(); i < r.end(); ++i) {
      uint64_t z = (i + seed) * 0x9E3779B97F4A7C15ull;  // splitmix64
      z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
      z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
      v[i] = Fp::reduce(z ^ (z >> 31));
    }
  });
  return v;
}

const std::vector<std::string> kSpans = {"run",
                                         "prover.main_trace_commit",
                                         "prover.main_trace_commit/stacked_commit/rs_code_matrix",
                                         "prover.main_trace_commit/stacked_commit/merkle_tree",
                                         "prover.openings",
                                         "prover.openings/whir"};

}  // namespace

// The matrix is generated on the host and committed on the device (twice its size as a codeword,
// plus Merkle trees): 2^30 cells are 4 GiB of input and 8 GiB of codeword, 12x the keccakf shape.
constexpr uint32_t kMaxLogCells = 30;

int main(int argc, char** argv) try {
  cli::Options options(
      "pcs_bench", "  Commit + WHIR-open a random width x 2^log-height matrix, verify it, print median span times.");
  std::string executor, trace_file, json_file;
  uint32_t log_height = 0, width = 0, runs = 0;
  bool profile = false;
  cli::executor_option(options, executor);
  options.number<uint32_t>("--log-height", "H", log_height, 21, {4, 24}, "log2 of the matrix height");
  options.number<uint32_t>("--width", "W", width, 42, {1, 4096}, "columns of the matrix; W x 2^H at most 2^30");
  options.number<uint32_t>("--runs", "R", runs, 5, {1, 1000}, "timed runs, after one warm-up run");
  options.flag("--profile", profile, "time every dispatch (one extra run) and list the costliest kernels");
  options.output("--trace", trace_file, "write a Chrome trace of the last run (open in Perfetto)");
  options.output("--json", json_file, "write results as JSON (default: bench/results/pcs_bench-<executor>.json)");
  options.parse_or_exit(argc, argv);
  if (std::bit_width(width - 1) + log_height > kMaxLogCells)
    options.fail(
        fmt::format("--width {} with --log-height {}: more than 2^{} matrix cells", width, log_height, kMaxLogCells));
  SystemParams params = app_params_with_100_bits_security(log_height);
  params.validate();  // e.g. no WHIR round below 2^11: said before anything is printed or built
  auto exec = make_executor(executor);
  const std::string result_file = bench::result_path(json_file, "pcs_bench", std::string(exec->name()));
  fmt::print("pcs_bench: executor {}, device {}\n  matrix {} x 2^{}, log_blowup {}, k {}, WHIR queries", exec->name(),
             exec->device_name(), width, log_height, params.log_blowup, params.whir.k);
  for (const auto& r : params.whir.rounds) fmt::print(" {}", r.num_queries);
  fmt::print(", final length 2^{}, median of {} runs\n", params.log_final_poly_len(), runs);

  using Clock = std::chrono::steady_clock;
  auto ms_since = [](Clock::time_point a) {
    return std::chrono::duration<double, std::milli>(Clock::now() - a).count();
  };
  std::vector<double> build_ms, compile_ms;
  PcsMatrixProof m;
  std::shared_ptr<const Plan> plan;
  for (uint32_t r = 0; r < runs; ++r) {  // the last graph built is the one that runs
    auto a = Clock::now();
    m = build_pcs_matrix_proof(width, log_height, params);
    build_ms.push_back(ms_since(a));
    a = Clock::now();
    plan = std::make_shared<const Plan>(compile(std::move(m.graph)));
    compile_ms.push_back(ms_since(a));
  }
  const PcsProofGraph& pg = m.proof;
  double prepare_cold_ms = 0;
  {
    auto a = Clock::now();
    auto cold = exec->prepare(plan);
    prepare_cold_ms = ms_since(a);
  }  // freed before the second prepare allocates the same memory
  const auto cached_start = Clock::now();
  auto prepared = exec->prepare(plan);
  const double prepare_cached_ms = ms_since(cached_start);
  prepare_ntt_twiddles(*exec, m.ntt_log_n);
  prepared->upload(m.matrix, random_matrix(m.matrix.count(), 42));

  std::map<std::string, std::vector<double>> host_ms, device_ms;
  std::vector<double> wall;
  double first_run_ms = 0;
  Trace last;
  for (uint32_t r = 0; r < runs + 1; ++r) {  // run 0 warms pipelines and memory
    Trace t;
    auto a = std::chrono::steady_clock::now();
    prepared->run(t);
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - a).count();
    if (r == 0) {
      first_run_ms = ms;
      continue;
    }
    wall.push_back(ms);
    for (const TraceSpan& s : t.spans) {
      host_ms[s.path].push_back(s.host_ms);
      device_ms[s.path].push_back(s.device_ms);
    }
    last = t;
  }
  if (profile) {  // a separate run: per-dispatch timestamps perturb the timings above
    Trace t;
    t.profile_tasks = true;
    prepared->run(t);
    write_summary(t, std::cout);
  }
  std::vector<uint32_t> words = prepared->download(pg.layout.buffer());
  PcsProof proof = pg.decode(words);
  std::vector<uint8_t> bytes = encode(proof);
  auto v0 = std::chrono::steady_clock::now();
  VerifyResult verdict = check_pcs_proof_self_consistency(proof, {pg.commitments[0].layout.stacked_width()}, params);
  double verify_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - v0).count();

  fmt::print("\n  {:<56} {:>12} {:>12}\n", "span (median)", "host ms", "device ms");
  std::string spans_json;
  for (const std::string& path : kSpans) {
    double h = bench::median(host_ms[path]), d = bench::median(device_ms[path]);
    fmt::print("  {:<56} {:>12.3f} {:>12}\n", path, h, d < 0 ? std::string("-") : fmt::format("{:.3f}", d));
    spans_json += fmt::format("{}{{\"path\": {}, \"host_ms\": {}, \"device_ms\": {}}}", spans_json.empty() ? "" : ", ",
                              json_string(path), json_number(h), d < 0 ? "null" : json_number(d));
  }
  const TraceCounters& c = last.counters;
  const double build_median = bench::median(build_ms), compile_median = bench::median(compile_ms);
  fmt::print("  build graph {:.3f} ms, compile {:.3f} ms (medians of {}); {} tasks\n", build_median, compile_median,
             build_ms.size(), prepared->plan().tasks.size());
  fmt::print("  prepare {:.3f} ms cold (first prepare in the process), {:.3f} ms cached (a second prepare)\n",
             prepare_cold_ms, prepare_cached_ms);
  fmt::print("  run() wall time median {:.3f} ms (first run {:.3f} ms)\n", bench::median(wall), first_run_ms);
  fmt::print(
      "  counters: dispatches {}, barriers {}, submissions {}, host syncs {}, bytes down {}, peak device bytes {}\n",
      c.dispatches, c.barriers, c.submissions, c.host_syncs, c.bytes_down, c.peak_device_bytes);
  fmt::print("  proof size {} bytes; host verification {:.1f} ms: {}\n", bytes.size(), verify_ms,
             verdict.ok ? "accepted" : fmt::format("REJECTED [{}]: {}", to_string(verdict.code), verdict.reason));
  std::string json = fmt::format(
      "{{\"log_height\": {}, \"width\": {}, \"runs\": {}, \"wall_ms_median\": {}, \"spans\": [{}], \"counters\": "
      "{{\"dispatches\": {}, \"barriers\": {}, \"submissions\": {}, \"host_syncs\": {}, \"peak_device_bytes\": {}}}, "
      "\"proof_bytes\": {}, \"verify_ms\": {}, \"verified\": {}, \"build_graph_ms_median\": {}, "
      "\"compile_ms_median\": {}, \"prepare_cold_ms\": {}, \"prepare_cached_ms\": {}, \"first_run_ms\": {}}}",
      log_height, width, runs, json_number(bench::median(wall)), spans_json, c.dispatches, c.barriers, c.submissions,
      c.host_syncs, c.peak_device_bytes, bytes.size(), json_number(verify_ms), verdict.ok, json_number(build_median),
      json_number(compile_median), json_number(prepare_cold_ms), json_number(prepare_cached_ms),
      json_number(first_run_ms));
  bench::write_result(result_file, "pcs_bench", std::string(exec->name()), exec->device_name(), json);
  fmt::print("results: {}\n", result_file);
  if (!trace_file.empty()) write_chrome_trace_file(last, trace_file);
  return verdict.ok ? 0 : 1;
} catch (const std::exception& e) {
  fmt::print(stderr, "pcs_bench: {}\n", e.what());
  return 1;
}
