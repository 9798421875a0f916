// The MPI dealer (batch_mpi.hpp). One thread per rank makes every MPI call: the "MPI thread", the
// caller's. It polls (MPI_Iprobe, then a short wait on the worker queue) and never blocks in MPI on
// a peer that may be dead: every send is an MPI_Isend tested later.
//
// Messages (tags), rank r != 0 to rank 0: kRequest (a worker of r asks for a job; empty), kResult
// (an encoded JobResult), kHeartbeat (empty), kRetired (r's workers have all ended; empty: when no
// rank has workers left, rank 0 fails the jobs not dealt), kFinishAck (empty; r's last message).
// Rank 0 to r: kDeal (a u64 job index, or kNoMore), kHeartbeat (empty), kFinish (the dead ranks as
// u32s; rank 0's last message to r). MPI keeps the order of the messages between two ranks, which
// the protocol uses: answers come in the order asked; kFinishAck comes after every result.
#include "cli/batch_mpi.hpp"

#include <mpi.h>

#include <algorithm>
#include <bit>
#include <charconv>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <exception>
#include <limits>
#include <mutex>
#include <optional>
#include <set>
#include <stdexcept>
#include <string_view>
#include <thread>
#include <utility>

#include <fmt/format.h>

namespace vkstark::batch {

namespace {

using Clock = std::chrono::steady_clock;

enum Tag : int { kRequest = 1, kDeal = 2, kResult = 3, kHeartbeat = 4, kRetired = 5, kFinish = 6, kFinishAck = 7 };
constexpr uint64_t kNoMore = std::numeric_limits<uint64_t>::max();
// How long the MPI thread waits for its workers between two polls of MPI: short enough for a
// request's round trip to stay well under a millisecond, long enough not to spin a core.
constexpr auto kPollInterval = std::chrono::microseconds(300);

void check(int rc, const char* call) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  if (MPI_Error_string(rc, text, &length) != MPI_SUCCESS) length = 0;
  throw std::runtime_error(fmt::format("{} failed: {} (MPI error {})", call, std::string_view(text, length), rc));
}

double seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }
Clock::duration duration(double s) {
  return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
}
// Several heartbeats per timeout, whatever the options say, so that one late heartbeat is no death.
Clock::duration heartbeat_period(const MpiBatchOptions& options) {
  return duration(std::min(options.heartbeat_s, options.rank_timeout_s / 4));
}

// ---- Byte codecs -------------------------------------------------------------------------------

class Writer {
 public:
  void u8(uint8_t v) { bytes_.push_back(v); }
  void u32(uint32_t v) {
    for (int i = 0; i < 4; ++i) bytes_.push_back(uint8_t(v >> (8 * i)));
  }
  void u64(uint64_t v) {
    for (int i = 0; i < 8; ++i) bytes_.push_back(uint8_t(v >> (8 * i)));
  }
  void f64(double v) { u64(std::bit_cast<uint64_t>(v)); }
  void bytes(std::span<const uint8_t> b) {
    u64(b.size());
    bytes_.insert(bytes_.end(), b.begin(), b.end());
  }
  void text(std::string_view s) { bytes({reinterpret_cast<const uint8_t*>(s.data()), s.size()}); }
  std::vector<uint8_t> take() { return std::move(bytes_); }

 private:
  std::vector<uint8_t> bytes_;
};

// Every read is checked against what is left of the message.
class Reader {
 public:
  Reader(std::span<const uint8_t> bytes, const char* what) : bytes_(bytes), what_(what) {}
  uint8_t u8() { return take(1)[0]; }
  uint32_t u32() {
    auto b = take(4);
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= uint32_t(b[i]) << (8 * i);
    return v;
  }
  uint64_t u64() {
    auto b = take(8);
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= uint64_t(b[i]) << (8 * i);
    return v;
  }
  double f64() { return std::bit_cast<double>(u64()); }
  std::span<const uint8_t> bytes() {
    const uint64_t n = u64();
    if (n > left()) fail(fmt::format("a length of {} with {} bytes left", n, left()));
    return take(size_t(n));
  }
  std::string text() {
    auto b = bytes();
    return {reinterpret_cast<const char*>(b.data()), b.size()};
  }
  bool flag() {
    const uint8_t v = u8();
    if (v > 1) fail(fmt::format("a flag of {}", v));
    return v == 1;
  }
  void finish() const {
    if (left() != 0) fail(fmt::format("{} bytes after its end", left()));
  }
  size_t left() const { return bytes_.size() - pos_; }
  [[noreturn]] void fail(const std::string& why) const {
    throw std::runtime_error(fmt::format("malformed {} message ({} bytes): {}", what_, bytes_.size(), why));
  }

