// vkstark prove-batch: the jobs of a manifest (or one job per trace file of a folder) proved on every
// worker of this machine (each Vulkan GPU, optionally the CPU), several in flight per device within
// its memory; built with VKSTARK_MPI=ON and started by mpirun, over every rank (cli/batch_mpi.hpp):
// rank 0 reads the manifest, deals the jobs out as workers free up, writes the proof files and
// prints the summary. A failed job is reported with its reason and the batch goes on.
//
// Exit statuses: 0 every job proved, verified and written; 1 a job failed or was lost; 2 a bad
// command line or manifest.
#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "executors/executors.hpp"
#include "product/batch/batch.hpp"
#include "product/batch/manifest.hpp"
#include "runtime/clock.hpp"
#include "runtime/error.hpp"
#include "runtime/file.hpp"
#include "runtime/json.hpp"
#include "stages/common/params.hpp"
#ifdef VKSTARK_HAVE_MPI
#include "cli/batch_mpi.hpp"
#endif

namespace vkstark::cli {

namespace {

using Clock = std::chrono::steady_clock;

constexpr int kExitFailed = 1;
constexpr int kExitUsage = 2;

#ifdef VKSTARK_HAVE_MPI
// Started by mpirun (Open MPI sets OMPI_COMM_WORLD_SIZE; PMI/PMIx launchers PMIX_RANK or PMI_RANK).
bool launched_by_mpi() {
  return std::getenv("OMPI_COMM_WORLD_SIZE") || std::getenv("PMIX_RANK") || std::getenv("PMI_RANK");
}
#endif

// Writes a proof file where its job says, making the folders on the way.
void write_proof(const std::string& path, const std::vector<uint8_t>& bytes) {
  const std::filesystem::path p(path);
  std::error_code ec;
  if (p.has_parent_path() && !std::filesystem::create_directories(p.parent_path(), ec) && ec)
    throw std::runtime_error(
        fmt::format("cannot make the folder '{}' for '{}': {}", p.parent_path().string(), path, ec.message()));
  write_binary_file(path, bytes);
}

// Where the jobs' proofs go, checked before anything is proved: each folder made (as write_proof
// would), each path writable and none the summary's. One line per path that is not, with the system's reason; empty
// when all are.
std::string unwritable_outputs(const std::vector<batch::Job>& jobs, const std::string& summary) {
  std::string problems;
  size_t count = 0;
  for (const batch::Job& job : jobs) {
    // The summary, written last, would replace a proof the batch reported written.
    if (!summary.empty() && same_regular_file(summary, job.out) && ++count <= 10)
      problems += fmt::format("\n  job {}: '{}' is the --summary file too", job.name, job.out);
    const std::filesystem::path p(job.out);
    std::error_code ec;
    std::string why;
    if (p.has_parent_path() && !std::filesystem::create_directories(p.parent_path(), ec) && ec)
      why = fmt::format("cannot make the folder '{}': {}", p.parent_path().string(), ec.message());
    else
      why = unwritable_reason(p);
    if (!why.empty() && ++count <= 10) problems += fmt::format("\n  job {}: '{}': {}", job.name, job.out, why);
  }
  if (count > 10) problems += fmt::format("\n  and {} more job(s)", count - 10);
  return problems;
}

std::string summary_json(const std::vector<batch::Job>& jobs, const std::vector<batch::JobResult>& results,
                         double wall_s, int ranks, const std::vector<int>& dead_ranks, const std::string& verify) {
  std::string entries;
  for (const batch::JobResult& r : results) {
    const batch::Job& j = jobs[r.job];
    entries += fmt::format(
        "{}\n    {{\"name\": {}, \"status\": {}, \"reason\": {}, \"worker\": {}, \"out\": {}, \"verified\": {}, "
        "\"traces_ms\": {}, \"staging_ms\": {}, \"upload_ms\": {}, \"device_ms\": {}, \"download_ms\": {}, "
        "\"verify_ms\": {}, \"encode_ms\": {}, \"write_ms\": {}, \"prove_ms\": {}, \"total_ms\": {}, "
        "\"device_bytes\": {}, \"attempts\": {}, \"history\": {}, \"at_ms\": {{\"dealt\": {}, \"traces\": {}, "
        "\"started\": {}, \"finished\": {}, \"checked\": {}}}}}",
        entries.empty() ? "" : ",", json_string(j.name),
        json_string(r.skipped ? "skipped"
                    : r.ok    ? "ok"
                    : r.lost  ? "lost"
                              : "failed"),
        json_string(r.reason), json_string(r.worker), json_string(j.out), r.verified ? "true" : "false",
        json_number(r.traces_ms), json_number(r.staging_ms), json_number(r.upload_ms), json_number(r.device_ms),
        json_number(r.download_ms), json_number(r.verify_ms), json_number(r.encode_ms), json_number(r.write_ms),
        json_number(r.prove_ms), json_number(r.total_ms), r.device_bytes, r.attempts, json_string(r.history),
        json_number(r.at.dealt), json_number(r.at.traces), json_number(r.at.started), json_number(r.at.finished),
        json_number(r.at.checked));
  }
  const auto ok = std::count_if(results.begin(), results.end(), [](const auto& r) { return r.ok; });
  const auto lost = std::count_if(results.begin(), results.end(), [](const auto& r) { return r.lost; });
  const auto skipped = std::count_if(results.begin(), results.end(), [](const auto& r) { return r.skipped; });
  std::string dead;
  for (int d : dead_ranks) dead += fmt::format("{}{}", dead.empty() ? "" : ", ", d);
  return fmt::format(
      "{{\"jobs\": {}, \"ok\": {}, \"skipped\": {}, \"failed\": {}, \"lost\": {}, \"wall_s\": {}, \"proofs_per_s\": "
      "{}, \"ranks\": {}, "
      "\"dead_ranks\": [{}], \"verify\": {}, \"stages\": {}, \"results\": [{}\n]}}\n",
      results.size(), ok, skipped, results.size() - ok - lost, lost, json_number(wall_s),
      json_number(wall_s > 0 ? double(ok - skipped) / wall_s : 0), ranks, dead, json_string(verify),
      batch::to_json(batch::stage_times(results)), entries);
}

// The command line, parsed and checked.
struct BatchArgs {
  std::string manifest, traces, out_dir, executor, devices, params_name, summary_file;
  uint32_t log_stacked = 0, in_flight = 0, traces_ahead = 0, memory_percent = 0, rank_timeout = 0;
  bool cpu_worker = false, quiet = false, check_traces = false, resume = false;
  batch::VerifyPolicy verify;
};

// Parses the options (exits on a bad command line, status 2).
BatchArgs parse_batch_args(int argc, char** argv) {
  Options options("vkstark prove-batch",
                  "  Proves many jobs: the lines of a manifest (--manifest; see docs/batch.md) or one job per trace\n"
                  "  file of a folder (--traces, with --out-dir). Every job's proof is verified and written where the\n"
                  "  job says. Workers: one per Vulkan GPU (--devices), optionally the CPU (--cpu-worker), each with\n"
                  "  up to --in-flight proofs on its device within its memory. Under mpirun (a VKSTARK_MPI=ON build)\n"
                  "  the jobs are dealt out over every rank; each rank takes its share of its machine's GPUs.\n"
                  "  Exit status 0 when every job succeeded, 1 when one failed or was lost, 2 for a bad command\n"
                  "  line or manifest.");
  BatchArgs a;
  std::string verify_text;
  options.input("--manifest", a.manifest, "the jobs, one per line (docs/batch.md)");
  options.text("--traces", "DIR", a.traces, "one job per *.vkt trace file of DIR (vkstark trace writes them)");
  options.text("--out-dir", "DIR", a.out_dir, "with --traces: where the proofs go (<name>.vkp)");
  executor_option(options, a.executor);
  options.text("--devices", "all|LIST", a.devices,
               "the Vulkan devices to use: all (the default; $VKSTARK_VULKAN_DEVICE when set) or indices and name "
               "substrings, comma-separated");
  options.flag("--cpu-worker", a.cpu_worker, "the CPU executor proves too, as one more worker");
  options.flag("--check-traces", a.check_traces,
               "check trace files' constraints on the host before proving: a failure names the constraint and "
               "the row (host time: seconds for a keccakf trace of 2^15 rows)");
  options.number<uint32_t>("--in-flight", "N", a.in_flight, 2, {1, 64}, "proofs in flight per worker");
  options.number<uint32_t>("--traces-ahead", "N", a.traces_ahead, 1, {0, 64},
                           "jobs a worker takes beyond its proofs in flight, their traces made meanwhile (more where "
                           "traces come slower than proofs, e.g. trace files on a slow disk)");
  options.text("--verify", "all|none|sample N", verify_text,
               "which proofs are verified on the host before they are written: all (the default), none, or N of "
               "the batch spread evenly (off the devices' path either way; the summary gives its cost)");
  options.number<uint32_t>("--memory-percent", "P", a.memory_percent, 85, {1, 100},
                           "the share of a device's memory its proofs in flight may take together");
  options.choice("--params", a.params_name, {"secure", "test"}, "secure",
                 "jobs' default params: secure = app_params_with_100_bits_security(--log-stacked-height); test: "
                 "small, fast, NOT secure");
  options.number<uint32_t>("--log-stacked-height", "H", a.log_stacked, 21, {8, kMaxLogStackedHeight},
                           "jobs' default log2 stacked height (secure params)");
  options.number<uint32_t>("--rank-timeout", "S", a.rank_timeout, 60, {1, 86400},
                           "MPI: a rank silent this many seconds is taken for dead (its jobs in flight are lost)");
  options.flag("--resume", a.resume,
               "skip the jobs whose proof file is there already, complete, newer than the job's input files, "
               "under the job's verifying key and verifying (checked on the host first); prove the rest");
  options.output("--summary", a.summary_file, "write the batch's summary as JSON (rank 0)");
  options.flag("--quiet", a.quiet, "no line per job (the summary is printed still)");
  options.parse_or_exit(argc - 1, argv + 1);
  if (a.manifest.empty() == a.traces.empty()) options.fail("give one of --manifest FILE and --traces DIR");
  if (!a.traces.empty() && a.out_dir.empty()) options.fail("--traces needs --out-dir DIR");
  if (a.traces.empty() && !a.out_dir.empty()) options.fail("--out-dir goes with --traces");
  try {
    a.verify = batch::VerifyPolicy::parse(verify_text.empty() ? "all" : verify_text);
  } catch (const InputError& e) {
    options.fail(e.what());
  }
  return a;
}

// The batch's ranks: one process, or every rank of mpirun (a VKSTARK_MPI=ON build).
struct Ranks {
  int rank = 0, size = 1;
  uint32_t local_rank = 0, local_size = 1;
#ifdef VKSTARK_HAVE_MPI
  std::optional<batch::MpiSession> mpi;
#endif
  bool under_mpi() const {
#ifdef VKSTARK_HAVE_MPI
    return mpi.has_value();
#else
    return false;
#endif
  }
  // Rank 0's text on every rank (collective under MPI; the text itself in one process).
  std::string broadcast(const std::string& text_on_rank0) const {
#ifdef VKSTARK_HAVE_MPI
    if (mpi) return mpi->broadcast(text_on_rank0);
#endif
    return text_on_rank0;
  }
};

// Joins mpirun's ranks where it started this process. False (with a message) where it did, but
// this build has no MPI: every rank would prove every job.
bool start_ranks(int argc, char** argv, Ranks& r) {
#ifdef VKSTARK_HAVE_MPI
  if (launched_by_mpi()) {
    r.mpi.emplace(argc, argv);
    r.rank = r.mpi->rank();
    r.size = r.mpi->size();
    r.local_rank = uint32_t(r.mpi->local_rank());
    r.local_size = uint32_t(r.mpi->local_size());
  }
  return true;
#else
  (void)argc;
  (void)argv;
  (void)r;
  const char* world = std::getenv("OMPI_COMM_WORLD_SIZE");
  if (world && std::string_view(world) != "1") {
    fmt::print(stderr,
               "vkstark prove-batch: started by mpirun, but this build has no MPI (configure with -DVKSTARK_MPI=ON): "
               "every rank would prove every job\n");
    return false;
  }
  return true;
#endif
}

// The batch's jobs: of the trace folder, or of the manifest (rank 0 reads it; the others take its
// text). InputError for a manifest that cannot be read or parsed.
std::vector<batch::Job> read_jobs(const BatchArgs& a, const Ranks& r) {
  batch::Job defaults;
  defaults.params = a.params_name;
  defaults.log_stacked = a.log_stacked;
  if (!a.traces.empty()) return batch::trace_folder_jobs(a.traces, a.out_dir, defaults);
  std::string text, error;
  if (r.rank == 0) {
    try {
      text = batch::read_manifest_text(a.manifest);
    } catch (const InputError& e) {
      error = e.what();
    }
  }
  if (r.under_mpi()) {  // "M" + the text, or "E" + why rank 0 could not read it
    const std::string shared = r.broadcast(r.rank == 0 ? (error.empty() ? "M" + text : "E" + error) : "");
    if (shared.empty() || shared[0] != 'M') throw InputError(shared.empty() ? "no manifest" : shared.substr(1));
    text = shared.substr(1);
  }
  if (!error.empty()) throw InputError(error);
  return batch::parse_manifest(text, a.manifest, batch::manifest_folder(a.manifest), defaults);
}

// --resume: '1' for each job whose proof is there already and verifies against it (rank 0 checks;
// every rank takes its list), else '0'.
std::string resumed_jobs(const std::vector<batch::Job>& jobs, const BatchArgs& a, const Ranks& r) {
  std::string skip(jobs.size(), '0');
  if (!a.resume) return skip;
  if (r.rank == 0) {
    const auto t = Clock::now();
    const std::vector<std::string> why = batch::resume_checks(jobs);
    uint64_t n = 0;
    for (size_t i = 0; i < jobs.size(); ++i)
      if (why[i].empty()) {
        skip[i] = '1';
        ++n;
      }
    fmt::print(stderr,
               "vkstark prove-batch: --resume: {} of {} job(s) have their proof already (checked in {:.2f} s)\n", n,
               jobs.size(), std::chrono::duration<double>(Clock::now() - t).count());
    if (!a.quiet)
      for (size_t i = 0; i < jobs.size(); ++i)
        if (!why[i].empty() && std::filesystem::exists(jobs[i].out))
          fmt::print(stderr, "  {}: proved again: {}\n", jobs[i].name, why[i]);
  }
  return r.broadcast(skip);
}

// This rank's workers (its share of the machine's GPUs, and the CPU with --cpu-worker), listed on stderr.
std::vector<batch::Worker> make_workers(const BatchArgs& a, const Ranks& r, std::vector<NamedExecutor>& executors,
                                        size_t jobs) {
  const std::string expanded_devices =
      a.devices.empty() && !std::getenv("VKSTARK_VULKAN_DEVICE") ? std::string("all") : a.devices;
  executors = make_executors(a.executor, expanded_devices, a.cpu_worker, r.local_rank, r.local_size);
  std::vector<batch::Worker> workers;
  for (NamedExecutor& e : executors)
    workers.push_back({r.size > 1 ? fmt::format("rank {} {}", r.rank, e.label) : e.label, e.executor.get(), nullptr});
  std::string list;
  for (const batch::Worker& w : workers) list += fmt::format("{}{}", list.empty() ? "" : ", ", w.label);
  fmt::print(stderr, "vkstark prove-batch: {}{} job(s); worker(s): {}\n",
             r.size > 1 ? fmt::format("rank {} of {}: ", r.rank, r.size) : "", jobs, list);
  return workers;
}

// The collector (rank 0): writes each proof, prints a line per job. A full disk stops the dealing:
// the jobs not yet dealt are reported as not run, not proved for nothing.
class Collector {
 public:
  Collector(const std::vector<batch::Job>& work, bool quiet) : work_(work), quiet_(quiet) {}
  void stop_dealing_with(batch::LocalSource* source) { source_ = source; }

