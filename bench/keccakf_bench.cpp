// keccakf_bench: whole STARK proofs (protocol.md 7) of the Keccak-f AIR, the keccakf example's
// workload (protocol.md 15.1: 1024 permutations, 2633 columns x 2^15 rows,
// app_params_with_100_bits_security(21)). Builds and prepares the proof's graph once, then times
// R proofs (after a warm-up proof): traces upload, one submission, the proof download. Prints the
// median, min and max of every span (host and device time), dispatches and barriers per span, the
// counters per proof (submissions, host syncs, peak device memory), the proof size and the host
// verification time (median); writes JSON (default bench/results/keccakf_bench-<executor>.json,
// keccakf_bench-<executor>-unfused.json with --fuse off).
//
// --concurrent N measures throughput instead: for K = 1, 2, 4, .. up to N proofs in flight on the
// one executor (each its own prepared proof; StarkProver::Prepared::start for all K, then finish),
// R rounds after a warm-up round: proofs per second (K / the round's wall time, median) and each
// proof's latency (its start to its finish); every proof must have the serial proof's bytes. JSON:
// keccakf_bench-<executor>-concurrent.json.
//
//   keccakf_bench [--executor cpu|vulkan|auto] [--permutations 1024] [--log-stacked-height 21]
//                 [--runs 5] [--fuse on|off] [--verify-runs 9] [--profile] [--trace F] [--json F]
//                 [--concurrent N] [--plan-only]
#include <fmt/format.h>
#include <tbb/info.h>
#include <tbb/parallel_for.h>

#include <fstream>
#include <random>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <map>

#include "bench/bench_util.hpp"
#include "bench/prepare_steady.hpp"
#include "cli/options.hpp"
#include "executors/executors.hpp"
#include "kernels/hash/poseidon2_batch.hpp"
#include "product/airs/keccak.hpp"
#include "product/airs/test_airs.hpp"
#include "runtime/clock.hpp"
#include "stages/air/keygen.hpp"
#include "stages/prover.hpp"
#include "stages/verifier.hpp"

using namespace vkstark;

