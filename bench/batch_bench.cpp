// batch_bench: the throughput of proof batches (product/batch/batch.hpp) over one worker and over
// every worker of the machine (each Vulkan GPU, optionally the CPU), in the same run. A batch is
// --proofs-per-worker x workers keccakf jobs (--permutations each, secure params, seeds 1, 2, ..),
// dealt dynamically, --in-flight proofs per worker; every job's traces are made, proved, verified and
// encoded as a proof file, as in vkstark prove-batch (writing the files excepted). A warm-up batch
// first (keys, pipelines, prepared proofs; kept across batches in each worker's cache), then --runs
// batches per configuration: proofs per second (median), and the ratio of all workers to one. Every
// proof must verify and equal the first configuration's proof of its job, byte for byte.
// JSON: bench/results/batch_bench-<executor>.json.
//
//   batch_bench [--executor vulkan|cpu|auto] [--devices all|LIST] [--cpu-worker] [--permutations 1024]
//               [--log-stacked-height 21] [--proofs-per-worker 8] [--in-flight 2] [--runs 3] [--json F]
#include <fmt/format.h>

#include <chrono>
#include <map>
#include <thread>

#include <tbb/task_arena.h>

#include "bench/bench_util.hpp"
#include "cli/options.hpp"
#include "executors/executors.hpp"
#include "product/batch/batch.hpp"

using namespace vkstark;

namespace {

using Clock = std::chrono::steady_clock;

struct Round {
  double wall_s = 0;
  double proofs_per_s = 0;
  std::map<std::string, uint64_t> per_worker;
  std::vector<double> prove_ms;  // per proof, start to finish on its device
  std::vector<double> traces_ms, verify_ms;
};

}  // namespace