 private:
  std::span<const uint8_t> take(size_t n) {
    if (n > left()) fail(fmt::format("{} bytes wanted at offset {}", n, pos_));
    auto b = bytes_.subspan(pos_, n);
    pos_ += n;
    return b;
  }
  std::span<const uint8_t> bytes_;
  size_t pos_ = 0;
  const char* what_;
};

constexpr uint32_t kResultVersion = 4;  // 2: traces_ms and verify_ms; 3: the stages, verified; 4: the timeline

std::vector<uint8_t> encode_u64(uint64_t v) {
  Writer w;
  w.u64(v);
  return w.take();
}

std::vector<uint8_t> encode_ranks(const std::vector<int>& ranks) {
  Writer w;
  for (int r : ranks) w.u32(uint32_t(r));
  return w.take();
}

// ---- Fault injection (test hook) -------------------------------------------------------------

struct FaultKill {
  int rank = -1;
  uint64_t nth = 0;
  int signal = SIGKILL;  // <rank>:<n>:stop: SIGSTOP, a rank frozen rather than dead
};

std::optional<FaultKill> fault_kill_from_env() {
  const char* env = std::getenv("VKSTARK_FAULT_KILL_RANK");
  if (env == nullptr || *env == '\0') return std::nullopt;
  std::string_view text(env);
  const auto bad = [&] {
    return std::runtime_error(
        fmt::format("VKSTARK_FAULT_KILL_RANK={}: expected <rank>:<n>[:stop], rank >= 1 and n >= 1", text));
  };
  FaultKill f;
  if (text.ends_with(":stop")) {
    f.signal = SIGSTOP;
    text.remove_suffix(5);
  }
  const size_t colon = text.find(':');
  if (colon == std::string_view::npos) throw bad();
  const auto r = std::from_chars(text.data(), text.data() + colon, f.rank);
  const auto n = std::from_chars(text.data() + colon + 1, text.data() + text.size(), f.nth);
  if (r.ec != std::errc() || r.ptr != text.data() + colon || n.ec != std::errc() ||
      n.ptr != text.data() + text.size() || f.rank < 1 || f.nth < 1)
    throw bad();
  return f;
}

// ---- The workers' side: a JobSource whose every call goes through the MPI thread ---------------

class FunnelSource final : public JobSource {
 public:
  std::optional<uint64_t> next() override {
    std::unique_lock lock(mutex_);
    if (no_more_) return std::nullopt;
    ++requests_;
    wake_mpi_thread();
    workers_cv_.wait(lock, [&] { return !answers_.empty() || no_more_; });
    if (answers_.empty()) return std::nullopt;
    const uint64_t job = answers_.front();
    answers_.pop_front();
    return job;
  }
  void done(JobResult result) override {
    std::lock_guard lock(mutex_);
    results_.push_back(std::move(result));
    wake_mpi_thread();
  }

  // The MPI thread's side.
  struct Events {
    uint64_t requests = 0;
    std::vector<JobResult> results;
    bool workers_finished = false;
  };
  // Waits up to `timeout` for something from the workers, then takes it.
  Events take(Clock::duration timeout) {
    std::unique_lock lock(mutex_);
    mpi_cv_.wait_for(lock, timeout, [&] { return pending(); });
    Events e;
    e.requests = std::exchange(requests_, 0);
    e.results = std::move(results_);
    results_.clear();
    e.workers_finished = workers_finished_ && !finish_taken_;
    if (e.workers_finished) finish_taken_ = true;
    return e;
  }
  void answer(uint64_t job) {
    std::lock_guard lock(mutex_);
    if (job == kNoMore) {
      no_more_ = true;
      workers_cv_.notify_all();
    } else if (!no_more_) {
      answers_.push_back(job);
      workers_cv_.notify_one();
    }
  }
  // No more jobs: the jobs answered but not taken yet are dropped (the MPI thread still counts
  // them in flight).
  void close() {
    std::lock_guard lock(mutex_);
    answers_.clear();
    no_more_ = true;
    workers_cv_.notify_all();
  }
  void set_workers_finished(std::exception_ptr error) {
    std::lock_guard lock(mutex_);
    workers_finished_ = true;
    error_ = std::move(error);
    mpi_cv_.notify_one();
  }
  std::exception_ptr error() {
    std::lock_guard lock(mutex_);
    return error_;
  }