  void operator()(batch::JobResult& r) {
    const batch::Job& job = work_.at(r.job);
    if (r.ok) write(job, r);
    ++reported_;
    if (quiet_) return;
    if (r.ok)
      fmt::print("[{}/{}] {}: ok on {}: proved in {:.1f} ms ({:.1f} ms in all){}, {} -> {}{}\n", reported_,
                 work_.size(), job.name, r.worker, r.prove_ms, r.total_ms,
                 r.verified ? "" : ", not verified (--verify)", r.file.size(), job.out,
                 r.history.empty() ? "" : fmt::format(" (after: {})", r.history));
    else
      fmt::print("[{}/{}] {}: {}{}: {}{}\n", reported_, work_.size(), job.name, r.lost ? "LOST" : "FAILED",
                 r.worker.empty() ? "" : " on " + r.worker, r.reason,
                 r.history.empty() ? "" : fmt::format(" (before: {})", r.history));
    std::fflush(stdout);
  }

 private:
  void write(const batch::Job& job, batch::JobResult& r) {
    const auto w0 = Clock::now();
    try {
      write_proof(job.out, r.file);
    } catch (const WriteError& e) {
      r.ok = false;
      r.reason = e.what();
      if ((e.error() == ENOSPC || e.error() == EDQUOT) && source_)
        source_->stop(fmt::format("the disk is full: {}", e.what()));
    } catch (const std::exception& e) {
      r.ok = false;
      r.reason = e.what();
    }
    r.write_ms = ms_since(w0);
  }

