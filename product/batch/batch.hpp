// Proof batches (issue 12): many independent proofs dealt out to workers, one worker per executor
// (every local Vulkan GPU, optionally the CPU), each keeping several proofs in flight within its
// device's memory. Over many machines, cli/batch_mpi.hpp deals the same jobs to MPI ranks.
//
//   std::vector<batch::Job> jobs = batch::read_manifest("jobs.txt", defaults);
//   batch::LocalSource source(jobs.size());
//   batch::run_workers(jobs, source, workers, options);   // returns when every job is done
//   for (const batch::JobResult& r : source.results()) ...
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <iterator>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "product/batch/manifest.hpp"
#include "runtime/executor.hpp"
#include "stages/air/input.hpp"
#include "stages/air/verifying_key.hpp"
#include "stages/common/params.hpp"
#include "stages/prover.hpp"

namespace vkstark::batch {

// What became of one job.
struct JobResult {
  uint64_t job = 0;       // index into the batch's jobs
  bool ok = false;        // proved, verified (and, where the result is collected, written)
  bool lost = false;      // never reported: its rank died with it in flight
  std::string reason;     // why it failed or was lost (empty when ok)
  std::string worker;     // who ran it: "rank 1 vulkan 0 (NVIDIA H100 80GB HBM3)"
  bool verified = false;  // verified on the host (WorkerOptions::verify)
  // Where its time went, in milliseconds: the stages of the batch summary, in order.
  double traces_ms = 0;       // the traces made (a shipped AIR's) or read (a trace file), in upload memory
  double staging_ms = 0;      // the traces copied into staging memory as the proof starts (0: read in place)
  double upload_ms = 0;       // the device copying the traces in (its timestamps; 0 where not measured)
  double device_ms = 0;       // the proof's run on the device (its timestamps, first to last)
  double download_ms = 0;     // the proof read back
  double verify_ms = 0;       // verifying the proof on the host (0 when not verified)
  double encode_ms = 0;       // the proof and its proof file encoded
  double write_ms = 0;        // the proof file written (by the collector: LocalSource's on_result)
  double prove_ms = 0;        // start to finish of the proof on its device (traces uploaded, proof downloaded)
  double total_ms = 0;        // the job from being dealt to its result (traces, keygen, prepare, prove, verify)
  uint64_t device_bytes = 0;  // the proof's device memory, from its plan
  // When each step ended, in milliseconds since its worker's run_workers began (one rank's clock):
  // dealt to the worker, traces made, proof started on the device (start() returned), proof back
  // (finish() returned), verified and encoded. With these a batch's timeline shows where a device
  // waited: the next proof started after the one before it came back.
  struct Timeline {
    double dealt = 0, traces = 0, started = 0, finished = 0, checked = 0;
    bool operator==(const Timeline&) const = default;
  } at;
  uint32_t attempts = 0;      // times it was tried (1: once; more after a fault, "Faults" in docs/batch.md)
  std::string history;        // what befell it before its result, "; "-separated (empty: nothing)
  bool skipped = false;       // prove-batch --resume: its proof was there already and verified against it
  std::vector<uint8_t> file;  // the proof file's bytes (ok only): the collector writes them to the job's out
  bool operator==(const JobResult&) const = default;
};

// The stages of a batch's proofs (JobResult's, over the results that are ok; verify over the
// verified ones): medians and sums in milliseconds, for the summary of prove-batch and batch_bench.
struct StageTimes {
  static constexpr const char* kNames[] = {"traces",   "staging", "upload", "device",
                                           "download", "verify",  "encode", "write"};
  static constexpr size_t kCount = std::size(kNames);
  static constexpr size_t kVerify = 5;  // kNames[kVerify]: over the verified proofs only
  static_assert(std::string_view(kNames[kVerify]) == "verify");
  uint64_t proofs = 0, verified = 0;
  double median[kCount] = {};
  double total[kCount] = {};
  double prove_median = 0;  // start to finish on the device
};
StageTimes stage_times(const std::vector<JobResult>& results);
// "traces 5.1 | staging 0.0 | upload 9.9 | device 40.2 | download 0.3 | verify 8.8 (12 of 12) | encode
// 0.4 | write 1.1 ms"
std::string describe(const StageTimes& s);
// {"traces": {"median_ms": .., "total_ms": ..}, ..., "proofs": n, "verified": n, "prove_median_ms": ..}
std::string to_json(const StageTimes& s);

// Where workers get their jobs and leave their results. Thread-safe: every worker thread calls it.
class JobSource {
 public:
  virtual ~JobSource() = default;
  // The next job for a worker (an index into the batch's jobs), blocking until one is dealt;
  // nullopt when there are no more.
  virtual std::optional<uint64_t> next() = 0;
  // The result of a job next() gave out.
  virtual void done(JobResult result) = 0;
};

// Hands out jobs 0..count-1 in order to the workers of this process and keeps their results.
class LocalSource final : public JobSource {
 public:
  // on_result: called for each result as it comes (under a lock, from the worker's thread): the
  // caller writes the proof file there (and may turn ok into a failure), then the file bytes are
  // dropped.
  explicit LocalSource(uint64_t count, std::function<void(JobResult&)> on_result = {});
  std::optional<uint64_t> next() override;
  void done(JobResult result) override;
  // One per job, by index (a job never reported: ok false, reason "not run").
  std::vector<JobResult> results() const;
  // No more jobs dealt (e.g. the disk is full): next() gives none, and the jobs never dealt are
  // reported with `reason`. May be called from on_result.
  void stop(std::string reason);