 private:
  bool pending() const { return requests_ > 0 || !results_.empty() || (workers_finished_ && !finish_taken_); }
  void wake_mpi_thread() { mpi_cv_.notify_one(); }

  std::mutex mutex_;
  std::condition_variable workers_cv_;
  std::condition_variable mpi_cv_;
  uint64_t requests_ = 0;
  std::vector<JobResult> results_;
  std::deque<uint64_t> answers_;
  bool no_more_ = false;
  bool workers_finished_ = false;
  bool finish_taken_ = false;
  std::exception_ptr error_;
};

// Runs the workers on a thread of their own; closes the source and joins on every way out, so that
// an exception on the MPI thread never leaves a joinable thread behind.
class WorkerThread {
 public:
  WorkerThread(FunnelSource& source, const std::function<void(JobSource&)>& run_workers) : source_(source) {
    thread_ = std::thread([&source, &run_workers] {
      std::exception_ptr error;
      try {
        run_workers(source);
      } catch (...) {
        error = std::current_exception();
      }
      source.set_workers_finished(error);
    });
  }
  ~WorkerThread() {
    source_.close();
    if (thread_.joinable()) thread_.join();
  }
  WorkerThread(const WorkerThread&) = delete;
  WorkerThread& operator=(const WorkerThread&) = delete;
  void join() {
    if (thread_.joinable()) thread_.join();
  }

 private:
  FunnelSource& source_;
  std::thread thread_;
};

std::string describe(const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (const std::exception& e) {
    return e.what();
  } catch (...) {
    return "an exception that is not a std::exception";
  }
}

// The results of jobs this rank's workers had in flight when they stopped.
std::vector<JobResult> orphaned_results(const std::set<uint64_t>& in_flight, int rank,
                                        const std::exception_ptr& error) {
  const std::string reason = error ? fmt::format("the workers of rank {} stopped: {}", rank, describe(error))
                                   : fmt::format("the workers of rank {} ended without reporting it", rank);
  std::vector<JobResult> results;
  for (uint64_t job : in_flight) {
    JobResult r;
    r.job = job;
    r.reason = reason;
    r.worker = fmt::format("rank {}", rank);
    results.push_back(std::move(r));
  }
  return results;
}

// ---- MPI plumbing ------------------------------------------------------------------------------

struct Message {
  int source = 0;
  int tag = 0;
  std::vector<uint8_t> bytes;
};

// Receives without ever blocking: a message is matched (MPI_Improbe) and received with MPI_Imrecv,
// tested later. A blocking MPI_Recv after a probe would wait forever for the rest of a large
// message whose sender died while sending it (measured: a 2 MiB result, sender SIGKILLed).
class Receiver {
 public:
  explicit Receiver(MPI_Comm comm) : comm_(comm) {}
  Receiver(const Receiver&) = delete;
  Receiver& operator=(const Receiver&) = delete;
  ~Receiver() {
    for (Incoming& in : incoming_) abandon(in);
  }

  // Starts receiving the messages waiting from `source` (MPI_ANY_SOURCE: anyone), up to `max`, and
  // none after one tagged `last_tag`; returns those received whole, each source's in the order it
  // sent them. A receive that fails names its source in `failed` (rank 0 takes that as the peer's
  // death); elsewhere it throws.
  std::vector<Message> poll(int source, int max, std::vector<int>* failed, int last_tag = -1) {
    for (int i = 0; i < max; ++i) {
      int flag = 0;
      MPI_Message handle = MPI_MESSAGE_NULL;
      MPI_Status status;
      check(MPI_Improbe(source, MPI_ANY_TAG, comm_, &flag, &handle, &status), "MPI_Improbe");
      if (!flag) break;
      int count = 0;
      check(MPI_Get_count(&status, MPI_BYTE, &count), "MPI_Get_count");
      if (count < 0) throw std::runtime_error("MPI_Get_count: a message's size is not a whole number of bytes");
      incoming_.push_back({status.MPI_SOURCE, status.MPI_TAG, std::vector<uint8_t>(size_t(count)), MPI_REQUEST_NULL});
      Incoming& in = incoming_.back();
      check(MPI_Imrecv(in.bytes.data(), count, MPI_BYTE, &handle, &in.request), "MPI_Imrecv");
      if (status.MPI_TAG == last_tag) break;
    }
    std::vector<Message> complete;
    std::set<int> blocked;  // sources with an earlier message still arriving
    for (size_t i = 0; i < incoming_.size();) {
      Incoming& in = incoming_[i];
      int flag = 0;
      if (!blocked.contains(in.source)) {
        const int rc = MPI_Test(&in.request, &flag, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS) {
          if (failed == nullptr) check(rc, "MPI_Test (MPI_Imrecv)");
          failed->push_back(in.source);
          forget(in.source);  // drops this one and every later one from that source
          continue;
        }
      }
      if (!flag) {
        blocked.insert(in.source);
        ++i;
        continue;
      }
      complete.push_back({in.source, in.tag, std::move(in.bytes)});
      incoming_.erase(incoming_.begin() + ptrdiff_t(i));
    }
    return complete;
  }