  const std::vector<batch::Job>& work_;
  const bool quiet_;
  uint64_t reported_ = 0;
  batch::LocalSource* source_ = nullptr;
};

// What the batch's proving gave: each proved job's result (indices into the jobs proved), and the
// ranks taken for dead.
struct BatchOutcome {
  std::vector<batch::JobResult> results;
  std::vector<int> dead_ranks;
};

// Proves `work` on this rank's workers: over every rank under MPI, else here. Under MPI, a rank
// other than 0 returns nothing to report.
BatchOutcome prove_jobs(const std::vector<batch::Job>& work, Ranks& r, const std::vector<batch::Worker>& workers,
                        const batch::WorkerOptions& worker_options, const BatchArgs& a, Collector& collector) {
  BatchOutcome out;
  auto on_result = [&](batch::JobResult& result) { collector(result); };
#ifdef VKSTARK_HAVE_MPI
  if (r.mpi) {
    batch::MpiBatchOptions mpi_options;
    mpi_options.rank_timeout_s = a.rank_timeout;
    batch::MpiBatchOutcome outcome = batch::run_mpi_batch(
        *r.mpi, work.size(),
        [&](batch::JobSource& source) { batch::run_workers(work, source, workers, worker_options); }, on_result,
        mpi_options);
    out.results = std::move(outcome.results);
    out.dead_ranks = std::move(outcome.dead_ranks);
    if (!out.dead_ranks.empty()) r.mpi->abandon();
    return out;
  }
#else
  (void)r;
  (void)a;
#endif
  batch::LocalSource source(work.size(), on_result);
  collector.stop_dealing_with(&source);
  batch::run_workers(work, source, workers, worker_options);
  out.results = source.results();
  collector.stop_dealing_with(nullptr);
  return out;
}

// Every job's result in the batch's order: the proved jobs' (`to_prove`: their indices into jobs),
// and those --resume skipped.
std::vector<batch::JobResult> all_results(std::vector<batch::JobResult> proved, const std::vector<uint64_t>& to_prove,
                                          const std::string& skip) {
  std::vector<batch::JobResult> all(skip.size());
  for (batch::JobResult& r : proved) {
    r.job = to_prove.at(r.job);
    all[r.job] = std::move(r);
  }
  for (uint64_t i = 0; i < skip.size(); ++i)
    if (skip[i] == '1') {
      all[i].job = i;
      all[i].ok = all[i].skipped = all[i].verified = true;
      all[i].history = "resumed: its proof was there and verifies";
    }
  return all;
}

// Prints the batch's summary (counts, workers, stage times, each failure); the number of jobs ok.
uint64_t print_summary(const std::vector<batch::Job>& jobs, const std::vector<batch::JobResult>& results,
                       const std::vector<int>& dead_ranks, double wall_s, int ranks,
                       const batch::VerifyPolicy& verify) {
  uint64_t ok = 0, failed = 0, lost = 0, skipped = 0;
  std::map<std::string, uint64_t> per_worker;
  for (const batch::JobResult& r : results) {
    if (r.skipped) {
      ++ok;
      ++skipped;
    } else if (r.ok) {
      ++ok;
      ++per_worker[r.worker];
    } else if (r.lost) {
      ++lost;
    } else {
      ++failed;
    }
  }
  fmt::print("prove-batch: {} of {} job(s) proved{}, {} failed, {} lost, in {:.2f} s ({:.2f} proofs/s) on {} rank(s)\n",
             ok, results.size(), skipped ? fmt::format(" ({} of them earlier: --resume)", skipped) : "", failed, lost,
             wall_s, wall_s > 0 ? double(ok - skipped) / wall_s : 0.0, ranks);
  for (const auto& [worker, n] : per_worker) fmt::print("  {}: {} proof(s)\n", worker, n);
  if (ok > skipped) {
    const batch::StageTimes stages = batch::stage_times(results);
    fmt::print("  per proof (median): {}; on its device start to finish {:.1f} ms\n", batch::describe(stages),
               stages.prove_median);
    fmt::print("  host verification (--verify {}): {} proof(s), {:.2f} s of host time in all\n", verify.describe(),
               stages.verified, stages.total[batch::StageTimes::kVerify] / 1000);
  }
  for (const batch::JobResult& r : results) {
    if (!r.ok)
      fmt::print("  {} {}: {}{}\n", r.lost ? "lost" : "failed", jobs.at(r.job).name, r.reason,
                 r.history.empty() ? "" : fmt::format(" (before: {})", r.history));
    else if (!r.history.empty() && !r.skipped)
      fmt::print("  proved {} after a fault: {}\n", jobs.at(r.job).name, r.history);
  }
  for (int d : dead_ranks) fmt::print("  rank {} died\n", d);
  return ok;
}

// Writes the summary JSON; false (with a message) where it could not be written. A summary of an
// earlier batch that stood at that path is then removed, so that no stale result reads as this
// batch's.
bool write_summary(const std::string& path, const std::string& json) {
  try {
    replace_file(path, json);
    return true;
  } catch (const std::runtime_error& e) {  // a full disk, /dev/full
    std::error_code ec;
    const bool stale = std::filesystem::is_regular_file(path, ec) && std::filesystem::remove(path, ec);
    fmt::print(stderr, "vkstark prove-batch: the summary was not written: {}{}\n", e.what(),
               stale ? fmt::format(" (the earlier summary at '{}' is removed)", path) : "");
    return false;
  }
}

}  // namespace

int prove_batch_command(int argc, char** argv) {
  const BatchArgs a = parse_batch_args(argc, argv);
  Ranks ranks;
  if (!start_ranks(argc, argv, ranks)) return kExitUsage;
  const int rank = ranks.rank;
  std::vector<batch::Job> jobs;
  try {
    jobs = read_jobs(a, ranks);
  } catch (const InputError& e) {
    if (rank == 0)
      fmt::print(stderr,
                 "vkstark prove-batch: {}\n(the manifest's format: docs/batch.md; the options: vkstark prove-batch "
                 "--help)\n",
                 e.what());
    return kExitUsage;
  }

  // Every output's folder and path, before any proof: rank 0 (the collector, which writes them)
  // checks, and every rank stops with it.
  const std::string problems = ranks.broadcast(rank == 0 ? unwritable_outputs(jobs, a.summary_file) : std::string());
  if (!problems.empty()) {
    if (rank == 0)
      fmt::print(stderr, "vkstark prove-batch: the proofs cannot be written where the jobs say:{}\n", problems);
    return kExitUsage;
  }

  const std::string skip = resumed_jobs(jobs, a, ranks);
  std::vector<uint64_t> to_prove;  // the jobs proved: indices into jobs
  std::vector<batch::Job> work;
  for (uint64_t i = 0; i < jobs.size(); ++i)
    if (skip[i] == '0') {
      to_prove.push_back(i);
      work.push_back(jobs[i]);
    }
  std::vector<NamedExecutor> executors;
  const std::vector<batch::Worker> workers = make_workers(a, ranks, executors, work.size());
  batch::WorkerOptions worker_options;
  worker_options.max_in_flight = a.in_flight;
  worker_options.traces_ahead = a.traces_ahead;
  worker_options.check_trace_files = a.check_traces;
  worker_options.memory_fraction = a.memory_percent / 100.0;
  worker_options.verify = a.verify;

  const auto t0 = Clock::now();
  Collector collector(work, a.quiet);
  BatchOutcome outcome = prove_jobs(work, ranks, workers, worker_options, a, collector);
  if (ranks.under_mpi() && rank != 0) return 0;
  const std::vector<batch::JobResult> results = all_results(std::move(outcome.results), to_prove, skip);
  const double wall_s = std::chrono::duration<double>(Clock::now() - t0).count();
  // The batch's exit status. Where a rank was taken for dead, every rank is then ended (its process
  // may be frozen, not gone, and would keep mpirun waiting, then wake to a finished batch).
  auto finish = [&](int status) {
#ifdef VKSTARK_HAVE_MPI
    if (ranks.mpi && !outcome.dead_ranks.empty()) ranks.mpi->abort(status);
#endif
    return status;
  };
  const uint64_t ok = print_summary(jobs, results, outcome.dead_ranks, wall_s, ranks.size, a.verify);
  if (!a.summary_file.empty() && !write_summary(a.summary_file, summary_json(jobs, results, wall_s, ranks.size,
                                                                             outcome.dead_ranks, a.verify.describe())))
    return finish(kExitFailed);
  return finish(ok == results.size() ? 0 : kExitFailed);
}

}  // namespace vkstark::cli
