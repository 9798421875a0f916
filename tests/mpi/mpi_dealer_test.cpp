// The MPI dealer (cli/batch_mpi.hpp), run under mpiexec by CTest (tests/mpi/CMakeLists.txt). It
// specifies: every job gets exactly one result at rank 0, with the bytes its worker made; a job's
// failure arrives with its reason; on_result may turn a result into a failure; jobs are dealt to
// the workers of every rank; a batch of no jobs ends at once, and the batch after it keeps its own
// messages; rank 0 alone deals to itself; an exception from a rank's workers fails its jobs in
// flight and comes back from run_mpi_batch on that rank; with no worker left anywhere, the jobs
// not dealt fail. With --expect-dead (and VKSTARK_FAULT_KILL_RANK in the environment): the killed
// rank's jobs in flight come back lost, every other job is proved, every live rank ends and
// abandons MPI_Finalize. Error-guessing: the result codec refuses every truncation, trailing
// bytes, bad lengths, flags and versions.
//
// Fake workers: --workers threads per rank; a job sleeps --job-ms plus 0..9 ms and "proves" a file
// whose bytes depend on its index (job 5's is 2 MiB, the size of a large proof). Rank 0 prints
// "mpi_dealer_test: PASS" when every check held on it; any rank prints "FAIL" lines otherwise.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/batch_mpi.hpp"

namespace {

using namespace vkstark::batch;

struct Args {
  uint64_t jobs = 40;
  int workers = 2;
  int64_t fail_job = -1;        // this job's worker reports a failure
  int64_t unwritten_job = -1;   // on_result turns this job into a failure
  int expect_dead = -1;         // the rank VKSTARK_FAULT_KILL_RANK kills
  int rank0_workers = -1;       // rank 0's workers, when not --workers
  int throw_rank = -1;          // on this rank, run_workers throws: worker 0 with its first job in flight,
  bool throw_at_start = false;  // or before any worker starts
  bool every_rank = false;      // expect every rank to run jobs
  int job_ms = 2;               // a job takes job_ms + 0..9 ms
  double heartbeat_s = 0.2;
  double timeout_s = 3;
};

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    const size_t eq = arg.find('=');
    if (!arg.starts_with("--") || eq == std::string_view::npos) throw std::invalid_argument(std::string(arg));
    const std::string_view key = arg.substr(2, eq - 2);
    const std::string value(arg.substr(eq + 1));
    if (key == "jobs")
      a.jobs = std::stoull(value);
    else if (key == "workers")
      a.workers = std::stoi(value);
    else if (key == "fail-job")
      a.fail_job = std::stoll(value);
    else if (key == "unwritten-job")
      a.unwritten_job = std::stoll(value);
    else if (key == "rank0-workers")
      a.rank0_workers = std::stoi(value);
    else if (key == "throw-rank")
      a.throw_rank = std::stoi(value);
    else if (key == "throw-at-start")
      a.throw_at_start = value == "1";
    else if (key == "job-ms")
      a.job_ms = std::stoi(value);
    else if (key == "every-rank")
      a.every_rank = value == "1";
    else if (key == "expect-dead")
      a.expect_dead = std::stoi(value);
    else if (key == "heartbeat")
      a.heartbeat_s = std::stod(value);
    else if (key == "timeout")
      a.timeout_s = std::stod(value);
    else
      throw std::invalid_argument(std::string(arg));
  }
  return a;
}