int main(int argc, char** argv) try {
  cli::Options options("batch_bench",
                       "  Proofs per second of keccakf batches on one worker and on all (every GPU), same run.");
  std::string executor, devices, json;
  uint32_t permutations = 0, log_stacked = 0, per_worker = 0, in_flight = 0, runs = 0;
  bool cpu_worker = false;
  cli::executor_option(options, executor);
  options.text("--devices", "all|LIST", devices, "the Vulkan devices (default all)");
  options.flag("--cpu-worker", cpu_worker, "the CPU executor as one more worker");
  options.number<uint32_t>("--permutations", "N", permutations, 1024, {1, 1u << 16}, "Keccak-f permutations per proof");
  options.number<uint32_t>("--log-stacked-height", "H", log_stacked, 21, {8, kMaxLogStackedHeight},
                           "the secure params' log2 stacked height");
  options.number<uint32_t>("--proofs-per-worker", "N", per_worker, 8, {1, 1000}, "jobs per batch, per worker");
  options.number<uint32_t>("--in-flight", "N", in_flight, 2, {1, 64}, "proofs in flight per worker");
  options.number<uint32_t>("--runs", "R", runs, 3, {1, 100}, "timed batches per configuration");
  options.output("--json", json, "the result file (default bench/results/batch_bench-<executor>.json)");
  options.parse_or_exit(argc, argv);

  std::vector<NamedExecutor> executors = make_executors(executor, devices.empty() ? "all" : devices, cpu_worker);
  const std::string kind(executors.front().executor->name());
  const std::string path = bench::result_path(json, "batch_bench", kind);
  std::vector<batch::Worker> all;
  std::string device_names;
  for (NamedExecutor& e : executors) {
    all.push_back({e.label, e.executor.get(), batch::make_worker_cache()});
    device_names += (device_names.empty() ? "" : ", ") + e.label;
  }
  fmt::print(
      "batch_bench: {} worker(s): {}; keccakf {} permutations, params(log stacked {}), {} in flight per worker\n",
      all.size(), device_names, permutations, log_stacked, in_flight);

  // The host's part alone: one job's traces, made serially (median of 3), and the threads TBB has.
  double traces_alone_ms = 0;
  {
    std::vector<double> ms;
    TraceMatrix storage;
    batch::Job j;
    j.name = "probe";
    j.air = "keccakf";
    j.size = permutations;
    for (int i = 0; i < 3; ++i) {
      const auto t0 = Clock::now();
      batch::JobAirs airs = batch::make_job_airs(j, std::move(storage));
      ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
      storage = std::move(airs.airs[0]->common);
    }
    traces_alone_ms = bench::median(ms);
    fmt::print("host: {} hardware threads, TBB concurrency {}; one job's traces alone: {:.1f} ms (median of 3)\n",
               std::thread::hardware_concurrency(), tbb::this_task_arena::max_concurrency(), traces_alone_ms);
  }

  batch::WorkerOptions worker_options;
  worker_options.max_in_flight = in_flight;
  auto jobs_for = [&](size_t workers) {
    std::vector<batch::Job> jobs;
    for (uint32_t i = 0; i < per_worker * workers; ++i) {
      batch::Job j;
      j.name = fmt::format("keccakf-{}", i);
      j.air = "keccakf";
      j.size = permutations;
      j.seed = 1 + i;
      j.params = "secure";
      j.log_stacked = log_stacked;
      jobs.push_back(std::move(j));
    }
    return jobs;
  };
  std::map<uint32_t, std::vector<uint8_t>> reference;  // seed -> proof file
  auto batch_round = [&](const std::vector<batch::Worker>& workers, bool check) {
    const std::vector<batch::Job> jobs = jobs_for(workers.size());
    std::vector<std::vector<uint8_t>> files(jobs.size());
    batch::LocalSource source(jobs.size(), [&](batch::JobResult& r) { files[r.job] = std::move(r.file); });
    const auto t0 = Clock::now();
    batch::run_workers(jobs, source, workers, worker_options);
    Round round;
    round.wall_s = std::chrono::duration<double>(Clock::now() - t0).count();
    for (const batch::JobResult& r : source.results()) {
      if (!r.ok) throw ExecutionError(fmt::format("job {} failed on {}: {}", jobs[r.job].name, r.worker, r.reason));
      ++round.per_worker[r.worker];
      round.prove_ms.push_back(r.prove_ms);
      round.traces_ms.push_back(r.traces_ms);
      round.verify_ms.push_back(r.verify_ms);
      if (!check) continue;
      auto [it, fresh] = reference.emplace(jobs[r.job].seed, files[r.job]);
      if (!fresh && it->second != files[r.job])
        throw ExecutionError(fmt::format("job {} on {}: another proof than the first one of seed {}", jobs[r.job].name,
                                         r.worker, jobs[r.job].seed));
    }
    round.proofs_per_s = double(jobs.size()) / round.wall_s;
    return round;
  };

  // Warm-up: every worker's key, pipelines and in-flight prepared proofs.
  {
    const auto t0 = Clock::now();
    const Round warm = batch_round(all, true);
    fmt::print("warm-up batch ({} proofs): {:.2f} s, setup included ({:.1f} s since start)\n", per_worker * all.size(),
               warm.wall_s, std::chrono::duration<double>(Clock::now() - t0).count());
  }

  std::vector<size_t> configurations{1};
  if (all.size() > 1) configurations.push_back(all.size());
  std::string results_json;
  std::map<size_t, double> median_rate;
  for (size_t n : configurations) {
    const std::vector<batch::Worker> workers(all.begin(), all.begin() + std::ptrdiff_t(n));
    std::vector<double> rates, walls, prove, traces, verify;
    std::map<std::string, uint64_t> spread;
    for (uint32_t r = 0; r < runs; ++r) {
      Round round = batch_round(workers, true);
      rates.push_back(round.proofs_per_s);
      walls.push_back(round.wall_s);
      prove.insert(prove.end(), round.prove_ms.begin(), round.prove_ms.end());
      traces.insert(traces.end(), round.traces_ms.begin(), round.traces_ms.end());
      verify.insert(verify.end(), round.verify_ms.begin(), round.verify_ms.end());
      for (const auto& [w, c] : round.per_worker) spread[w] += c;
    }
    median_rate[n] = bench::median(rates);
    std::string spread_text, spread_json;
    for (const auto& [w, c] : spread) {
      spread_text += fmt::format("{}{}: {}", spread_text.empty() ? "" : ", ", w, c);
      spread_json += fmt::format("{}{}: {}", spread_json.empty() ? "" : ", ", json_string(w), c);
    }
    const double lo = *std::min_element(rates.begin(), rates.end()), hi = *std::max_element(rates.begin(), rates.end());
    fmt::print(
        "{} worker(s), {} proofs per batch: {:.3f} proofs/s (median of {}; {:.3f}-{:.3f}), batch {:.2f} s, "
        "per proof (median): traces {:.1f} ms, on the device {:.1f} ms (start to finish), verify {:.1f} ms; "
        "proofs per worker: {}\n",
        n, per_worker * n, median_rate[n], runs, lo, hi, bench::median(walls), bench::median(traces),
        bench::median(prove), bench::median(verify), spread_text);
    results_json += fmt::format(
        "{}\n    {{\"workers\": {}, \"proofs_per_batch\": {}, \"proofs_per_s\": {}, \"proofs_per_s_min\": {}, "
        "\"proofs_per_s_max\": {}, \"batch_s\": {}, \"traces_ms_median\": {}, \"prove_ms_median\": {}, "
        "\"verify_ms_median\": {}, \"per_worker\": {{{}}}}}",
        results_json.empty() ? "" : ",", n, per_worker * n, json_number(median_rate[n]), json_number(lo),
        json_number(hi), json_number(bench::median(walls)), json_number(bench::median(traces)),
        json_number(bench::median(prove)), json_number(bench::median(verify)), spread_json);
  }
  double ratio = 0;
  if (all.size() > 1) {
    ratio = median_rate[all.size()] / median_rate[1];
    fmt::print("{} workers / 1 worker: {:.2f}x\n", all.size(), ratio);
  }
  bench::write_result(
      path, "batch_bench", kind, device_names,
      fmt::format("{{\"permutations\": {}, \"log_stacked_height\": {}, \"in_flight\": {}, "
                  "\"runs\": {}, \"host_threads\": {}, \"traces_alone_ms\": {}, \"configurations\": [{}\n  ], "
                  "\"ratio_all_to_one\": {}}}",
                  permutations, log_stacked, in_flight, runs, std::thread::hardware_concurrency(),
                  json_number(traces_alone_ms), results_json, json_number(ratio)));
  fmt::print("wrote {}\n", path);
  return 0;
} catch (const std::exception& e) {
  fmt::print(stderr, "batch_bench: {}\n", e.what());
  return 1;
}