namespace {

const std::vector<std::string> kSpans = {
    "run",
    "stark_prove_excluding_trace",
    "stark_prove_excluding_trace/prover.main_trace_commit",
    "stark_prove_excluding_trace/prover.main_trace_commit/stacked_commit/rs_code_matrix",
    "stark_prove_excluding_trace/prover.main_trace_commit/stacked_commit/merkle_tree",
    "stark_prove_excluding_trace/prover.rap_constraints",
    "stark_prove_excluding_trace/prover.rap_constraints/logup_gkr",
    "stark_prove_excluding_trace/prover.rap_constraints/round0",
    "stark_prove_excluding_trace/prover.rap_constraints/mle_rounds",
    "stark_prove_excluding_trace/prover.rap_constraints/column_openings",
    "stark_prove_excluding_trace/prover.openings",
    "stark_prove_excluding_trace/prover.openings/stacked_reduction",
    "stark_prove_excluding_trace/prover.openings/whir"};

using Clock = std::chrono::steady_clock;

struct InFlight {
  uint32_t proofs = 0;
  double round_ms = 0, proofs_per_s = 0, latency_ms = 0, latency_max_ms = 0;
};

// K proofs in flight, R rounds after a warm-up round (see the file comment). Throws when a proof's
// bytes differ from `want`.
InFlight measure_in_flight(StarkProver& prover, const std::vector<std::optional<AirWithTraces>>& airs, uint32_t k,
                           uint32_t runs, const std::vector<uint8_t>& want) {
  std::vector<std::unique_ptr<StarkProver::Prepared>> prepared;
  for (uint32_t i = 0; i < k; ++i) prepared.push_back(prover.prepare(airs));
  std::vector<double> rounds, latencies;
  for (uint32_t r = 0; r < runs + 1; ++r) {
    std::vector<Clock::time_point> started(k);
    std::vector<double> latency(k);
    const auto t0 = Clock::now();
    for (uint32_t i = 0; i < k; ++i) {
      started[i] = Clock::now();
      prepared[i]->start(airs);
    }
    for (uint32_t i = 0; i < k; ++i) {
      const Proof proof = prepared[i]->finish();
      latency[i] = ms_since(started[i]);
      if (encode(proof) != want)
        throw std::runtime_error(fmt::format("{} in flight: proof {} differs from the serial proof", k, i));
    }
    if (r == 0) continue;  // warm-up
    rounds.push_back(ms_since(t0));
    latencies.insert(latencies.end(), latency.begin(), latency.end());
  }
  InFlight f;
  f.proofs = k;
  f.round_ms = bench::median(rounds);
  f.proofs_per_s = 1000.0 * k / f.round_ms;
  f.latency_ms = bench::median(latencies);
  f.latency_max_ms = *std::max_element(latencies.begin(), latencies.end());
  return f;
}

// One size of the cost curve: keygen, plan, prepare, a warm-up proof and `runs` timed ones.
struct SweepPoint {
  uint32_t log_rows = 0, permutations = 0;
  uint64_t trace_bytes = 0, cells = 0;
  std::string error;                        // the size could not be proved (too large for the device, say)
  std::map<std::string, double> device_ms;  // median per span path (host ms where the device has none)
  uint64_t peak_device_bytes = 0;
  std::vector<MemoryPart> memory;
  std::string memory_choice;
  double prepare_ms = 0, wall_ms = 0;
  std::string round0;  // the timed proofs' round-0 kernels: generated, interpreted
  uint64_t dispatches = 0, submissions = 0, host_syncs = 0;
  bool verified = false;
};

SweepPoint sweep_point(Executor& exec, uint32_t log_rows, const SystemParams& params, uint32_t runs,
                       const ProverOptions& prover_options) {
  SweepPoint pt;
  pt.log_rows = log_rows;
  pt.permutations = std::max<uint32_t>(1, uint32_t((uint64_t(1) << log_rows) / 24));
  try {
    // The trace moved, not copied (2^22 rows: 44 GB, beside the same again of upload staging).
    const std::vector<std::optional<AirWithTraces>> airs = bench::moved_airs(keccak_fixture(pt.permutations, 7));
    pt.cells = uint64_t(airs[0]->common.width) * airs[0]->common.height;
    pt.trace_bytes = pt.cells * sizeof(Fp);
    const std::vector<std::shared_ptr<const Air>> list{airs[0]->air};
    const ProvingKey pk = keygen(list, params, exec);
    StarkProver prover(pk, exec, prover_options);
    auto prepared = bench::prepare_steady(prover, airs, {}, pt.prepare_ms, pt.round0);
    pt.memory = memory_breakdown(prepared->plan());
    pt.memory_choice = prepared->memory_choice();
    std::map<std::string, std::vector<double>> ms;
    std::vector<double> wall;
    Proof proof;
    Trace last;
    for (uint32_t r = 0; r < runs + 1; ++r) {
      Trace t;
      auto a = Clock::now();
      proof = prepared->run(airs, &t);
      if (r == 0) continue;
      wall.push_back(ms_since(a));
      for (const TraceSpan& s : t.spans) ms[s.path].push_back(s.device_ms >= 0 ? s.device_ms : s.host_ms);
      last = t;
    }
    for (const auto& [path, v] : ms) pt.device_ms[path] = bench::median(v);
    pt.wall_ms = bench::median(wall);
    pt.peak_device_bytes = last.counters.peak_device_bytes;
    pt.dispatches = last.counters.dispatches;
    pt.submissions = last.counters.submissions;
    pt.host_syncs = last.counters.host_syncs;
    pt.verified = verify_bytes(pk.vk, encode(proof)).ok;
  } catch (const std::exception& e) {
    pt.error = e.what();
  }
  return pt;
}

// The machine's Poseidon2 rate as the CPU executor's kernels reach it: 2^20 random states permuted
// in batches (poseidon2_permute_batch, at the CPU SIMD level) over TBB's default threads, the CPU
// executor's; the median of `runs` passes after a warm-up, in permutations per second.
double poseidon2_rate(uint32_t runs) {
  std::vector<Poseidon2State> states(size_t(1) << 20);
  std::mt19937 rng(7);
  for (Poseidon2State& s : states)
    for (Fp& x : s) x = Fp::from_canonical_unchecked(rng() % Fp::P);
  std::vector<double> per_s;
  for (uint32_t r = 0; r <= runs; ++r) {
    const auto a = Clock::now();
    tbb::parallel_for(tbb::blocked_range<size_t>(0, states.size(), 1024), [&](const tbb::blocked_range<size_t>& b) {
      poseidon2_permute_batch(std::span<Poseidon2State>(states.data() + b.begin(), b.size()));
    });
    if (r > 0) per_s.push_back(double(states.size()) / (ms_since(a) / 1e3));
  }
  return bench::median(per_s);
}

// --sweep-from A --sweep-to B: the cost curve, one line per size, JSON keccakf_bench-<executor>-sweep.json.
int run_sweep(Executor& exec, uint32_t from, uint32_t to, const SystemParams& params, uint32_t runs,
              const ProverOptions& prover_options, const std::string& result_file) {
  fmt::print("keccakf_bench: cost curve on executor {}, device {}, traces of 2^{} .. 2^{} rows, {} proofs each\n",
             exec.name(), exec.device_name(), from, to, runs);
  fmt::print("  {:>4} {:>6} {:>10} {:>10} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>11} {:>9} {:>7}\n", "rows", "perms",
             "trace GB", "prove ms", "commit", "round0", "mle", "openings", "reduction", "whir", "ms/M cells",
             "peak GB", "x trace");
  std::string rows;
  bool ok = true;
  for (uint32_t L = from; L <= to; ++L) {
    // The stacked matrix of 2633 columns of 2^L rows must fit w_stack columns of 2^S: the params of
    // the smallest S >= --log-stacked-height that do (2^21: params(22), 2^22: params(23)).
    uint32_t S = params.l_skip + params.n_stack;
    SystemParams at = params;
    while ((uint64_t(KeccakCols::kWidth) << L) > (uint64_t(at.w_stack) << S) && S < 24)
      at = app_params_with_100_bits_security(++S);
    if (S != params.l_skip + params.n_stack)
      fmt::print(
          "  2^{}: app_params_with_100_bits_security({}), the smallest whose {} stacked columns hold the trace\n", L, S,
          at.w_stack);
    const SweepPoint p = sweep_point(exec, L, at, runs, prover_options);
    auto span = [&](const std::string& path) {
      auto it = p.device_ms.find("stark_prove_excluding_trace" + (path.empty() ? "" : "/" + path));
      return it == p.device_ms.end() ? 0.0 : it->second;
    };
    const double total = span(""), per_m = p.cells ? total / (double(p.cells) / 1e6) : 0;
    const double ratio = p.trace_bytes ? double(p.peak_device_bytes) / double(p.trace_bytes) : 0;
    if (!p.error.empty()) {
      ok = false;
      fmt::print("  2^{:<2} {:>6} {:>10.3f}  failed: {}\n", L, p.permutations, p.trace_bytes / 1e9, p.error);
    } else {
      ok = ok && p.verified;
      fmt::print(
          "  2^{:<2} {:>6} {:>10.3f} {:>10.2f} {:>9.2f} {:>9.2f} {:>9.2f} {:>9.2f} {:>9.2f} {:>9.2f} {:>11.3f} "
          "{:>9.3f} {:>7.2f}{}\n",
          L, p.permutations, p.trace_bytes / 1e9, total, span("prover.main_trace_commit"),
          span("prover.rap_constraints/round0"), span("prover.rap_constraints/mle_rounds"),
          span("prover.rap_constraints/column_openings"), span("prover.openings/stacked_reduction"),
          span("prover.openings/whir"), per_m, p.peak_device_bytes / 1e9, ratio, p.verified ? "" : "  REJECTED");
      fmt::print("       memory: {}\n       {}\n", format_memory_breakdown(p.memory), p.memory_choice);
    }
    std::string spans, memory;
    for (const auto& [path, ms] : p.device_ms)
      spans +=
          fmt::format("{}{{\"path\": {}, \"ms\": {}}}", spans.empty() ? "" : ", ", json_string(path), json_number(ms));
    for (const MemoryPart& m : p.memory)
      memory +=
          fmt::format("{}{{\"group\": {}, \"bytes\": {}}}", memory.empty() ? "" : ", ", json_string(m.group), m.bytes);
    rows += fmt::format(
        "{}{{\"log_rows\": {}, \"log_stacked_height\": {}, \"permutations\": {}, \"trace_bytes\": {}, \"error\": {}, "
        "\"prove_ms\": {}, "
        "\"ms_per_million_cells\": {}, \"peak_device_bytes\": {}, \"peak_over_trace\": {}, \"wall_ms\": {}, "
        "\"prepare_ms\": {}, \"round0_kernels\": {}, \"dispatches\": {}, \"submissions\": {}, \"host_syncs\": {}, "
        "\"verified\": {}, \"memory_choice\": {}, \"spans\": [{}], \"memory\": [{}]}}",
        rows.empty() ? "" : ",\n    ", L, S, p.permutations, p.trace_bytes,
        p.error.empty() ? std::string("null") : json_string(p.error), json_number(total), json_number(per_m),
        p.peak_device_bytes, json_number(ratio), json_number(p.wall_ms), json_number(p.prepare_ms),
        json_string(p.round0.empty() ? "none" : p.round0), p.dispatches, p.submissions, p.host_syncs, p.verified,
        json_string(p.memory_choice), spans, memory);
  }
  bench::write_result(
      result_file, "keccakf_bench", std::string(exec.name()), exec.device_name(),
      fmt::format("{{\"sweep\": true, \"log_stacked_height\": {}, \"runs\": {}, \"sizes\": [\n    {}]}}",
                  params.l_skip + params.n_stack, runs, rows));
  fmt::print("results: {}\n", result_file);
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) try {
  cli::Options options("keccakf_bench",
                       "  Prove Keccak-f permutations (the keccakf example's AIR), verify, print median span times.");
  std::string executor, trace_file, json_file;
  uint32_t permutations = 0, log_stacked = 0, runs = 0, verify_runs = 0;
  cli::executor_option(options, executor);
  options.number<uint32_t>("--permutations", "P", permutations, 1024, {1, 1u << 16},
                           "Keccak-f permutations (24 rows each, the trace padded to a power of two)");
  options.number<uint32_t>("--log-stacked-height", "S", log_stacked, 21, {8, 24},
                           "app_params_with_100_bits_security(S)");
  options.number<uint32_t>("--runs", "R", runs, 5, {1, 1000}, "timed proofs, after one warm-up proof");
  std::string fuse;
  options.choice("--fuse", fuse, {"on", "off"}, "on",
                 "off: the unfused baseline, one submission (and one host wait) per dispatch");
  options.number<uint32_t>("--verify-runs", "V", verify_runs, 9, {1, 100000},
                           "timed host verifications of the encoded proof (decode + verify, one thread)");
  bool profile = false;
  options.flag("--profile", profile, "time every dispatch (one extra run) and list the costliest kernels");
  options.output(
      "--trace", trace_file,
      "write a Chrome trace of the last run (open in Perfetto); with --profile also FILE.profile.json (its spans) and "
      "FILE.tasks.tsv (every dispatch's device time)");
  options.output("--json", json_file,
                 "write results as JSON (default: bench/results/keccakf_bench-<executor>[-unfused].json)");
  uint32_t concurrent = 0;
  options.number<uint32_t>("--concurrent", "N", concurrent, 0, {0, 64},
                           "measure throughput with 1, 2, 4 .. N proofs in flight instead (0: off)");
  cli::MemoryOptions memory;
  cli::memory_options(options, memory);
  bool plan_only = false;
  options.flag("--plan-only", plan_only,
               "build and compile the proof's graph only (no memory taken, nothing run): print where its memory "
               "goes, per phase and per buffer, for the executor's limits");
  uint32_t sweep_from = 0, sweep_to = 0;
  options.number<uint32_t>("--sweep-from", "L", sweep_from, 0, {0, 24},
                           "the cost curve instead: traces of 2^L .. 2^(--sweep-to) rows (floor(2^L / 24) "
                           "permutations each), one size after another (0: off)");
  options.number<uint32_t>("--sweep-to", "L", sweep_to, 0, {0, 24}, "the last size of --sweep-from (default: 20)");
  options.parse_or_exit(argc, argv);
  const SystemParams params = app_params_with_100_bits_security(log_stacked);
  params.validate();
  const ProverOptions prover_options = with_memory({}, memory.mode, memory.device_memory);
  auto exec = make_executor(executor);
  const bool fused = fuse == "on";
  if (sweep_from > 0) {
    const uint32_t to = sweep_to == 0 ? 20 : sweep_to;
    if (to < sweep_from) throw InputError("--sweep-to is below --sweep-from");
    return run_sweep(*exec, sweep_from, to, params, runs, prover_options,
                     bench::result_path(json_file, "keccakf_bench", std::string(exec->name()) + "-sweep"));
  }
  const std::string result_file = bench::result_path(json_file, "keccakf_bench",
                                                     std::string(exec->name()) + (concurrent > 0 ? "-concurrent"
                                                                                  : fused        ? ""
                                                                                                 : "-unfused"));
  const std::vector<std::optional<AirWithTraces>> airs = bench::moved_airs(keccak_fixture(permutations, 7));
  auto t0 = Clock::now();
  const std::vector<std::shared_ptr<const Air>> list{airs[0]->air};
  const ProvingKey pk = keygen(list, params, *exec);
  const double keygen_ms = ms_since(t0);
  fmt::print(
      "keccakf_bench: executor {}, device {}, {}\n  Keccak-f x {}: {} columns x {} rows, l_skip {}, n_stack {}, "
      "log_blowup {}, max degree {}; {} proofs after a warm-up\n",
      exec->name(), exec->device_name(), fused ? "fused" : "unfused (one submission per dispatch)", permutations,
      airs[0]->common.width, airs[0]->common.height, params.l_skip, params.n_stack, params.log_blowup,
      params.max_constraint_degree, runs);

  StarkProver prover(pk, *exec, prover_options);
  if (plan_only) {
    bench::print_plan_only(prover, airs, uint64_t(airs[0]->common.width) * airs[0]->common.height * sizeof(Fp));
    return 0;
  }
  if (concurrent > 0) {
    const Proof serial = prover.prove(airs);
    const std::vector<uint8_t> want = encode(serial);
    const VerifyResult v = verify_bytes(pk.vk, want);
    fmt::print("\n  {:>9} {:>12} {:>14} {:>16} {:>16}\n", "in flight", "proofs/s", "round ms", "latency ms",
               "latency max ms");
    std::string rows;
    std::vector<uint32_t> counts;  // 1, 2, 4, .. below N, then N
    for (uint32_t k = 1; k < concurrent; k *= 2) counts.push_back(k);
    counts.push_back(concurrent);
    for (const uint32_t k : counts) {
      const InFlight f = measure_in_flight(prover, airs, k, runs, want);
      fmt::print("  {:>9} {:>12.2f} {:>14.2f} {:>16.2f} {:>16.2f}\n", k, f.proofs_per_s, f.round_ms, f.latency_ms,
                 f.latency_max_ms);
      rows += fmt::format(
          "{}{{\"in_flight\": {}, \"proofs_per_s\": {}, \"round_ms_median\": {}, "
          "\"latency_ms_median\": {}, \"latency_ms_max\": {}}}",
          rows.empty() ? "" : ", ", k, json_number(f.proofs_per_s), json_number(f.round_ms), json_number(f.latency_ms),
          json_number(f.latency_max_ms));
    }
    fmt::print("  every proof has the serial proof's bytes; the serial proof: {}\n",
               v.ok ? "accepted" : fmt::format("REJECTED [{}]: {}", to_string(v.code), v.reason));
    bench::write_result(result_file, "keccakf_bench", std::string(exec->name()), exec->device_name(),
                        fmt::format("{{\"permutations\": {}, \"log_stacked_height\": {}, \"runs\": {}, "
                                    "\"in_flight\": [{}], \"verified\": {}}}",
                                    permutations, log_stacked, runs, rows, v.ok));
    fmt::print("results: {}\n", result_file);
    return v.ok ? 0 : 1;
  }
  double prepare_ms = 0;
  std::string round0;
  auto prepared = bench::prepare_steady(prover, airs, {.fuse = fused}, prepare_ms, round0);

  std::map<std::string, std::vector<double>> host_ms, device_ms;
  std::vector<double> wall;
  double first_run_ms = 0;
  Trace last;
  Proof proof;
  for (uint32_t r = 0; r < runs + 1; ++r) {
    Trace t;
    auto a = Clock::now();
    proof = prepared->run(airs, &t);
    const double ms = ms_since(a);
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
    (void)prepared->run(airs, &t);
    write_summary(t, std::cout);
    // Every dispatch's time, beside the timed run's trace (per-dispatch timestamps serialise it).
    if (!trace_file.empty()) {
      write_chrome_trace_file(t, trace_file + ".profile.json");
      std::string tasks;  // every dispatch in plan order: name, kernel, ms
      for (const TraceTask& task : t.tasks)
        tasks += fmt::format("{}\t{}\t{}\n", task.name, task.kernel, task.device_ms);
      replace_file(trace_file + ".tasks.tsv", tasks);
    }
  }
  // The hashing floor: the Poseidon2 permutations the plan's hashing tasks perform (PlanCounts:
  // row hashing and Merkle compression; the transcript's and grinding's are not counted) at the
  // machine's rate on the CPU executor's threads, measured now, after the timed proofs.
  const uint64_t plan_permutations = prepared->plan().counts.permutations;
  const bool on_cpu = exec->name() == std::string_view("cpu");
  const double rate = on_cpu ? poseidon2_rate(9) : 0;
  const double floor_ms = rate > 0 ? double(plan_permutations) / rate * 1e3 : 0;
  const double proof_ms = bench::median(host_ms["stark_prove_excluding_trace"]);
  const std::vector<uint8_t> bytes = encode(proof);
  VerifyResult verdict;
  std::vector<double> verify_times;
  for (uint32_t v = 0; v < verify_runs; ++v) {
    t0 = Clock::now();
    verdict = verify_bytes(pk.vk, bytes);
    verify_times.push_back(ms_since(t0));
  }
  const double verify_ms = bench::median(verify_times);

  auto min_of = [](const std::vector<double>& v) { return v.empty() ? 0.0 : *std::min_element(v.begin(), v.end()); };
  auto max_of = [](const std::vector<double>& v) { return v.empty() ? 0.0 : *std::max_element(v.begin(), v.end()); };
  fmt::print("\n  {:<74} {:>9} {:>22} {:>10} {:>9}\n", "span", "host ms", "device ms: median (min-max)", "dispatches",
             "barriers");
  std::string spans_json;
  for (const std::string& path : kSpans) {
    const std::vector<double>& hv = host_ms[path];
    const std::vector<double>& dv = device_ms[path];
    const double h = bench::median(hv), d = bench::median(dv);
    uint64_t dispatches = 0, barriers = 0;
    for (const TraceSpan& sp : last.spans)
      if (sp.path == path) {
        dispatches = sp.dispatches;
        barriers = sp.barriers;
      }
    fmt::print("  {:<74} {:>9.2f} {:>22} {:>10} {:>9}\n", path, h,
               d < 0 ? std::string("-") : fmt::format("{:.2f} ({:.2f}-{:.2f})", d, min_of(dv), max_of(dv)), dispatches,
               barriers);
    spans_json += fmt::format(
        "{}{{\"path\": {}, \"host_ms\": {}, \"host_ms_min\": {}, \"host_ms_max\": {}, \"device_ms\": {}, "
        "\"device_ms_min\": {}, \"device_ms_max\": {}, \"dispatches\": {}, \"barriers\": {}}}",
        spans_json.empty() ? "" : ", ", json_string(path), json_number(h), json_number(min_of(hv)),
        json_number(max_of(hv)), d < 0 ? "null" : json_number(d), d < 0 ? "null" : json_number(min_of(dv)),
        d < 0 ? "null" : json_number(max_of(dv)), dispatches, barriers);
  }
  const TraceCounters& c = last.counters;
  fmt::print(
      "  keygen {:.0f} ms; prepare (build, compile, kernels, pipelines) {:.0f} ms; first run {:.1f} ms; round 0 on {} "
      "kernels\n",
      keygen_ms, prepare_ms, first_run_ms, round0);
  fmt::print("  run() wall time median {:.2f} ms, min {:.2f}, max {:.2f} (upload, run, download, decode)\n",
             bench::median(wall), min_of(wall), max_of(wall));
  if (on_cpu)
    fmt::print(
        "  hashing floor: {} Poseidon2 permutations (row hashing, Merkle; transcript and grinding not counted) at "
        "{:.2f} M/s ({} threads, {}) = {:.1f} ms; the proof is {:.2f} x the floor\n",
        plan_permutations, rate / 1e6, tbb::info::default_concurrency(), poseidon2_batch_isa(), floor_ms,
        floor_ms > 0 ? proof_ms / floor_ms : 0.0);
  else
    fmt::print("  Poseidon2 permutations of the plan (row hashing, Merkle): {}\n", plan_permutations);
  fmt::print(
      "  counters: dispatches {}, barriers {}, submissions {}, host syncs {}, bytes up {}, bytes down {}, peak device "
      "bytes {}\n",
      c.dispatches, c.barriers, c.submissions, c.host_syncs, c.bytes_up, c.bytes_down, c.peak_device_bytes);
  const uint64_t trace_bytes = uint64_t(airs[0]->common.width) * airs[0]->common.height * sizeof(Fp);
  fmt::print("  memory (plan): {}; {:.2f} x the trace's {:.3f} GB\n  {}\n", format_memory_breakdown(last.memory),
             double(c.peak_device_bytes) / double(trace_bytes), trace_bytes / 1e9, prepared->memory_choice());
  fmt::print("  proof size {} bytes; host verification (median of {}) {:.1f} ms: {}\n", bytes.size(), verify_runs,
             verify_ms,
             verdict.ok ? "accepted" : fmt::format("REJECTED [{}]: {}", to_string(verdict.code), verdict.reason));
  const std::string json = fmt::format(
      "{{\"fused\": {}, \"permutations\": {}, \"log_stacked_height\": {}, \"runs\": {}, \"wall_ms_median\": {}, "
      "\"spans\": [{}], "
      "\"counters\": {{\"dispatches\": {}, \"barriers\": {}, \"submissions\": {}, \"host_syncs\": {}, "
      "\"peak_device_bytes\": {}}}, \"trace_bytes\": {}, \"proof_bytes\": {}, \"verify_ms\": {}, \"verified\": {}, "
      "\"keygen_ms\": {}, "
      "\"prepare_ms\": {}, \"first_run_ms\": {}, \"round0_kernels\": {}, \"plan_permutations\": {}, "
      "\"poseidon2_per_s\": {}, \"hashing_floor_ms\": {}, \"proof_over_floor\": {}, \"threads\": {}, "
      "\"simd\": {}}}",
      fused, permutations, log_stacked, runs, json_number(bench::median(wall)), spans_json, c.dispatches, c.barriers,
      c.submissions, c.host_syncs, c.peak_device_bytes, trace_bytes, bytes.size(), json_number(verify_ms), verdict.ok,
      json_number(keygen_ms), json_number(prepare_ms), json_number(first_run_ms), json_string(round0),
      plan_permutations, on_cpu ? json_number(rate) : "null", on_cpu ? json_number(floor_ms) : "null",
      on_cpu && floor_ms > 0 ? json_number(proof_ms / floor_ms) : "null", tbb::info::default_concurrency(),
      json_string(poseidon2_batch_isa()));
  bench::write_result(result_file, "keccakf_bench", std::string(exec->name()), exec->device_name(), json);
  fmt::print("results: {}\n", result_file);
  if (!trace_file.empty()) write_chrome_trace_file(last, trace_file);
  return verdict.ok ? 0 : 1;
} catch (const std::exception& e) {
  fmt::print(stderr, "keccakf_bench: {}\n", e.what());
  return 1;
}