std::vector<uint8_t> proof_bytes(uint64_t job) {
  const size_t size = job == 5 ? size_t(2) << 20 : size_t((job * 7919) % 150'000 + 1);
  std::vector<uint8_t> bytes(size);
  for (size_t i = 0; i < size; ++i) bytes[i] = uint8_t((i * 31 + job * 17) ^ (i >> 9));
  return bytes;
}

class Checks {
 public:
  explicit Checks(int rank) : rank_(rank) {}
  void expect(bool ok, const std::string& what) {
    if (ok) return;
    ++failures_;
    std::printf("mpi_dealer_test: rank %d FAIL: %s\n", rank_, what.c_str());
    std::fflush(stdout);
  }
  int failures() const { return failures_; }

 private:
  int rank_;
  int failures_ = 0;
};

void check_codec(Checks& c) {
  JobResult r;
  r.job = 0x0102030405060708;
  r.ok = true;
  r.reason = "a reason";
  r.worker = "rank 1 vulkan 0 (NVIDIA H100 80GB HBM3)";
  r.verified = true;
  r.traces_ms = 28.25;
  r.staging_ms = 1.5;
  r.upload_ms = 10.25;
  r.device_ms = 37.125;
  r.download_ms = 0.5;
  r.encode_ms = 0.75;
  r.write_ms = 2.5;
  r.prove_ms = 1234.5;
  r.verify_ms = 34.75;
  r.total_ms = -0.0;
  r.device_bytes = uint64_t(80) << 30;
  r.at = {.dealt = 0.125, .traces = 6.5, .started = 7.25, .finished = 41.0, .checked = 49.875};
  r.file = proof_bytes(3);
  const std::vector<uint8_t> wire = detail::encode_result(r);
  c.expect(detail::decode_result(wire) == r, "codec: a result comes back as it went");
  const auto refused = [](std::span<const uint8_t> bytes) {
    try {
      (void)detail::decode_result(bytes);
      return false;
    } catch (const std::runtime_error&) {
      return true;
    }
  };
  bool all_truncations_refused = true;
  for (size_t n = 0; n < wire.size(); n += n < 200 ? 1 : 997)
    all_truncations_refused = all_truncations_refused && refused(std::span(wire).first(n));
  c.expect(all_truncations_refused, "codec: every truncated result is refused");
  std::vector<uint8_t> longer = wire;
  longer.push_back(0);
  c.expect(refused(longer), "codec: a byte after the end is refused");
  std::vector<uint8_t> huge_length = wire;
  // version, job, ok, lost and verified, ten timings, five timeline points, device bytes: then the
  // reason's length (top byte).
  huge_length[4 + 8 + 3 + 15 * 8 + 8 + 7] = 0x7f;
  c.expect(refused(huge_length), "codec: a length past the message is refused");
  std::vector<uint8_t> bad_flag = wire;
  bad_flag[4 + 8] = 2;
  c.expect(refused(bad_flag), "codec: a flag other than 0 or 1 is refused");
  std::vector<uint8_t> bad_version = wire;
  bad_version[0] = 9;
  c.expect(refused(bad_version), "codec: an unknown version is refused");
}

std::string device_lost(int rank) { return fmt::format("device lost on rank {}", rank); }

// The fake workers of one rank; the first exception of a worker thread is rethrown once all ended.
void run_fake_workers(JobSource& source, const Args& args, int rank) {
  if (rank == args.throw_rank && args.throw_at_start) throw std::runtime_error(device_lost(rank));
  std::mutex mutex;
  std::exception_ptr error;
  std::vector<std::thread> threads;
  const int workers = rank == 0 && args.rank0_workers >= 0 ? args.rank0_workers : args.workers;
  for (int w = 0; w < workers; ++w) {
    threads.emplace_back([&, w] {
      try {
        while (std::optional<uint64_t> job = source.next()) {
          if (rank == args.throw_rank && w == 0) throw std::runtime_error(device_lost(rank));
          std::this_thread::sleep_for(std::chrono::milliseconds(args.job_ms + 3 * (*job % 4)));
          JobResult r;
          r.job = *job;
          r.worker = fmt::format("rank {} worker {}", rank, w);
          r.prove_ms = double(*job);
          if (int64_t(*job) == args.fail_job) {
            r.reason = fmt::format("job {} failed on purpose", *job);
          } else {
            r.ok = true;
            r.file = proof_bytes(*job);
            r.device_bytes = *job * 1000;
          }
          source.done(std::move(r));
        }
      } catch (...) {
        std::lock_guard lock(mutex);
        if (!error) error = std::current_exception();
      }
    });
  }
  for (std::thread& t : threads) t.join();
  if (error) std::rethrow_exception(error);
}

int rank_of(const std::string& worker) {
  int r = -1;
  std::sscanf(worker.c_str(), "rank %d", &r);
  return r;
}

void check_batch(Checks& c, const MpiSession& mpi, const Args& args, const MpiBatchOutcome& outcome,
                 const std::map<uint64_t, int>& on_result_calls, const std::set<uint64_t>& bytes_matched) {
  const std::vector<int> expected_dead = args.expect_dead > 0 ? std::vector<int>{args.expect_dead} : std::vector<int>{};
  c.expect(
      outcome.dead_ranks == expected_dead,
      fmt::format("dead ranks {} (expected {})", fmt::join(outcome.dead_ranks, ","), fmt::join(expected_dead, ",")));
  c.expect(mpi.abandoned() == !expected_dead.empty(), "the session is abandoned exactly when a rank died");
  if (mpi.rank() != 0) {
    c.expect(outcome.results.empty(), "ranks other than 0 get no results");
    return;
  }
  c.expect(outcome.results.size() == args.jobs,
           fmt::format("{} results for {} jobs", outcome.results.size(), args.jobs));
  if (outcome.results.size() != args.jobs) return;
  std::map<int, int> ranks_used;  // rank: jobs proved or failed there
  std::vector<uint64_t> lost_jobs;
  std::vector<uint64_t> stopped_jobs;  // in flight when the workers of --throw-rank stopped
  for (uint64_t j = 0; j < args.jobs; ++j) {
    const JobResult& r = outcome.results[j];
    const auto calls = on_result_calls.find(j);
    c.expect(calls != on_result_calls.end() && calls->second == 1, fmt::format("job {}: on_result called once", j));
    c.expect(r.job == j, fmt::format("result {} is job {}", j, r.job));
    c.expect(r.file.empty(), fmt::format("job {}: the file cleared by on_result stays cleared", j));
    if (r.lost) {
      lost_jobs.push_back(j);
      c.expect(!r.ok && r.reason.starts_with(fmt::format("lost with rank {} (no word from it for ", args.expect_dead)),
               fmt::format("job {}: lost with its rank, reason '{}'", j, r.reason));
      continue;
    }
    if (args.throw_rank >= 0 &&
        r.reason == fmt::format("the workers of rank {} stopped: {}", args.throw_rank, device_lost(args.throw_rank))) {
      stopped_jobs.push_back(j);
      continue;
    }
    if (args.throw_at_start && args.rank0_workers == 0) {
      c.expect(!r.ok && r.reason == "not run: no rank had a worker left", fmt::format("job {}: not run", j));
      continue;
    }
    ++ranks_used[rank_of(r.worker)];
    if (int64_t(j) == args.fail_job) {
      c.expect(!r.ok && r.reason == fmt::format("job {} failed on purpose", j),
               fmt::format("job {}: its failure arrives with its reason, got '{}'", j, r.reason));
    } else if (int64_t(j) == args.unwritten_job) {
      c.expect(!r.ok && r.reason == "could not write the proof", fmt::format("job {}: on_result's failure kept", j));
    } else {
      c.expect(r.ok && r.reason.empty(), fmt::format("job {}: ok (worker '{}', reason '{}')", j, r.worker, r.reason));
      c.expect(bytes_matched.contains(j), fmt::format("job {}: its proof's bytes arrived intact", j));
      c.expect(r.device_bytes == j * 1000 && r.prove_ms == double(j), fmt::format("job {}: its numbers arrived", j));
    }
  }
  if (args.expect_dead > 0) c.expect(!lost_jobs.empty(), "at least one job lost with the killed rank");
  if (args.expect_dead <= 0) c.expect(lost_jobs.empty(), "no job lost");
  const size_t stopped = args.throw_rank >= 0 && !args.throw_at_start ? 1 : 0;
  c.expect(stopped_jobs.size() == stopped,
           fmt::format("{} job(s) failed as the workers stopped, expected {}", stopped_jobs.size(), stopped));
  if (mpi.size() > 1 && args.jobs >= 8 && args.throw_rank < 0)
    c.expect(ranks_used.size() > 1, fmt::format("jobs went to {} rank(s)", ranks_used.size()));
  if (args.every_rank)
    c.expect(ranks_used.size() == size_t(mpi.size()),
             fmt::format("jobs went to {} rank(s) of {}", ranks_used.size(), mpi.size()));
  std::printf("%s", fmt::format("mpi_dealer_test: {} jobs, rank: jobs run {{{}}}, lost: {{{}}}\n", args.jobs,
                                fmt::join(ranks_used, ","), fmt::join(lost_jobs, ","))
                        .c_str());
}

int run(int argc, char** argv) {
  MpiSession mpi(argc, argv);
  const Args args = parse(argc, argv);
  Checks c(mpi.rank());
  c.expect(mpi.size() >= 1 && mpi.rank() >= 0 && mpi.rank() < mpi.size(), "rank within size");
  c.expect(mpi.local_size() >= 1 && mpi.local_size() <= mpi.size() && mpi.local_rank() < mpi.local_size(),
           "local rank within local size");
  if (mpi.rank() == 0) check_codec(c);

  const std::string manifest = "# jobs\nkeccak-1 air=keccakf permutations=1024 seed=1 out=proofs/keccak-1.vkp\n";
  c.expect(mpi.broadcast(mpi.rank() == 0 ? manifest : "not this") == manifest, "broadcast gives rank 0's text");
  c.expect(mpi.broadcast("").empty(), "broadcast of an empty text");

  MpiBatchOptions options;
  options.heartbeat_s = args.heartbeat_s;
  options.rank_timeout_s = args.timeout_s;

  // A batch of no jobs: every worker is told no more at once, on every rank. The last rank's
  // workers linger, so that the others start the next batch while rank 0 still waits for it.
  if (args.expect_dead <= 0 && args.throw_rank < 0) {
    int calls = 0;
    const MpiBatchOutcome empty = run_mpi_batch(
        mpi, 0,
        [&](JobSource& s) {
          run_fake_workers(s, args, mpi.rank());
          if (mpi.rank() == mpi.size() - 1) std::this_thread::sleep_for(std::chrono::milliseconds(300));
        },
        [&](JobResult&) { ++calls; }, options);
    c.expect(empty.results.empty() && empty.dead_ranks.empty() && calls == 0, "a batch of no jobs");
  }

  std::map<uint64_t, int> on_result_calls;
  std::set<uint64_t> bytes_matched;
  std::string error;
  MpiBatchOutcome outcome;
  try {
    outcome = run_mpi_batch(
        mpi, args.jobs, [&](JobSource& s) { run_fake_workers(s, args, mpi.rank()); },
        [&](JobResult& r) {
          ++on_result_calls[r.job];
          if (r.ok && r.file == proof_bytes(r.job)) bytes_matched.insert(r.job);
          r.file.clear();
          if (int64_t(r.job) == args.unwritten_job) {
            r.ok = false;
            r.reason = "could not write the proof";
          }
        },
        options);
  } catch (const std::runtime_error& e) {
    error = e.what();
  }
  // The workers' exception comes back once the batch is over, on their rank only.
  const std::string expected_error = mpi.rank() == args.throw_rank ? device_lost(mpi.rank()) : "";
  c.expect(error == expected_error, fmt::format("run_mpi_batch threw '{}', expected '{}'", error, expected_error));
  if (error.empty()) check_batch(c, mpi, args, outcome, on_result_calls, bytes_matched);

  if (mpi.rank() == 0 && c.failures() == 0) std::printf("mpi_dealer_test: PASS\n");
  std::fflush(stdout);
  return c.failures() == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  alarm(90);  // whatever happens, no rank outlives the test (CTest's timeout is 120 s)
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::printf("mpi_dealer_test: FAIL: %s\n", e.what());
    std::fflush(stdout);
    return 1;
  }
}