 private:
  const uint64_t count_;
  mutable std::mutex stop_mutex_;
  std::atomic<bool> stopped_{false};
  std::string stop_reason_;
  std::atomic<uint64_t> next_{0};
  std::function<void(JobResult&)> on_result_;
  mutable std::mutex mutex_;
  std::vector<std::optional<JobResult>> results_;
};

// A job's computation: the AIRs with their traces (AIR-index order, all present) and a line saying
// what is proved. InputError naming the file and the field for a trace file that cannot be read or
// does not fit its AIR (the message does not repeat the job's name).
struct JobAirs {
  std::vector<std::optional<AirWithTraces>> airs;  // AIR-index order; nullopt: absent (vk jobs only)
  std::string statement;                           // "1024 Keccak-f permutations (seed 1)"
  // A vk job's (AIRs given as data): its verifying key and every AIR of it, data-built (DagAir).
  std::shared_ptr<const MultiStarkVerifyingKey> vk{};
  std::vector<std::shared_ptr<const Air>> key_airs{};
};
// Memory for a trace of that many cells (e.g. from a pool of Executor::host_memory, which uploads
// read in place); empty: the heap.
using TraceAllocator = std::function<TraceValues(uint64_t cells)>;
// The traces are made (a shipped AIR's large trace: keccakf) or read (a trace file, a proving input)
// straight into memory from `allocate`; a vk job's key is read and its AIRs built from it (InputError
// naming the file, the AIR and the field when the input does not fit the key). `check_trace_file`:
// a trace file's or proving input's constraints (and an input's buses) are checked on the host
// first: InputError naming the constraint and the row that fail, instead of a proof that does not
// verify.
JobAirs make_job_airs(const Job& job, const TraceAllocator& allocate = {}, bool check_trace_file = false);
// The job's system params (secure: app_params_with_100_bits_security(log_stacked); test: small,
// NOT secure), validated.
SystemParams job_params(const Job& job);

// prove-batch --resume: for each job, "" when the proof file at its `out` is there, complete and the
// job's, so that the job is skipped; else why it is proved ("no proof at 'x' yet"). The job's: it
// decodes; its verifying key is the one the job proves under (a vk job's key file; else keygen of the
// job's AIRs, the proof file's AIR names, under the job's params); it verifies; and it is newer than
// the job's input files (a trace, key or input file changed after the proof was written makes it
// stale). Jobs checked in parallel on the host (a verification is ~20 ms for keccakf).
std::vector<std::string> resume_checks(const std::vector<Job>& jobs);

// Which proofs of a batch are verified on the host before they are reported (and written).
struct VerifyPolicy {
  enum class Mode { All, Sample, None } mode = Mode::All;
  uint64_t sample = 0;  // Sample: this many jobs of the batch, spread evenly by index (the first always)
  // Whether job `job` of `jobs` is verified.
  bool wants(uint64_t job, uint64_t jobs) const;
  // "all" | "none" | "sample N" (N >= 1): InputError naming what is wrong otherwise.
  static VerifyPolicy parse(std::string_view text);
  std::string describe() const;  // as parse() takes it
};

struct WorkerOptions {
  uint32_t max_in_flight = 2;  // proofs a worker keeps in flight on its device
  // Jobs a worker takes beyond its proofs in flight, their traces made meanwhile (on other threads)
  // so that a job is ready when a proof finishes. More help where traces come slower than proofs
  // (trace files on a slow disk); each holds its trace's memory, and jobs taken early can leave one
  // worker with the batch's last proofs while the others are idle.
  uint32_t traces_ahead = 1;
  double memory_fraction = 0.85;   // of ExecutorLimits::device_memory_bytes the worker's plans may take
  uint64_t memory_bytes = 0;       // a budget in bytes instead (0: from memory_fraction)
  PlanOptions plan;                // fuse = false: the unfused baseline
  bool check_trace_files = false;  // make_job_airs's check_trace_file
  VerifyPolicy verify;             // every proof verified by default
  // Traces made (or read) in the executor's upload memory (Executor::host_memory), which the device
  // copies from in place; false: in ordinary memory (reused all the same), copied into staging
  // memory as each proof starts: the design before issue 27, for measurements.
  bool upload_memory = true;
  // Where the openings' sponge runs (ProverOptions::openings_sponge; unset: VKSTARK_OPENINGS_SPONGE
  // when set, else the prover's default, the host). On the host it is a task inside the proof's
  // submission, which the Vulkan executor runs on a thread of the run's own, so that the worker's
  // pipeline stays full (one H200, 8 proofs per batch: 29.1 proofs/s, against 24.8 with the sponge
  // on the device; docs/decisions.md, "A batch's proofs").
  std::optional<OpeningsSponge> openings_sponge{};
};

// A worker's keys (per AIR set and params) and idle prepared proofs (per shape).
class WorkerCache;
std::shared_ptr<WorkerCache> make_worker_cache();

// Waits for the kernels the cache's provers compile in the background (a prover's first proofs may
// evaluate round 0 on the interpreter meanwhile: ProverOptions::round0_kernels) and drops its idle
// prepared proofs, so that the proofs planned next use what was compiled. For benchmarks, between a
// warm-up batch and the measured ones.
void settle(WorkerCache& cache);

struct Worker {
  std::string label;             // "vulkan 1 (NVIDIA H100 80GB HBM3)"; results carry it
  Executor* executor = nullptr;  // used by this worker's thread only while run_workers runs
  // Kept across run_workers calls when given (e.g. a benchmark's rounds, which then time proving
  // only); else made for the call. A cache belongs to one executor.
  std::shared_ptr<WorkerCache> cache;
};

// Runs one thread per worker until the source runs dry. A worker takes jobs up to max_in_flight
// ahead of its proofs in flight and makes their traces on other threads meanwhile; on its own
// thread it gets each job's key (kept per AIR set and params) and prepared proof (kept per shape,
// reused by later jobs of that shape), starts the proof when it has room (fewer than max_in_flight
// in flight), and finishes the oldest; the finished proof is verified and encoded as a proof file on
// another thread while the worker starts the next. Memory: a proof's device memory is known from its
// plan before any is allocated; the prepared proofs a worker holds never take more than its budget
// together (idle ones are dropped first, then it waits for proofs in flight; a job that does not fit
// the budget alone fails, naming both sizes). Any job's failure (bad traces, a proof that does not
// verify, a device error) is reported with its reason and the worker goes on. The source's done()
// is called from the worker's and the checking threads.
void run_workers(const std::vector<Job>& jobs, JobSource& source, const std::vector<Worker>& workers,
                 const WorkerOptions& options);

}  // namespace vkstark::batch