  // Whether a message from `source` is still arriving.
  bool arriving(int source) const {
    return std::any_of(incoming_.begin(), incoming_.end(), [&](const Incoming& in) { return in.source == source; });
  }

  // A dead source: what is still arriving from it never will.
  void forget(int source) {
    for (size_t i = 0; i < incoming_.size();) {
      if (incoming_[i].source != source) {
        ++i;
        continue;
      }
      abandon(incoming_[i]);
      incoming_.erase(incoming_.begin() + ptrdiff_t(i));
    }
  }

 private:
  struct Incoming {
    int source;
    int tag;
    std::vector<uint8_t> bytes;
    MPI_Request request;
  };
  // Hands a receive that may never complete to MPI, with its buffer (deliberately leaked: MPI may
  // still write it).
  static void abandon(Incoming& in) {
    if (in.request != MPI_REQUEST_NULL) MPI_Request_free(&in.request);
    (void)new std::vector<uint8_t>(std::move(in.bytes));
  }
  MPI_Comm comm_;
  std::deque<Incoming> incoming_;
};

// Sends in flight: each buffer lives until its MPI_Isend completes.
class Sends {
 public:
  explicit Sends(MPI_Comm comm) : comm_(comm) {}
  Sends(const Sends&) = delete;
  Sends& operator=(const Sends&) = delete;
  ~Sends() {
    // Sends still pending go to a dead peer (or we are unwinding): leave them to MPI, and their
    // buffers with them, rather than free a buffer MPI may still read.
    for (Pending& p : pending_) {
      if (p.request != MPI_REQUEST_NULL) MPI_Request_free(&p.request);
      (void)new std::vector<uint8_t>(std::move(p.bytes));  // deliberately leaked
    }
  }

  void send(int dest, int tag, std::vector<uint8_t> bytes) {
    if (bytes.size() > size_t(std::numeric_limits<int>::max()))
      throw std::runtime_error(fmt::format("MPI_Isend: a message of {} bytes is too large", bytes.size()));
    pending_.push_back({dest, MPI_REQUEST_NULL, std::move(bytes)});
    Pending& p = pending_.back();
    check(MPI_Isend(p.bytes.data(), int(p.bytes.size()), MPI_BYTE, dest, tag, comm_, &p.request), "MPI_Isend");
  }

  // Completes what has completed. A send that failed names its destination in `failed` (rank 0
  // takes that as the peer's death); elsewhere a failure throws.
  void progress(std::vector<int>* failed) {
    for (size_t i = 0; i < pending_.size();) {
      int flag = 0;
      MPI_Status status;
      const int rc = MPI_Test(&pending_[i].request, &flag, &status);
      if (rc != MPI_SUCCESS && failed == nullptr) check(rc, "MPI_Test (MPI_Isend)");
      if (rc != MPI_SUCCESS) failed->push_back(pending_[i].dest);
      if (rc != MPI_SUCCESS || flag) {
        pending_.erase(pending_.begin() + ptrdiff_t(i));
      } else {
        ++i;
      }
    }
  }

  // A dead peer: its sends will never complete; hand them to MPI and forget them.
  void forget(int dest) {
    for (size_t i = 0; i < pending_.size();) {
      if (pending_[i].dest != dest) {
        ++i;
        continue;
      }
      if (pending_[i].request != MPI_REQUEST_NULL) MPI_Request_free(&pending_[i].request);
      (void)new std::vector<uint8_t>(std::move(pending_[i].bytes));  // MPI may still read it
      pending_.erase(pending_.begin() + ptrdiff_t(i));
    }
  }

  bool empty() const { return pending_.empty(); }

 private:
  struct Pending {
    int dest;
    MPI_Request request;
    std::vector<uint8_t> bytes;
  };
  MPI_Comm comm_;
  std::vector<Pending> pending_;
};

// ---- Rank 0: deals, collects, watches the other ranks ---------------------------------------------

