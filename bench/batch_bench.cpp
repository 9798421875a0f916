// batch_bench: the throughput of proof batches (product/batch/batch.hpp) over one worker and over
// every worker of the machine (each Vulkan GPU, optionally the CPU), in the same run. A batch is
// --proofs-per-worker x workers keccakf jobs (--permutations each, secure params, seeds 1, 2, ..),
// dealt dynamically, --in-flight proofs per worker; every job's traces are made (in the worker's
// upload memory), proved, verified (--verify), encoded and written as a proof file (into a temporary
// folder), as vkstark prove-batch does. A warm-up batch first (keys, pipelines, prepared proofs,
// trace memory; kept across batches in each worker's cache), then the device's own rate (worker 0
// proving one proof at a time: its device time, the same as keccakf_bench's), then --runs batches per
// configuration: proofs per second (median), its share of the device's own rate, the ratio of all
// workers to one, and the stages of the proofs (traces, staging, upload, device, download, verify,
// encode, write: medians). Every proof must equal the serial proof of its job, byte for byte, and
// (where verified) verify. JSON: bench/results/batch_bench-<executor>.json.
//
//   batch_bench [--executor vulkan|cpu|auto] [--devices all|LIST] [--cpu-worker] [--permutations 1024]
//               [--log-stacked-height 21] [--proofs-per-worker 8] [--in-flight 2] [--runs 3]
//               [--verify all|none|sample N] [--json F]
#include <fmt/format.h>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <thread>
#include <tuple>

#include <tbb/task_arena.h>

#include "bench/bench_util.hpp"
#include "cli/options.hpp"
#include "executors/executors.hpp"
#include "product/batch/batch.hpp"
#include "product/proof_file.hpp"
#include "runtime/clock.hpp"
#include "runtime/file.hpp"
#include "stages/air/keygen.hpp"
#include "stages/encoding/codec.hpp"
#include "stages/prover.hpp"

using namespace vkstark;

namespace {

using Clock = std::chrono::steady_clock;

struct Round {
  double wall_s = 0;
  double proofs_per_s = 0;
  std::map<std::string, uint64_t> per_worker;
  std::vector<batch::JobResult> results;
};

// A batch's timeline (JobResult::at) by worker: every proof's steps as JSON, and the time its
// device waited for a proof: where a worker's proof started after the proof before it came back
// (started - finished of the one before; the device then also waits for the upload).
struct Timeline {
  std::string json;
  std::map<std::string, double> late_ms;  // per worker
};
Timeline timeline(std::vector<batch::JobResult> results) {
  std::sort(results.begin(), results.end(), [](const batch::JobResult& a, const batch::JobResult& b) {
    return std::tie(a.worker, a.at.started) < std::tie(b.worker, b.at.started);
  });
  Timeline t;
  for (size_t i = 0; i < results.size(); ++i) {
    const batch::JobResult& r = results[i];
    double late = 0;
    if (i > 0 && results[i - 1].worker == r.worker) late = std::max(0.0, r.at.started - results[i - 1].at.finished);
    t.late_ms[r.worker] += late;
    t.json += fmt::format(
        "{}\n      {{\"worker\": {}, \"job\": {}, \"dealt\": {:.3f}, \"traces\": {:.3f}, \"started\": {:.3f}, "
        "\"finished\": {:.3f}, \"checked\": {:.3f}, \"late_ms\": {:.3f}, \"traces_ms\": {:.3f}, \"upload_ms\": "
        "{:.3f}, \"device_ms\": {:.3f}, \"verify_ms\": {:.3f}}}",
        t.json.empty() ? "" : ",", json_string(r.worker), r.job, r.at.dealt, r.at.traces, r.at.started, r.at.finished,
        r.at.checked, late, r.traces_ms, r.upload_ms, r.device_ms, r.verify_ms);
  }
  return t;
}

}  // namespace

