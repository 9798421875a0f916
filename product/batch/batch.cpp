#include "product/batch/batch.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <bit>
#include <charconv>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <filesystem>
#include <future>
#include <map>
#include <thread>

#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "executors/executors.hpp"
#include "product/airs/fibonacci.hpp"
#include "product/airs/interactions.hpp"
#include "product/airs/keccak.hpp"
#include "product/airs/shipped.hpp"
#include "product/airs/test_airs.hpp"
#include "product/proof_file.hpp"
#include "product/proving_input.hpp"
#include "product/trace_file.hpp"
#include "runtime/clock.hpp"
#include "runtime/error.hpp"
#include "runtime/fault.hpp"
#include "runtime/file.hpp"
#include "runtime/json.hpp"
#include "runtime/log.hpp"
#include "runtime/trace.hpp"
#include "stages/air/debug_check.hpp"
#include "stages/air/eval.hpp"
#include "stages/air/keygen.hpp"
#include "stages/encoding/codec.hpp"
#include "stages/proof/proof.hpp"
#include "stages/prover.hpp"
#include "stages/verifier.hpp"

namespace vkstark::batch {

// ---------------------------------------------------------------------------------------------
// LocalSource

LocalSource::LocalSource(uint64_t count, std::function<void(JobResult&)> on_result)
    : count_(count), on_result_(std::move(on_result)), results_(count) {}

void LocalSource::stop(std::string reason) {
  std::lock_guard lock(stop_mutex_);  // not mutex_: on_result, which done() calls under it, may stop
  if (stopped_) return;
  stop_reason_ = std::move(reason);
  stopped_ = true;
}

std::optional<uint64_t> LocalSource::next() {
  if (stopped_) return std::nullopt;
  const uint64_t j = next_.fetch_add(1);
  if (j >= count_) return std::nullopt;
  return j;
}

void LocalSource::done(JobResult result) {
  std::lock_guard lock(mutex_);
  if (result.job >= count_) throw InputError(fmt::format("batch: a result for job {} of {}", result.job, count_));
  if (on_result_) on_result_(result);
  result.file.clear();
  results_[result.job] = std::move(result);
}

std::vector<JobResult> LocalSource::results() const {
  std::lock_guard lock(mutex_);
  std::vector<JobResult> out;
  for (uint64_t j = 0; j < count_; ++j) {
    if (results_[j]) {
      out.push_back(*results_[j]);
    } else {
      JobResult r;
      r.job = j;
      std::lock_guard stop_lock(stop_mutex_);
      r.reason = stopped_ ? "not run: " + stop_reason_ : "not run";
      out.push_back(std::move(r));
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Jobs

namespace {

// A vk job: the key, the input read into `allocate`'s memory, the AIRs built from the key.
JobAirs vk_job_airs(const Job& job, const TraceAllocator& allocate, bool check_constraints) {
  JobAirs out;
  try {
    out.vk = std::make_shared<const MultiStarkVerifyingKey>(read_vk_file(job.vk_file));
  } catch (const DecodeError& e) {
    throw InputError(e.what());
  }
  DataJob data;
  try {
    data = prover_job(*out.vk, read_proving_input(job.input_file, allocate));
    if (check_constraints) {
      std::vector<std::optional<TraceMatrix>> preprocessed(data.airs.size());
      std::vector<SymbolicAir> symbolic;
      symbolic.reserve(data.airs.size());
      std::vector<DebugAirInput> inputs;
      for (size_t a = 0; a < data.airs.size(); ++a) {
        if (!data.traces[a]) continue;
        symbolic.push_back(symbolic_air(*data.airs[a]));
        inputs.push_back({.air = &symbolic.back(),
                          .parts = data.traces[a]->row_view_part_refs(preprocessed[a]),
                          .public_values = data.traces[a]->public_values});
      }
      debug_check(inputs).throw_if_failed();
    }
  } catch (const InputError& e) {
    throw InputError(fmt::format("{}: {}", job.input_file, e.what()));
  }
  size_t present = 0;
  for (const auto& t : data.traces) present += t.has_value();
  out.statement = fmt::format("{} of {} AIRs given as data, from {}", present, data.traces.size(), job.input_file);
  out.airs = std::move(data.traces);
  out.key_airs = std::move(data.airs);
  return out;
}

}  // namespace

JobAirs make_job_airs(const Job& job, const TraceAllocator& allocate, bool check_trace_file) {
  JobAirs out;
  if (!job.vk_file.empty()) return vk_job_airs(job, allocate, check_trace_file);
  if (!job.trace_file.empty()) {
    TraceFile file;
    try {
      file = read_trace_file(job.trace_file, allocate);  // the values straight into `allocate`'s memory
    } catch (const DecodeError& e) {
      throw InputError(fmt::format("{}: {}", job.trace_file, e.what()));
    }
    const uint32_t rows = file.main.height;
    const std::string air = file.air;
    try {
      AirWithTraces t = trace_file_air(std::move(file));
      // Checked before it is proved (when asked: it costs host time): a violated constraint is named
      // (which constraint, which row) rather than found as a proof that does not verify.
      if (check_trace_file) debug_check(std::span<const AirWithTraces>(&t, 1)).throw_if_failed();
      out.airs.emplace_back(std::move(t));
    } catch (const InputError& e) {
      throw InputError(fmt::format("{}: {}", job.trace_file, e.what()));
    }
    out.statement = fmt::format("{} trace of {} rows from {}", air, rows, job.trace_file);
  } else if (job.air == "keccakf") {
    TraceMatrix storage;  // keccak_trace writes every cell of it
    if (allocate) storage.values = allocate(uint64_t(KeccakCols::kWidth) * keccak_trace_height(job.size));
    for (AirWithTraces& t : keccak_fixture(job.size, job.seed, std::move(storage))) out.airs.emplace_back(std::move(t));
    out.statement = fmt::format("{} Keccak-f permutations (seed {})", job.size, job.seed);
  } else if (job.air == "fibonacci") {
    if (!std::has_single_bit(job.size) || job.size < 4)
      throw InputError(fmt::format("rows={}: not a power of two >= 4", job.size));
    const FibonacciTrace fib = fibonacci_trace(Fp(), Fp::one(), job.size);
    AirWithTraces t;
    t.air = shipped_airs("fibonacci")[0];
    t.common = fib.main;
    t.public_values = fib.public_values;
    out.statement = fmt::format("Fibonacci from (0, 1): {} rows reach {}", job.size, fib.public_values[2].value());
    out.airs.emplace_back(std::move(t));
  } else if (job.air == "interactions") {
    if (!std::has_single_bit(job.size) || job.size < 2)
      throw InputError(fmt::format("rows={}: not a power of two >= 2", job.size));
    const std::vector<std::shared_ptr<const Air>> airs = shipped_airs("interactions");
    InteractionsTraces t = interactions_traces(airs[0], airs[1], job.size);
    out.statement = fmt::format("{} numbers below 2^16 summing to {} (a byte table on a bus)", job.size,
                                t.program.public_values[0].value());
    out.airs.emplace_back(std::move(t.program));
    out.airs.emplace_back(std::move(t.table));
  } else {
    throw InputError(fmt::format("unknown AIR '{}' (expected keccakf, fibonacci or interactions)", job.air));
  }
  return out;
}

namespace {

// The job's input files' latest modification: a proof older than it is stale.
std::filesystem::file_time_type newest_input(const Job& job) {
  std::filesystem::file_time_type newest = std::filesystem::file_time_type::min();
  for (const std::string* f : {&job.trace_file, &job.vk_file, &job.input_file}) {
    std::error_code ec;
    if (f->empty()) continue;
    const auto t = std::filesystem::last_write_time(*f, ec);
    newest = ec ? std::filesystem::file_time_type::max() : std::max(newest, t);  // unreadable: never skip
  }
  return newest;
}

}  // namespace

std::vector<std::string> resume_checks(const std::vector<Job>& jobs) {
  std::vector<std::string> why(jobs.size());
  std::unique_ptr<Executor> cpu;  // for keygen (no preprocessed traces to commit but a vk job's, which has its key)
  std::mutex keys_mutex;
  std::map<std::string, Digest> keys;  // pre-hash per params and AIR names
  tbb::parallel_for(size_t(0), jobs.size(), [&](size_t i) {
    const Job& job = jobs[i];
    std::error_code ec;
    if (!std::filesystem::exists(job.out, ec)) {
      why[i] = fmt::format("no proof at '{}' yet", job.out);
      return;
    }
    try {
      const std::string_view starts[] = {kProofFileMagic};
      ReadFile read = read_whole_file(job.out, uint64_t(1) << 30, starts, "vkstark proof file");
      if (!read.error.empty()) {
        why[i] = read.error;
        return;
      }
      const auto written = std::filesystem::last_write_time(job.out, ec);
      if (ec || written < newest_input(job)) {
        why[i] = fmt::format("'{}' is older than the job's input files", job.out);
        return;
      }
      const ProofFile file = decode_proof_file(read.bytes);
      Digest expected{};
      if (!job.vk_file.empty()) {
        expected = read_vk_file(job.vk_file).pre_hash;
      } else {
        std::string id = fmt::format("{}/{}", job.params, job.log_stacked);
        for (const std::string& n : file.air_names) id += "/" + n;
        std::lock_guard lock(keys_mutex);
        if (auto it = keys.find(id); it != keys.end()) {
          expected = it->second;
        } else {
          const std::vector<std::shared_ptr<const Air>> airs =
              job.trace_file.empty() ? shipped_airs(job.air)
                                     : std::vector<std::shared_ptr<const Air>>{shipped_air_named(file.air_names.at(0))};
          for (const auto& a : airs)
            if (!a) throw InputError("an AIR of the proof file is none this build knows");
          if (!cpu) cpu = make_executor("cpu");
          expected = keys[id] = keygen(airs, job_params(job), *cpu).vk.pre_hash;
        }
      }
      if (file.vk.pre_hash != expected) {
        why[i] = fmt::format("'{}' is a proof under another verifying key than the job's", job.out);
        return;
      }
      const VerifyResult verdict = verify_bytes(file.vk, file.proof);
      if (!verdict.ok) why[i] = fmt::format("'{}' does not verify ({})", job.out, verdict.reason);
    } catch (const std::exception& e) {
      why[i] = fmt::format("'{}': {}", job.out, e.what());
    }
  });
  return why;
}

bool VerifyPolicy::wants(uint64_t job, uint64_t jobs) const {
  switch (mode) {
    case Mode::All:
      return true;
    case Mode::None:
      return false;
    case Mode::Sample: {
      if (sample == 0) return false;
      const uint64_t stride = std::max<uint64_t>(1, (jobs + sample - 1) / sample);
      return job % stride == 0;
    }
  }
  return true;
}

VerifyPolicy VerifyPolicy::parse(std::string_view text) {
  VerifyPolicy p;
  if (text == "all") return p;
  if (text == "none") {
    p.mode = Mode::None;
    return p;
  }
  constexpr std::string_view kSample = "sample ";
  if (text.starts_with(kSample)) {
    const std::string_view n = text.substr(kSample.size());
    uint64_t v = 0;
    const auto [end, ec] = std::from_chars(n.data(), n.data() + n.size(), v);
    if (ec == std::errc() && end == n.data() + n.size() && v >= 1) {
      p.mode = Mode::Sample;
      p.sample = v;
      return p;
    }
  }
  throw InputError(fmt::format("--verify '{}': expected all, none or sample N (N >= 1 proofs of the batch)", text));
}

std::string VerifyPolicy::describe() const {
  switch (mode) {
    case Mode::All:
      return "all";
    case Mode::None:
      return "none";
    case Mode::Sample:
      return fmt::format("sample {}", sample);
  }
  return "all";
}

namespace {
double median_of(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}
}  // namespace

StageTimes stage_times(const std::vector<JobResult>& results) {
  StageTimes s;
  std::vector<double> ms[StageTimes::kCount], prove;
  for (const JobResult& r : results) {
    if (!r.ok || r.skipped) continue;  // a skipped job (--resume) was not proved by this batch
    ++s.proofs;
    const double v[StageTimes::kCount] = {r.traces_ms,   r.staging_ms, r.upload_ms, r.device_ms,
                                          r.download_ms, r.verify_ms,  r.encode_ms, r.write_ms};
    for (size_t i = 0; i < StageTimes::kCount; ++i) {
      if (i == StageTimes::kVerify && !r.verified) continue;
      ms[i].push_back(v[i]);
      s.total[i] += v[i];
    }
    s.verified += r.verified ? 1 : 0;
    prove.push_back(r.prove_ms);
  }
  for (size_t i = 0; i < StageTimes::kCount; ++i) s.median[i] = median_of(ms[i]);
  s.prove_median = median_of(prove);
  return s;
}

std::string describe(const StageTimes& s) {
  std::string out;
  for (size_t i = 0; i < StageTimes::kCount; ++i) {
    out += fmt::format("{}{} {:.1f}", i ? " | " : "", StageTimes::kNames[i], s.median[i]);
    if (i == StageTimes::kVerify) out += fmt::format(" ({} of {})", s.verified, s.proofs);
  }
  return out + " ms";
}

std::string to_json(const StageTimes& s) {
  std::string out = "{";
  for (size_t i = 0; i < StageTimes::kCount; ++i)
    out += fmt::format("\"{}\": {{\"median_ms\": {}, \"total_ms\": {}}}, ", StageTimes::kNames[i],
                       json_number(s.median[i]), json_number(s.total[i]));
  return out + fmt::format("\"proofs\": {}, \"verified\": {}, \"prove_median_ms\": {}}}", s.proofs, s.verified,
                           json_number(s.prove_median));
}

SystemParams job_params(const Job& job) {
  if (job.params != "secure" && job.params != "test")
    throw InputError(fmt::format("params '{}' (expected secure or test)", job.params));
  SystemParams p =
      job.params == "secure" ? app_params_with_100_bits_security(job.log_stacked) : test_system_params_small(2, 8, 3);
  p.validate();
  return p;
}

// ---------------------------------------------------------------------------------------------
// Workers

using Clock = std::chrono::steady_clock;

// The key and prover of one AIR set under one set of params, on one worker's executor.
struct KeyEntry {
  std::string id;  // the worker cache's key: params and AIR names, or the verifying key's pre-hash
  ProvingKey pk;
  std::vector<std::string> air_names;
  std::vector<uint8_t> file_head;  // proof_file_head: every proof file of the key starts with it
  std::unique_ptr<StarkProver> prover;
};

class WorkerCache {
 public:
  std::map<std::string, std::unique_ptr<KeyEntry>> keys;
  std::multimap<std::string, std::unique_ptr<StarkProver::Prepared>> idle;
  // Host memory the executor's uploads read in place (Executor::host_memory), of traces done with:
  // the next jobs' traces are made or read there.
  std::mutex memory_mutex;
  std::vector<std::shared_ptr<HostMemory>> memory;
};

std::shared_ptr<WorkerCache> make_worker_cache() { return std::make_shared<WorkerCache>(); }

void settle(WorkerCache& cache) {
  for (auto& [id, key] : cache.keys) key->prover->wait_for_kernels();
  cache.idle.clear();
}

namespace {

// A job as a worker takes it: the source's, or one handed back after a fault (docs/batch.md,
// "Faults").
struct Deal {
  uint64_t job = 0;
  uint32_t attempt = 1;       // 1: its first
  uint32_t devices_lost = 0;  // devices lost while it was on them
  bool alone = false;         // to be proved with nothing else in flight on its worker (it ran out of memory)
  bool reproved = false;      // proved again after a proof of it did not verify
  std::string avoid;          // a worker whose proof of it did not verify: another takes it where one can
  std::string history;        // what befell it, "; "-separated
};

// Deals the jobs of run_workers' workers: the source's, and those handed back after a fault (to any
// live worker but the one to avoid). Counts the jobs out (dealt, not yet done), so that a worker with
// nothing left waits while a job may still come back, and knows when none can. Thread-safe.
class Dealer {
 public:
  Dealer(JobSource& source, size_t workers) : source_(source), live_(workers) {}

  // The next job for `worker`: one handed back that it may take, else the source's next. Without
  // `wait`, nullopt at once when there is none; with it, nullopt only when no job is out any more.
  std::optional<Deal> take(const std::string& worker, bool wait) {
    std::unique_lock lock(mutex_);
    while (true) {
      for (auto it = back_.begin(); it != back_.end(); ++it)
        if (it->avoid != worker || live_ <= 1) {
          Deal d = std::move(*it);
          back_.erase(it);
          return d;
        }
      if (!dry_) {
        ++out_;
        lock.unlock();
        std::optional<uint64_t> j;
        try {
          j = source_.next();
        } catch (...) {
          abandon();
          throw;
        }
        lock.lock();
        if (j) {
          Deal d;
          d.job = *j;
          return d;
        }
        dry_ = true;
        --out_;
        cv_.notify_all();
        continue;
      }
      if (!wait || out_ == 0 || abandoned_) return std::nullopt;
      cv_.wait(lock);
    }
  }
  // A job's result, its last.
  void done(JobResult r) {
    source_.done(std::move(r));
    std::lock_guard lock(mutex_);
    --out_;
    cv_.notify_all();
  }
  // A job to be dealt again.
  void hand_back(Deal d) {
    std::lock_guard lock(mutex_);
    back_.push_back(std::move(d));
    cv_.notify_all();
  }
  // A worker takes no more jobs (its device is lost).
  void retire() {
    std::lock_guard lock(mutex_);
    --live_;
    cv_.notify_all();
  }
  // A worker stopped without accounting for its jobs (its source failed): no one waits any more.
  void abandon() {
    std::lock_guard lock(mutex_);
    abandoned_ = true;
    cv_.notify_all();
  }
  // The jobs handed back that no worker was left to take.
  std::deque<Deal> leftovers() {
    std::lock_guard lock(mutex_);
    return std::exchange(back_, {});
  }

 private:
  JobSource& source_;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<Deal> back_;
  uint64_t out_ = 0;
  size_t live_;
  bool dry_ = false, abandoned_ = false;
};

// A job's traces, made on the traces' threads: the milliseconds they took, and when they were done
// (since the worker's origin).
struct MadeAirs {
  JobAirs airs;
  double ms = 0, done = 0;
};

struct InFlight {
  Deal deal;
  std::string shape;  // the idle cache's key
  KeyEntry* key = nullptr;
  std::unique_ptr<StarkProver::Prepared> prepared;
  std::unique_ptr<Trace> trace;  // must stay put until finish()
  JobAirs airs;                  // the traces: the device copies them in place until finish()
  Clock::time_point dealt, started;
  double traces_ms = 0;
  JobResult::Timeline at;
};

JobResult failure(const Deal& deal, const std::string& worker, Clock::time_point dealt, std::string reason) {
  JobResult r;
  r.job = deal.job;
  r.worker = worker;
  r.reason = std::move(reason);
  r.attempts = deal.attempt;
  r.history = deal.history;
  r.total_ms = ms_since(dealt);
  return r;
}

void add_history(Deal& d, const std::string& event) { d.history += (d.history.empty() ? "" : "; ") + event; }

// The TBB arena of the workers' host work (traces, verification): at low priority, so that the
// copies into staging memory when a proof starts (the executor's, on the default arena) are not
// queued behind it; that start holds up the worker's device. One thread per worker short of the
// machine's: a worker's thread (the one that starts and finishes its proofs) then finds a core at
// once rather than a time slice later, when the host work fills every other.
int host_work_threads(size_t workers) {
  const int all = tbb::this_task_arena::max_concurrency();
  return std::max(1, all - int(workers));
}

class WorkerLoop {
 public:
  WorkerLoop(const std::vector<Job>& jobs, Dealer& dealer, const Worker& worker, const WorkerOptions& options,
             Clock::time_point origin, tbb::task_arena& host)
      : origin_(origin),
        host_(host),
        jobs_(jobs),
        dealer_(dealer),
        worker_(worker),
        options_(options),
        cache_(worker.cache ? worker.cache : make_worker_cache()),
        keys_(cache_->keys),
        idle_(cache_->idle) {
    const uint64_t device = worker.executor->limits().device_memory_bytes;
    budget_ = options.memory_bytes ? options.memory_bytes : uint64_t(double(device) * options.memory_fraction);
    budget_text_ = options.memory_bytes ? fmt::format("{} bytes", budget_)
                                        : fmt::format("{} bytes ({:.0f}% of the device's {} bytes)", budget_,
                                                      options.memory_fraction * 100, device);
  }

  // The pipeline of one worker: jobs taken up to traces_ahead beyond those in flight, their
  // traces made on other threads meanwhile (host work, parallel); on this thread (the executor's),
  // the proofs started in order as room frees, and finished oldest first; each finished proof then
  // verified and encoded on another thread, so that this one starts the next proof at once.
  void run() {
    const size_t in_flight = std::max<uint32_t>(options_.max_in_flight, 1);
    while (!retired_) {
      while (!alone_ && pending_.size() + in_flight_.size() < in_flight + options_.traces_ahead) {
        // With nothing of its own, the worker waits while a job may still be handed back.
        std::optional<Deal> d = dealer_.take(worker_.label, pending_.empty() && in_flight_.empty());
        if (!d) break;
        Pending p;
        p.deal = std::move(*d);
        p.dealt = Clock::now();
        // One job's traces after another's, in the order taken (traces_before_).
        auto done = std::make_shared<std::promise<void>>();
        std::shared_future<void> before = std::exchange(traces_before_, done->get_future().share());
        p.airs = std::async(std::launch::async, [this, j = p.deal.job, before, done] {
          struct Signal {  // the next job's traces may start, however these end
            std::promise<void>& done;
            ~Signal() { done.set_value(); }
          } signal{*done};
          if (before.valid()) before.wait();
          const Clock::time_point t0 = Clock::now();
          MadeAirs made;
          host_.execute([&] {
            made.airs = make_job_airs(
                jobs_.at(j), [this](uint64_t cells) { return trace_memory(cells); }, options_.check_trace_files);
          });
          made.ms = ms_since(t0);
          made.done = since_origin();
          return made;
        });
        const bool alone = p.deal.alone;
        pending_.push_back(std::move(p));
        if (alone) break;
      }
      while (!retired_ && !alone_ && !pending_.empty() && in_flight_.size() < in_flight) {
        Pending p = std::move(pending_.front());
        pending_.pop_front();
        start(p);
      }
      if (retired_ || (in_flight_.empty() && pending_.empty())) break;
      if (!in_flight_.empty()) finish_oldest();
    }
    for (std::future<void>& f : checks_) f.get();
  }

 private:
  struct Pending {
    Deal deal;
    Clock::time_point dealt;
    std::future<MadeAirs> airs;
  };

  // A job that ran out of memory: retried once alone on a worker (any), then reported.
  void out_of_memory(Deal deal, Clock::time_point dealt, const std::string& what) {
    if (deal.alone) {
      dealer_.done(failure(deal, worker_.label, dealt,
                           fmt::format("out of memory with nothing else in flight on {}: {}", worker_.label, what)));
      return;
    }
    add_history(deal, fmt::format("out of memory on {} ({}): retried alone", worker_.label, what));
    deal.alone = true;
    ++deal.attempt;
    dealer_.hand_back(std::move(deal));
  }

  // The device is lost: the worker takes no more jobs, and every job it holds (`current`, those in
  // flight, those whose traces are being made) goes back to be dealt to the other workers; a job that
  // was on two lost devices is reported instead.
  void retire(Deal* current, Clock::time_point dealt, const std::string& what) {
    auto move = [&](Deal d, Clock::time_point t) {
      ++d.devices_lost;
      if (d.devices_lost >= 2) {
        dealer_.done(failure(d, worker_.label, t,
                             fmt::format("the device was lost ({}) on {}, the second device lost with this job in "
                                         "flight: not tried again",
                                         what, worker_.label)));
        return;
      }
      add_history(d, fmt::format("device lost on {} ({}): moved", worker_.label, what));
      ++d.attempt;
      dealer_.hand_back(std::move(d));
    };
    if (!retired_) {
      retired_ = true;
      dealer_.retire();
      named_logger("vkstark.batch")
          .warn("{}: the device is lost ({}); it is retired and its jobs go to the other workers", worker_.label, what);
      for (InFlight& f : in_flight_) {
        try {
          (void)f.prepared->finish();  // whatever is still running on the device, waited for
        } catch (const std::exception&) {
        }
        move(std::move(f.deal), f.dealt);
      }
      in_flight_.clear();
      idle_.clear();
      for (Pending& p : pending_) {
        try {
          (void)p.airs.get();
        } catch (const std::exception&) {
        }
        move(std::move(p.deal), p.dealt);
      }
      pending_.clear();
      lost_what_ = what;
    }
    if (current) move(std::move(*current), dealt);
  }

  KeyEntry& key_for(const Job& job, const JobAirs& airs) {
    if (airs.vk) return data_key_for(airs);
    std::string id = fmt::format("{}/{}", job.params, job.log_stacked);
    for (const auto& a : airs.airs) id += "/" + a->air->name();
    auto it = keys_.find(id);
    if (it != keys_.end()) return *it->second;
    const SystemParams params = job_params(job);
    auto entry = std::make_unique<KeyEntry>();
    std::vector<std::shared_ptr<const Air>> list;
    for (const auto& a : airs.airs) {
      list.push_back(a->air);
      entry->air_names.push_back(a->air->name());
    }
    entry->pk = keygen(list, params, *worker_.executor);
    entry->prover = std::make_unique<StarkProver>(entry->pk, *worker_.executor, prover_options());
    entry->file_head = proof_file_head(entry->air_names, entry->pk.vk);
    entry->id = id;
    return *keys_.emplace(id, std::move(entry)).first->second;
  }

  // A vk job's key, by the verifying key's pre-hash and the AIR names: keygen of its data-built AIRs, which must give
  // that key (keygen_from_vk). A later job of that key must bring the key's preprocessed traces.
  KeyEntry& data_key_for(const JobAirs& airs) {
    std::string id = "vk/" + to_hex(airs.vk->pre_hash);
    for (const auto& a : airs.key_airs) id += "/" + a->name();  // the proof files' names
    auto it = keys_.find(id);
    if (it != keys_.end()) {
      const ProvingKey& pk = it->second->pk;
      for (size_t a = 0; a < airs.key_airs.size(); ++a)
        if (airs.key_airs[a]->preprocessed_trace() != pk.per_air[a].preprocessed_trace)
          throw InputError(fmt::format(
              "AIR {} ({}): its preprocessed trace is not the one the verifying key was made with (which an earlier "
              "input of this key gave)",
              a, airs.key_airs[a]->name()));
      return *it->second;
    }
    auto entry = std::make_unique<KeyEntry>();
    entry->pk = keygen_from_vk(*airs.vk, airs.key_airs, *worker_.executor);
    for (const auto& a : airs.key_airs) entry->air_names.push_back(a->name());
    entry->prover = std::make_unique<StarkProver>(entry->pk, *worker_.executor, prover_options());
    entry->file_head = proof_file_head(entry->air_names, entry->pk.vk);
    entry->id = id;
    return *keys_.emplace(id, std::move(entry)).first->second;
  }

  // Memory for a trace of `cells` cells that the executor's uploads read in place: an earlier job's
  // (the smallest that holds it), else new (Executor::host_memory; ordinary memory without
  // upload_memory). Called on the traces' threads.
  TraceValues trace_memory(uint64_t cells) {
    const uint64_t bytes = cells * sizeof(Fp);
    {
      std::lock_guard lock(cache_->memory_mutex);
      std::vector<std::shared_ptr<HostMemory>>& pool = cache_->memory;
      auto best = pool.end();
      for (auto it = pool.begin(); it != pool.end(); ++it)
        if ((*it)->size() >= bytes && (best == pool.end() || (*it)->size() < (*best)->size())) best = it;
      if (best != pool.end()) {
        std::shared_ptr<HostMemory> m = std::move(*best);
        pool.erase(best);
        return TraceValues(std::move(m), cells);
      }
    }
    return TraceValues(options_.upload_memory ? worker_.executor->host_memory(bytes) : anonymous_host_memory(bytes),
                       cells);
  }
  // A finished job's trace memory, for the next jobs (as many as a worker's jobs hold at once).
  void recycle(JobAirs&& airs) {
    std::lock_guard lock(cache_->memory_mutex);
    const size_t keep = size_t(std::max<uint32_t>(options_.max_in_flight, 1)) + options_.traces_ahead + 1;
    for (auto& a : airs.airs)
      if (a && a->common.values.memory() && cache_->memory.size() < keep)
        cache_->memory.push_back(a->common.values.memory());
    airs = {};
  }

  ProverOptions prover_options() const {
    ProverOptions o;
    o.openings_sponge = options_.openings_sponge;
    return o;
  }

  uint64_t held_bytes() const {
    uint64_t b = 0;
    for (const InFlight& f : in_flight_) b += f.prepared->device_bytes();
    for (const auto& [shape, p] : idle_) b += p->device_bytes();
    return b;
  }

  void start(Pending& p) {
    const Job& job = jobs_.at(p.deal.job);
    InFlight f;
    f.dealt = p.dealt;
    try {
      auto [airs, traces_ms, traces_done] = p.airs.get();
      if (p.deal.alone) {  // nothing else in flight, and no idle prepared proof holding memory
        while (!in_flight_.empty() && !retired_) finish_oldest();
        idle_.clear();
      }
      if (retired_) throw DeviceLost(lost_what_);
      if (fault_injected("oom", "job", p.deal.job, p.deal.attempt))
        throw OutOfDeviceMemory("out of device memory (injected: VKSTARK_FAULT)");
      f.traces_ms = traces_ms;
      f.at.dealt = ms_between(origin_, p.dealt);
      f.at.traces = traces_done;
      f.key = &key_for(job, airs);
      f.shape = f.key->id;
      for (const auto& a : airs.airs) f.shape += a ? fmt::format("/{}", a->common.height) : std::string("/-");
      if (auto it = idle_.find(f.shape); it != idle_.end()) {
        f.prepared = std::move(it->second);
        idle_.erase(it);
      } else {
        std::unique_ptr<StarkProver::Planned> planned = f.key->prover->plan(airs.airs, options_.plan);
        const uint64_t need = planned->device_bytes();
        if (need > budget_)
          throw InputError(
              fmt::format("the proof needs {} bytes of device memory; {} has {}", need, worker_.label, budget_text_));
        while (held_bytes() + need > budget_) {
          if (!idle_.empty()) {
            idle_.erase(idle_.begin());
          } else {
            finish_oldest();  // in flight: wait for the oldest (its prepared proof then goes idle)
            if (retired_) throw DeviceLost(lost_what_);
          }
        }
        f.prepared = f.key->prover->prepare(std::move(planned));
      }
      f.trace = std::make_unique<Trace>();
      f.started = Clock::now();
      f.prepared->start(airs.airs, f.trace.get());
      f.at.started = since_origin();
      f.airs = std::move(airs);  // the device copies the traces from their memory: kept until finish()
      f.deal = std::move(p.deal);
      alone_ = f.deal.alone;
      in_flight_.push_back(std::move(f));
    } catch (const DeviceLost& e) {
      retire(&p.deal, p.dealt, e.what());
    } catch (const OutOfDeviceMemory& e) {
      out_of_memory(std::move(p.deal), p.dealt, e.what());
    } catch (const std::bad_alloc&) {
      out_of_memory(std::move(p.deal), p.dealt, "out of host memory");
    } catch (const std::exception& e) {
      dealer_.done(failure(p.deal, worker_.label, p.dealt, e.what()));
    }
  }

  void finish_oldest() {
    InFlight f = std::move(in_flight_.front());
    in_flight_.pop_front();
    std::optional<Proof> proof;
    if (f.deal.alone) alone_ = false;
    try {
      proof = f.prepared->finish();
      if (fault_injected("device_lost", "job", f.deal.job, f.deal.attempt))
        throw DeviceLost("the proof's fence: VK_ERROR_DEVICE_LOST (injected: VKSTARK_FAULT)");
    } catch (const DeviceLost& e) {
      retire(&f.deal, f.dealt, e.what());
      return;
    } catch (const OutOfDeviceMemory& e) {
      out_of_memory(std::move(f.deal), f.dealt, e.what());  // the prepared proof is dropped: its state is unknown
      return;
    } catch (const std::exception& e) {
      dealer_.done(failure(f.deal, worker_.label, f.dealt, e.what()));
      return;
    }
    JobResult r;
    r.job = f.deal.job;
    r.worker = worker_.label;
    r.at = f.at;
    r.at.finished = since_origin();
    r.traces_ms = f.traces_ms;
    r.prove_ms = ms_since(f.started);
    r.staging_ms = f.trace->staging_ms;
    r.upload_ms = f.trace->upload_device_ms;
    if (!f.trace->spans.empty())  // the run: on the device where it has timestamps, else on the host (CPU)
      r.device_ms = f.trace->spans[0].device_ms >= 0 ? f.trace->spans[0].device_ms : f.trace->spans[0].host_ms;
    r.download_ms = f.trace->download_ms;
    r.device_bytes = f.prepared->device_bytes();
    idle_.emplace(f.shape, std::move(f.prepared));
    recycle(std::move(f.airs));
    // Verified (where the policy says) and encoded off this thread (host work only: the key outlives run()).
    const bool verify = options_.verify.wants(f.deal.job, jobs_.size());
    checks_.push_back(std::async(std::launch::async, [this, r = std::move(r), key = f.key, dealt = f.dealt, verify,
                                                      deal = std::move(f.deal), proof = std::move(*proof)]() mutable {
      try {
        Clock::time_point t0 = Clock::now();
        EncodedProofFile file = encode_proof_file(key->file_head, proof);
        if (fault_injected("invalid_proof", "job", deal.job, deal.attempt) && file.bytes.size() > file.proof_at)
          file.bytes[file.proof_at + file.proof().size() / 2] ^= 1;  // as a device's wrong result would
        r.encode_ms = ms_since(t0);
        VerifyResult verdict;
        verdict.ok = true;
        if (verify) {
          t0 = Clock::now();
          host_.execute([&] { verdict = verify_bytes(key->pk.vk, file.proof()); });
          r.verify_ms = ms_since(t0);
          r.verified = true;
        }
        if (!verdict.ok) {
          r.reason = fmt::format("the proof does not verify [{}]: {}", to_string(verdict.code), verdict.reason);
          if (!deal.reproved) {  // proved again, on another worker where there is one
            add_history(deal, fmt::format("{} on {}: proved again", r.reason, worker_.label));
            deal.reproved = true;
            deal.avoid = worker_.label;
            ++deal.attempt;
            dealer_.hand_back(std::move(deal));
            return;
          }
        } else {
          r.file = std::move(file.bytes);
          r.ok = true;
        }
        r.total_ms = ms_since(dealt);
        r.at.checked = since_origin();
      } catch (const std::exception& e) {
        r.ok = false;
        r.reason = e.what();
      }
      r.attempts = deal.attempt;
      r.history = std::move(deal.history);
      dealer_.done(std::move(r));
    }));
    // Reap the checks that are done, so that the list stays short.
    std::erase_if(checks_, [](std::future<void>& c) {
      if (c.wait_for(std::chrono::seconds(0)) != std::future_status::ready) return false;
      c.get();
      return true;
    });
  }

  double since_origin() const { return ms_between(origin_, Clock::now()); }

  const Clock::time_point origin_;  // JobResult::at's
  tbb::task_arena& host_;           // the workers' host work (host_work_threads)
  // The last job taken: its traces made (or failed). A worker's jobs' traces are made one after
  // another: its first proof then starts once its own traces are made, rather than once those of
  // every job it took at the start are, made side by side on the same threads (2 x H200, keccakf
  // 2^15: a worker's first proof started 24-33 ms into a batch, its traces alone take 5.6;
  // docs/decisions.md, "A batch's start").
  std::shared_future<void> traces_before_;
  const std::vector<Job>& jobs_;
  Dealer& dealer_;
  const Worker& worker_;
  const WorkerOptions& options_;
  uint64_t budget_ = 0;
  std::string budget_text_;
  std::shared_ptr<WorkerCache> cache_;
  std::map<std::string, std::unique_ptr<KeyEntry>>& keys_;
  std::multimap<std::string, std::unique_ptr<StarkProver::Prepared>>& idle_;
  std::deque<Pending> pending_;
  std::deque<InFlight> in_flight_;
  std::vector<std::future<void>> checks_;
  bool retired_ = false;  // its device is lost
  bool alone_ = false;    // a job in flight must be alone (it ran out of memory with others)
  std::string lost_what_;
};

}  // namespace

void run_workers(const std::vector<Job>& jobs, JobSource& source, const std::vector<Worker>& workers,
                 const WorkerOptions& options) {
  if (workers.empty()) throw InputError("batch: no workers");
  Dealer dealer(source, workers.size());
  const Clock::time_point origin = Clock::now();
  tbb::task_arena host(host_work_threads(workers.size()), 1, tbb::task_arena::priority::low);
  std::vector<std::thread> threads;
  std::mutex error_mutex;
  std::string fatal;
  for (const Worker& w : workers) {
    threads.emplace_back([&, &w = w] {
      try {
        WorkerLoop(jobs, dealer, w, options, origin, host).run();
      } catch (const std::exception& e) {
        // The source itself failed (e.g. MPI): nothing more this worker can report.
        dealer.abandon();
        std::lock_guard lock(error_mutex);
        if (fatal.empty()) fatal = fmt::format("{}: {}", w.label, e.what());
      }
    });
  }
  for (std::thread& t : threads) t.join();
  if (!fatal.empty()) throw ExecutionError(fmt::format("batch worker stopped: {}", fatal));
  // Jobs handed back when no worker was left (every device lost): reported, never dropped.
  const char* none_left = "no worker left to prove it: every worker's device was lost";
  for (const Deal& d : dealer.leftovers()) source.done(failure(d, "", Clock::now(), none_left));
  // And the jobs never dealt, where this process deals them all (an MPI source deals them to other ranks).
  if (dynamic_cast<LocalSource*>(&source))
    while (const std::optional<uint64_t> j = source.next()) {
      Deal d;
      d.job = *j;
      source.done(failure(d, "", Clock::now(), none_left));
    }
}

}  // namespace vkstark::batch