class Dealer {
 public:
  Dealer(const MpiSession& mpi, MPI_Comm comm, uint64_t job_count, const std::function<void(JobResult&)>& on_result,
         const MpiBatchOptions& options)
      : mpi_(mpi),
        sends_(comm),
        receiver_(comm),
        job_count_(job_count),
        on_result_(on_result),
        heartbeat_(heartbeat_period(options)),
        timeout_(duration(options.rank_timeout_s)),
        ranks_(size_t(mpi.size())),
        results_(job_count) {
    const auto now = Clock::now();
    for (RankState& r : ranks_) r.last_heard = now;
    last_heartbeat_ = now;
  }

  MpiBatchOutcome run(FunnelSource& source, WorkerThread& workers) {
    // Deal and collect until every job has its result and this rank's workers are done.
    bool local_finished = false;
    while (collected_ < job_count_ || !local_finished) {
      FunnelSource::Events e = source.take(kPollInterval);
      for (JobResult& r : e.results) collect(0, std::move(r));
      if (!e.workers_finished) {
        for (uint64_t i = 0; i < e.requests; ++i) source.answer(deal(0));
      } else {
        // A request from a worker that outlived run_workers is told no more.
        source.close();
        local_finished = true;
        ranks_[0].retired = true;
        workers.join();
        std::set<uint64_t> orphans = std::move(ranks_[0].in_flight);
        ranks_[0].in_flight.clear();
        for (JobResult& r : orphaned_results(orphans, 0, source.error())) record(std::move(r));
      }
      serve_mpi();
    }
    // kFinish is rank 0's last message to a rank; kFinishAck that rank's last to rank 0.
    finishing_ = true;
    for (int r = 1; r < mpi_.size(); ++r) {
      if (!ranks_[size_t(r)].dead) sends_.send(r, kFinish, encode_ranks(dead_ranks_));
    }
    while (std::any_of(ranks_.begin() + 1, ranks_.end(), [](const RankState& r) { return !r.dead && !r.acked; })) {
      std::this_thread::sleep_for(kPollInterval);
      serve_mpi();
    }
    // What is left is kFinish to ranks that acknowledged it; bounded all the same.
    for (const auto t0 = Clock::now(); !sends_.empty() && Clock::now() - t0 < timeout_;) {
      std::vector<int> failed;
      sends_.progress(&failed);
      std::this_thread::sleep_for(kPollInterval);
    }
    MpiBatchOutcome outcome;
    outcome.results = std::move(results_);
    outcome.dead_ranks = dead_ranks_;
    return outcome;
  }

 private:
  struct RankState {
    Clock::time_point last_heard;
    std::set<uint64_t> in_flight;  // dealt to the rank, no result yet
    bool dead = false;
    bool retired = false;  // its workers have all ended
    bool acked = false;
  };

  uint64_t deal(int rank) {
    if (next_job_ == job_count_) return kNoMore;
    const uint64_t job = next_job_++;
    ranks_[size_t(rank)].in_flight.insert(job);
    return job;
  }

  // A result for a job not in flight on that rank (a duplicate, a job never dealt to it, a result
  // that raced its rank's death) is dropped: each job has exactly one result.
  void collect(int rank, JobResult result) {
    if (ranks_[size_t(rank)].in_flight.erase(result.job) == 0) return;
    record(std::move(result));
  }

  void record(JobResult result) {
    on_result_(result);
    const uint64_t job = result.job;
    results_[job] = std::move(result);
    ++collected_;
  }

  // One round of MPI: the messages waiting, heartbeats, sends, deaths.
  void serve_mpi() {
    std::vector<int> failed;
    if (!finishing_) {
      for (const Message& m : receiver_.poll(MPI_ANY_SOURCE, 1024, &failed)) handle(m);
    } else {
      // A rank that has acknowledged kFinish may already be in the next batch: from each rank,
      // nothing is taken after its kFinishAck.
      for (int r = 1; r < mpi_.size(); ++r) {
        const RankState& s = ranks_[size_t(r)];
        if (s.dead || s.acked) continue;
        for (const Message& m : receiver_.poll(r, 1024, &failed, kFinishAck)) handle(m);
      }
    }
    const auto now = Clock::now();
    if (!finishing_ && now - last_heartbeat_ >= heartbeat_) {
      last_heartbeat_ = now;
      for (int r = 1; r < mpi_.size(); ++r) {
        if (!ranks_[size_t(r)].dead) sends_.send(r, kHeartbeat, {});
      }
    }
    sends_.progress(&failed);
    for (int r : failed) declare_dead(r, "an MPI transfer with it failed");
    if (next_job_ < job_count_ &&
        std::all_of(ranks_.begin(), ranks_.end(), [](const RankState& r) { return r.dead || r.retired; }))
      fail_undealt();
    // A rank is heard when a message of it has arrived whole: one that stops halfway through is
    // no word, as its sender may have died sending it.
    for (int r = 1; r < mpi_.size(); ++r) {
      RankState& s = ranks_[size_t(r)];
      if (!s.dead && !s.acked && now - s.last_heard > timeout_)
        declare_dead(r, fmt::format("no word from it for {:.1f} s", seconds(now - s.last_heard)));
    }
  }