int main(int argc, char** argv) try {
  cli::Options options("batch_bench",
                       "  Proofs per second of keccakf batches on one worker and on all (every GPU), same run.");
  std::string executor, devices, json, verify_text, trace_memory;
  uint32_t permutations = 0, log_stacked = 0, per_worker = 0, in_flight = 0, traces_ahead = 0, runs = 0;
  bool cpu_worker = false;
  cli::executor_option(options, executor);
  options.text("--devices", "all|LIST", devices, "the Vulkan devices (default all)");
  options.flag("--cpu-worker", cpu_worker, "the CPU executor as one more worker");
  options.number<uint32_t>("--permutations", "N", permutations, 1024, {1, 1u << 16}, "Keccak-f permutations per proof");
  options.number<uint32_t>("--log-stacked-height", "H", log_stacked, 21, {8, kMaxLogStackedHeight},
                           "the secure params' log2 stacked height");
  options.number<uint32_t>("--proofs-per-worker", "N", per_worker, 8, {1, 1000}, "jobs per batch, per worker");
  options.number<uint32_t>("--in-flight", "N", in_flight, 2, {1, 64}, "proofs in flight per worker");
  options.number<uint32_t>("--traces-ahead", "N", traces_ahead, 1, {0, 64},
                           "jobs a worker takes beyond its proofs in flight (their traces made meanwhile)");
  options.number<uint32_t>("--runs", "R", runs, 3, {1, 100}, "timed batches per configuration");
  options.text("--verify", "all|none|sample N", verify_text, "which proofs are verified on the host (default all)");
  options.choice("--trace-memory", trace_memory, {"upload", "ordinary"}, "upload",
                 "where traces are made: the worker's upload memory (copied by the device in place), or ordinary "
                 "memory, reused all the same (copied into staging as each proof starts: the design before)");
  options.output("--json", json, "the result file (default bench/results/batch_bench-<executor>.json)");
  options.parse_or_exit(argc, argv);
  batch::VerifyPolicy verify;
  try {
    verify = batch::VerifyPolicy::parse(verify_text.empty() ? "all" : verify_text);
  } catch (const InputError& e) {
    options.fail(e.what());
  }

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
      "batch_bench: {} worker(s): {}; keccakf {} permutations, params(log stacked {}), {} in flight per worker, "
      "verify {}, traces in {} memory\n",
      all.size(), device_names, permutations, log_stacked, in_flight, verify.describe(), trace_memory);

  // The host's part alone: one job's traces, made serially into the first worker's upload memory
  // (median of 3), and the threads TBB has.
  double traces_alone_ms = 0;
  {
    std::vector<double> ms;
    std::shared_ptr<HostMemory> memory;
    batch::Job j;
    j.name = "probe";
    j.air = "keccakf";
    j.size = permutations;
    for (int i = 0; i < 3; ++i) {
      const auto t0 = Clock::now();
      batch::JobAirs airs = batch::make_job_airs(j, [&](uint64_t cells) {
        if (!memory) memory = all[0].executor->host_memory(cells * sizeof(Fp));
        return TraceValues(memory, cells);
      });
      ms.push_back(ms_since(t0));
    }
    traces_alone_ms = bench::median(ms);
    fmt::print("host: {} hardware threads, TBB concurrency {}; one job's traces alone: {:.1f} ms (median of 3)\n",
               std::thread::hardware_concurrency(), tbb::this_task_arena::max_concurrency(), traces_alone_ms);
  }

  // Proof files go where prove-batch would write them: a folder of their own, removed at the end.
  const std::filesystem::path out_dir =
      std::filesystem::temp_directory_path() / fmt::format("batch_bench-{}", ::getpid());
  std::filesystem::create_directories(out_dir);
  struct RemoveDir {
    std::filesystem::path p;
    ~RemoveDir() {
      std::error_code ec;
      std::filesystem::remove_all(p, ec);
    }
  } remove_dir{out_dir};

  batch::WorkerOptions worker_options;
  worker_options.max_in_flight = in_flight;
  worker_options.traces_ahead = traces_ahead;
  worker_options.verify = verify;
  worker_options.upload_memory = trace_memory == "upload";
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
  std::map<uint32_t, std::vector<uint8_t>> reference;  // seed -> the serial proof file's bytes
  auto batch_round = [&](const std::vector<batch::Worker>& workers) {
    const std::vector<batch::Job> jobs = jobs_for(workers.size());
    std::vector<std::vector<uint8_t>> files(jobs.size());
    batch::LocalSource source(jobs.size(), [&](batch::JobResult& r) {
      if (!r.ok) return;
      const auto w0 = Clock::now();
      cli::write_binary_file((out_dir / fmt::format("{}.vkp", jobs[r.job].name)).string(), r.file);
      r.write_ms = ms_since(w0);
      files[r.job] = std::move(r.file);
    });
    const auto t0 = Clock::now();
    batch::run_workers(jobs, source, workers, worker_options);
    Round round;
    round.wall_s = std::chrono::duration<double>(Clock::now() - t0).count();
    round.results = source.results();
    for (const batch::JobResult& r : round.results) {
      if (!r.ok) throw ExecutionError(fmt::format("job {} failed on {}: {}", jobs[r.job].name, r.worker, r.reason));
      ++round.per_worker[r.worker];
      auto it = reference.find(jobs[r.job].seed);
      if (it == reference.end())
        throw ExecutionError(fmt::format("job {}: no serial proof of seed {}", jobs[r.job].name, jobs[r.job].seed));
      if (it->second != files[r.job])
        throw ExecutionError(fmt::format("job {} on {}: another proof than serial proving's of seed {}",
                                         jobs[r.job].name, r.worker, jobs[r.job].seed));
    }
    round.proofs_per_s = double(jobs.size()) / round.wall_s;
    return round;
  };

  // The serial proofs of every job (worker 0, one at a time: Prepared::run), which every batch's
  // proofs must equal byte for byte; and the device's own rate: the median device time of those
  // runs, back to back with every trace made before (keccakf_bench's figure: a device left idle
  // between proofs while their traces are made lowers its clocks).
  double device_alone_ms = 0, serial_wall_ms = 0;
  {
    const std::vector<batch::Job> jobs = jobs_for(all.size());
    const batch::JobAirs first = batch::make_job_airs(jobs[0]);
    std::vector<std::shared_ptr<const Air>> airs;
    for (const auto& a : first.airs) airs.push_back(a->air);
    const ProvingKey pk = keygen(airs, batch::job_params(jobs[0]), *all[0].executor);
    StarkProver prover(pk, *all[0].executor);
    (void)prover.prepare(first.airs)->run(first.airs);
    prover.wait_for_kernels();  // round 0's generated kernels, as keccakf_bench measures them
    std::unique_ptr<StarkProver::Prepared> prepared = prover.prepare(first.airs);
    std::vector<batch::JobAirs> traces;
    for (const batch::Job& j : jobs) traces.push_back(batch::make_job_airs(j));
    std::vector<double> device, wall;
    for (size_t i = 0; i < jobs.size(); ++i) {
      const batch::JobAirs& job = traces[i];
      Trace t;
      const auto t0 = Clock::now();
      const Proof proof = prepared->run(job.airs, &t);
      wall.push_back(ms_since(t0));
      device.push_back(t.spans[0].device_ms >= 0 ? t.spans[0].device_ms : t.spans[0].host_ms);
      ProofFile file;
      for (const auto& a : job.airs) file.air_names.push_back(a->air->name());
      file.vk = pk.vk;
      file.proof = encode(proof);
      reference[jobs[i].seed] = encode_proof_file(file);
    }
    if (!device.empty()) {
      device_alone_ms = bench::median(device);
      serial_wall_ms = bench::median(wall);
    }
    fmt::print(
        "{} alone, one proof at a time: device {:.2f} ms (median of {}; run() wall {:.2f} ms): the device's own "
        "rate {:.2f} proofs/s\n",
        all[0].label, device_alone_ms, device.size(), serial_wall_ms,
        device_alone_ms > 0 ? 1000 / device_alone_ms : 0.0);
  }

  // Warm-up: every worker's key, pipelines and in-flight prepared proofs.
  {
    const auto t0 = Clock::now();
    Round warm = batch_round(all);
    // Then every worker's proofs on the kernels compiled in the background, prepared again.
    for (const batch::Worker& w : all) batch::settle(*w.cache);
    warm = batch_round(all);
    fmt::print("warm-up batch ({} proofs): {:.2f} s, setup included ({:.1f} s since start)\n", per_worker * all.size(),
               warm.wall_s, std::chrono::duration<double>(Clock::now() - t0).count());
  }

  std::vector<size_t> configurations{1};
  if (all.size() > 1) configurations.push_back(all.size());
  std::string results_json;
  std::map<size_t, double> median_rate;
  for (size_t n : configurations) {
    const std::vector<batch::Worker> workers(all.begin(), all.begin() + std::ptrdiff_t(n));
    std::vector<double> rates, walls;
    std::vector<batch::JobResult> results;
    std::map<std::string, uint64_t> spread;
    for (uint32_t r = 0; r < runs; ++r) {
      Round round = batch_round(workers);
      rates.push_back(round.proofs_per_s);
      walls.push_back(round.wall_s);
      results.insert(results.end(), round.results.begin(), round.results.end());
      for (const auto& [w, c] : round.per_worker) spread[w] += c;
    }
    median_rate[n] = bench::median(rates);
    const batch::StageTimes stages = batch::stage_times(results);
    const Timeline last = timeline(std::vector<batch::JobResult>(results.end() - std::ptrdiff_t(per_worker * n),
                                                                 results.end()));  // the last batch's
    std::string late_text;
    for (const auto& [w, ms] : last.late_ms)
      late_text += fmt::format("{}{} {:.1f} ms", late_text.empty() ? "" : ", ", w, ms);
    std::string spread_text, spread_json;
    for (const auto& [w, c] : spread) {
      spread_text += fmt::format("{}{}: {}", spread_text.empty() ? "" : ", ", w, c);
      spread_json += fmt::format("{}{}: {}", spread_json.empty() ? "" : ", ", json_string(w), c);
    }
    const double lo = *std::min_element(rates.begin(), rates.end()), hi = *std::max_element(rates.begin(), rates.end());
    const double own = device_alone_ms > 0 ? 1000 / device_alone_ms * double(n) : 0;  // n devices' own rate
    fmt::print(
        "{} worker(s), {} proofs per batch: {:.3f} proofs/s (median of {}; {:.3f}-{:.3f}), {:.1f}% of the devices' "
        "own rate; batch {:.2f} s; proofs per worker: {}\n  per proof (median): {}; on its device start to finish "
        "{:.1f} ms\n  last batch, proofs started after the one before came back: {}\n",
        n, per_worker * n, median_rate[n], runs, lo, hi, own > 0 ? 100 * median_rate[n] / own : 0.0,
        bench::median(walls), spread_text, batch::describe(stages), stages.prove_median, late_text);
    results_json += fmt::format(
        "{}\n    {{\"workers\": {}, \"proofs_per_batch\": {}, \"proofs_per_s\": {}, \"proofs_per_s_min\": {}, "
        "\"proofs_per_s_max\": {}, \"share_of_device_rate\": {}, \"batch_s\": {}, \"stages\": {}, "
        "\"per_worker\": {{{}}}, \"last_batch_timeline\": [{}\n    ]}}",
        results_json.empty() ? "" : ",", n, per_worker * n, json_number(median_rate[n]), json_number(lo),
        json_number(hi), json_number(own > 0 ? median_rate[n] / own : 0), json_number(bench::median(walls)),
        batch::to_json(stages), spread_json, last.json);
  }
  double ratio = 0;
  if (all.size() > 1) {
    ratio = median_rate[all.size()] / median_rate[1];
    fmt::print("{} workers / 1 worker: {:.2f}x\n", all.size(), ratio);
  }
  bench::write_result(
      path, "batch_bench", kind, device_names,
      fmt::format(
          "{{\"permutations\": {}, \"log_stacked_height\": {}, \"in_flight\": {}, "
          "\"traces_ahead\": {}, \"runs\": {}, \"verify\": {}, \"trace_memory\": {}, \"host_threads\": {}, "
          "\"traces_alone_ms\": {}, \"compute_queues\": {}, \"transfer_queue\": {}, "
          "\"device_alone_ms\": {}, \"serial_wall_ms\": {}, \"device_rate_per_s\": {}, "
          "\"configurations\": [{}\n  ], \"ratio_all_to_one\": {}}}",
          permutations, log_stacked, in_flight, traces_ahead, runs, json_string(verify.describe()),
          json_string(trace_memory), std::thread::hardware_concurrency(), json_number(traces_alone_ms),
          json_string(std::getenv("VKSTARK_COMPUTE_QUEUES") ? std::getenv("VKSTARK_COMPUTE_QUEUES") : "default"),
          json_string(std::getenv("VKSTARK_TRANSFER_QUEUE") ? std::getenv("VKSTARK_TRANSFER_QUEUE") : "default"),
          json_number(device_alone_ms), json_number(serial_wall_ms),
          json_number(device_alone_ms > 0 ? 1000 / device_alone_ms : 0), results_json, json_number(ratio)));
  fmt::print("wrote {}\n", path);
  return 0;
} catch (const std::exception& e) {
  fmt::print(stderr, "batch_bench: {}\n", e.what());
  return 1;
}