  void handle(const Message& m) {
    RankState& s = ranks_[size_t(m.source)];
    if (s.dead) return;  // declared dead: whatever it still says is ignored
    s.last_heard = Clock::now();
    switch (m.tag) {
      case kRequest:
        // A request that crosses kFinish stays unanswered: kFinish tells that rank's workers no more.
        if (!finishing_) sends_.send(m.source, kDeal, encode_u64(deal(m.source)));
        break;
      case kResult:
        collect(m.source, detail::decode_result(m.bytes));
        break;
      case kRetired:
        s.retired = true;
        break;
      case kFinishAck:
        s.acked = true;
        break;
      case kHeartbeat:
        break;
      default:
        throw std::runtime_error(fmt::format("rank {} sent a message with the unknown tag {}", m.source, m.tag));
    }
  }

  // No rank has a worker left: nobody will ask for the jobs not dealt yet.
  void fail_undealt() {
    for (; next_job_ < job_count_; ++next_job_) {
      JobResult r;
      r.job = next_job_;
      r.reason = "not run: no rank had a worker left";
      record(std::move(r));
    }
  }

  void declare_dead(int rank, const std::string& why) {
    RankState& s = ranks_[size_t(rank)];
    if (s.dead) return;
    s.dead = true;
    dead_ranks_.push_back(rank);
    sends_.forget(rank);  // and never send to it again
    receiver_.forget(rank);
    std::set<uint64_t> lost = std::move(s.in_flight);
    s.in_flight.clear();
    for (uint64_t job : lost) {
      JobResult r;
      r.job = job;
      r.lost = true;
      r.reason = fmt::format("lost with rank {} ({})", rank, why);
      r.worker = fmt::format("rank {}", rank);
      record(std::move(r));
    }
  }

  const MpiSession& mpi_;
  Sends sends_;
  Receiver receiver_;
  const uint64_t job_count_;
  const std::function<void(JobResult&)>& on_result_;
  const Clock::duration heartbeat_;
  const Clock::duration timeout_;
  std::vector<RankState> ranks_;
  std::vector<JobResult> results_;
  uint64_t next_job_ = 0;
  uint64_t collected_ = 0;
  std::vector<int> dead_ranks_;
  Clock::time_point last_heartbeat_;
  bool finishing_ = false;
};

// ---- Ranks other than 0: forward the workers' requests and results to rank 0 ------------------------

class Member {
 public:
  Member(const MpiSession& mpi, MPI_Comm comm, const MpiBatchOptions& options)
      : mpi_(mpi),
        sends_(comm),
        receiver_(comm),
        heartbeat_(heartbeat_period(options)),
        timeout_(duration(options.rank_timeout_s)),
        fault_(fault_kill_from_env()) {}

  // The dead ranks rank 0 named in kFinish.
  std::vector<int> run(FunnelSource& source, WorkerThread& workers) {
    auto last_heard = Clock::now();
    auto last_heartbeat = last_heard;
    std::optional<std::vector<int>> finish;
    while (!finish || !local_finished_) {
      FunnelSource::Events e = source.take(kPollInterval);
      for (JobResult& r : e.results) {
        if (in_flight_.erase(r.job) != 0) sends_.send(0, kResult, detail::encode_result(r));
      }
      if (!e.workers_finished) {
        if (!finish) {
          for (uint64_t i = 0; i < e.requests; ++i) sends_.send(0, kRequest, {});
        }
      } else {
        source.close();
        local_finished_ = true;
        workers.join();
        workers_error_ = source.error();
        fail_in_flight();
        if (!finish) sends_.send(0, kRetired, {});
      }
      for (const Message& m : receiver_.poll(0, 1024, nullptr)) {
        last_heard = Clock::now();
        if (m.tag == kDeal) {
          dealt(source, m.bytes);
        } else if (m.tag == kFinish) {
          finish = decode_finish(m.bytes);
          source.close();
        } else if (m.tag != kHeartbeat) {
          throw std::runtime_error(fmt::format("rank 0 sent a message with the unknown tag {}", m.tag));
        }
      }
      const auto now = Clock::now();
      if (now - last_heartbeat >= heartbeat_) {
        last_heartbeat = now;
        sends_.send(0, kHeartbeat, {});
      }
      sends_.progress(nullptr);
      if (!finish && now - last_heard > timeout_) throw rank0_lost(now - last_heard);
    }
    // The last message to rank 0; it has received everything before once this send completes.
    sends_.send(0, kFinishAck, {});
    const auto t0 = Clock::now();
    while (!sends_.empty()) {
      std::this_thread::sleep_for(kPollInterval);
      sends_.progress(nullptr);
      if (Clock::now() - t0 > timeout_) throw rank0_lost(Clock::now() - t0);
    }
    return *finish;
  }

 private:
  void dealt(FunnelSource& source, std::span<const uint8_t> bytes) {
    Reader reader(bytes, "deal");
    const uint64_t job = reader.u64();
    reader.finish();
    if (job != kNoMore) {
      in_flight_.insert(job);
      ++dealt_;
      if (fault_ && fault_->rank == mpi_.rank() && fault_->nth == dealt_) std::raise(fault_->signal);
    }
    source.answer(job);
    if (local_finished_) fail_in_flight();  // the answer to a request that outlived the workers
  }

  void fail_in_flight() {
    for (JobResult& r : orphaned_results(in_flight_, mpi_.rank(), workers_error_))
      sends_.send(0, kResult, detail::encode_result(r));
    in_flight_.clear();
  }

  std::vector<int> decode_finish(std::span<const uint8_t> bytes) const {
    Reader reader(bytes, "finish");
    if (reader.left() % 4 != 0) reader.fail("not a whole number of ranks");
    std::vector<int> dead;
    while (reader.left() > 0) {
      const uint32_t r = reader.u32();
      if (r == 0 || r >= uint32_t(mpi_.size())) reader.fail(fmt::format("rank {} of {}", r, mpi_.size()));
      dead.push_back(int(r));
    }
    return dead;
  }

  std::runtime_error rank0_lost(Clock::duration silence) const {
    return std::runtime_error(
        fmt::format("rank {}: no word from rank 0 for {:.1f} s: the batch is lost", mpi_.rank(), seconds(silence)));
  }

  const MpiSession& mpi_;
  Sends sends_;
  Receiver receiver_;
  const Clock::duration heartbeat_;
  const Clock::duration timeout_;
  const std::optional<FaultKill> fault_;
  std::set<uint64_t> in_flight_;  // dealt to this rank, no result sent yet
  uint64_t dealt_ = 0;
  bool local_finished_ = false;
  std::exception_ptr workers_error_;
};

}  // namespace

// ---- Public -------------------------------------------------------------------------------------------

namespace detail {

std::vector<uint8_t> encode_result(const JobResult& result) {
  Writer w;
  w.u32(kResultVersion);
  w.u64(result.job);
  w.u8(result.ok ? 1 : 0);
  w.u8(result.lost ? 1 : 0);
  w.u8(result.verified ? 1 : 0);
  for (double ms : {result.traces_ms, result.staging_ms, result.upload_ms, result.device_ms, result.download_ms,
                    result.verify_ms, result.encode_ms, result.write_ms, result.prove_ms, result.total_ms,
                    result.at.dealt, result.at.traces, result.at.started, result.at.finished, result.at.checked})
    w.f64(ms);
  w.u64(result.device_bytes);
  w.text(result.reason);
  w.text(result.worker);
  w.bytes(result.file);
  return w.take();
}

JobResult decode_result(std::span<const uint8_t> message) {
  Reader reader(message, "result");
  const uint32_t version = reader.u32();
  if (version != kResultVersion) reader.fail(fmt::format("version {}, expected {}", version, kResultVersion));
  JobResult r;
  r.job = reader.u64();
  r.ok = reader.flag();
  r.lost = reader.flag();
  r.verified = reader.flag();
  for (double* ms :
       {&r.traces_ms, &r.staging_ms, &r.upload_ms, &r.device_ms, &r.download_ms, &r.verify_ms, &r.encode_ms,
        &r.write_ms, &r.prove_ms, &r.total_ms, &r.at.dealt, &r.at.traces, &r.at.started, &r.at.finished, &r.at.checked})
    *ms = reader.f64();
  r.device_bytes = reader.u64();
  r.reason = reader.text();
  r.worker = reader.text();
  const std::span<const uint8_t> file = reader.bytes();
  r.file.assign(file.begin(), file.end());
  reader.finish();
  return r;
}

}  // namespace detail

MpiSession::MpiSession(int& argc, char**& argv) {
  int initialized = 0;
  check(MPI_Initialized(&initialized), "MPI_Initialized");
  if (initialized) throw std::runtime_error("MPI_Init_thread: MPI is initialised already (one MpiSession per process)");
  int provided = 0;
  check(MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
  if (provided < MPI_THREAD_FUNNELED) {
    MPI_Finalize();
    throw std::runtime_error("MPI_Init_thread: this MPI does not provide MPI_THREAD_FUNNELED");
  }
  check(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
  // Our own communicator (it keeps MPI_ERRORS_RETURN): our messages never meet the caller's.
  check(MPI_Comm_dup(MPI_COMM_WORLD, &comm_), "MPI_Comm_dup");
  check(MPI_Comm_rank(comm_, &rank_), "MPI_Comm_rank");
  check(MPI_Comm_size(comm_, &size_), "MPI_Comm_size");
  MPI_Comm node = MPI_COMM_NULL;
  check(MPI_Comm_split_type(comm_, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node), "MPI_Comm_split_type");
  check(MPI_Comm_rank(node, &local_rank_), "MPI_Comm_rank (node)");
  check(MPI_Comm_size(node, &local_size_), "MPI_Comm_size (node)");
  check(MPI_Comm_free(&node), "MPI_Comm_free");
}

void MpiSession::abort(int status) const {
  std::fflush(stdout);
  std::fflush(stderr);
  abandoned_ = true;
  MPI_Abort(comm_, status);
  std::_Exit(status);  // MPI_Abort does not return; should it, this process ends all the same
}

MpiSession::~MpiSession() {
  int finalized = 0;
  if (abandoned_ || MPI_Finalized(&finalized) != MPI_SUCCESS || finalized) return;
  MPI_Comm_free(&comm_);
  MPI_Finalize();
}

std::string MpiSession::broadcast(const std::string& text_on_rank0) const {
  uint64_t size = rank_ == 0 ? text_on_rank0.size() : 0;
  check(MPI_Bcast(&size, 1, MPI_UINT64_T, 0, comm_), "MPI_Bcast (size)");
  std::string text = rank_ == 0 ? text_on_rank0 : std::string(size_t(size), '\0');
  constexpr uint64_t kChunk = uint64_t(1) << 30;  // MPI counts are ints
  for (uint64_t at = 0; at < size; at += kChunk) {
    const int n = int(std::min(kChunk, size - at));
    check(MPI_Bcast(text.data() + at, n, MPI_CHAR, 0, comm_), "MPI_Bcast");
  }
  return text;
}

MpiBatchOutcome run_mpi_batch(const MpiSession& mpi, uint64_t job_count,
                              const std::function<void(JobSource&)>& run_workers,
                              const std::function<void(JobResult&)>& on_result, const MpiBatchOptions& options) {
  if (!(options.heartbeat_s > 0) || !(options.rank_timeout_s > 0))
    throw std::invalid_argument(fmt::format("run_mpi_batch: heartbeat_s {} and rank_timeout_s {} must be positive",
                                            options.heartbeat_s, options.rank_timeout_s));
  int is_main = 0;
  check(MPI_Is_thread_main(&is_main), "MPI_Is_thread_main");
  if (!is_main) throw std::runtime_error("run_mpi_batch: call it on the thread that created the MpiSession");

  if (mpi.abandoned())
    throw std::runtime_error("run_mpi_batch: the MPI session is abandoned (a rank died, or a batch broke off)");

  // No collective call here: a rank that never comes is declared dead like one that dies.
  const MPI_Comm comm = mpi.comm();
  FunnelSource source;
  MpiBatchOutcome outcome;
  try {
    WorkerThread workers(source, run_workers);
    if (mpi.rank() == 0) {
      outcome = Dealer(mpi, comm, job_count, on_result, options).run(source, workers);
    } else {
      outcome.dead_ranks = Member(mpi, comm, options).run(source, workers);
    }
  } catch (...) {
    // The protocol broke off: the other ranks may never reach MPI_Finalize.
    mpi.abandon();
    throw;
  }
  if (!outcome.dead_ranks.empty()) mpi.abandon();
  if (std::exception_ptr error = source.error()) std::rethrow_exception(error);
  return outcome;
}

}  // namespace vkstark::batch
