// Progress on a terminal for long runs (vkstark prove, the keccakf example), on stderr; nothing with
// --quiet or when stderr is not a terminal, so that logs and pipes get only the results.
//
//   cli::Progress progress(quiet);
//   auto pk = progress.step("keygen", [&] { return keygen(airs, params, exec); });
//   progress.follow_spans(trace, 3);   // status line during the run
//   prepared->run(traces, &trace);
//   progress.report_remaining_spans(trace);   // the proof's span tree, in proof order
//
// While a step (or a followed run) is going, one status line is rewritten in place ("\r", clear to
// the end of the line) by a ticker thread, ten times a second: the step, what it is doing where that
// is known (the path of the running span, OpenVM's span names; or the library's work), how far it
// is, and the step's elapsed time:
//
//   prepare (graph, kernels, pipelines): compiling kernels  [##........] 37/145  2.1 s
//   prove > prover.rap_constraints > mle_rounds  [#####.....] 150/282  1.2 s
//
// Kernel compilation comes from the library's progress listener (runtime/progress.hpp: the Vulkan
// executor's pipelines); the run's span and task count from Trace::on_tasks_start (the CPU executor;
// a GPU runs the proof as one submission, so there the line shows only the elapsed time). A step's
// line is replaced by its finished line, "  <step>: <time>"; the ticker has stopped by then, so
// whatever the program prints next starts on a clean line.
//
// Call it from one thread (the ticker is internal).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <type_traits>
#include <vector>

#include "runtime/progress.hpp"
#include "runtime/trace.hpp"

namespace vkstark::cli {

class Progress {
 public:
  explicit Progress(bool quiet);
  ~Progress();  // stops the status line (a step that threw)
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;
  bool enabled() const { return enabled_; }

  // Runs f and returns what it returns, with the status line while it runs; prints
  // "  <what>: <time>" when it is done.
  template <class F>
  decltype(auto) step(std::string_view what, F&& f) {
    const auto t0 = std::chrono::steady_clock::now();
    Showing showing(*this, what);
    if constexpr (std::is_void_v<std::invoke_result_t<F>>) {
      f();
      showing.stop();
      done(what, since(t0));
    } else {
      decltype(auto) result = f();
      showing.stop();
      done(what, since(t0));
      return result;
    }
  }
  void done(std::string_view what, double ms);

  // From now until report_remaining_spans, the status line "prove > <running span path>  [bar]
  // <tasks done>/<tasks>  <time>" (span and tasks on executors that report the tasks they start,
  // Trace::on_tasks_start; the path names spans down to `max_depth` first, the run's span being
  // depth 0). Keep `trace` alive and unmoved until then.
  void follow_spans(Trace& trace, uint32_t max_depth);
  // After the run: stops the status line, stops following `trace`, and prints its spans down to
  // `max_depth` as a tree in the order of the proof (parents before children, siblings in start
  // order) with their times (device times where the executor measures them).
  void report_remaining_spans(Trace& trace);

 private:
  using Clock = std::chrono::steady_clock;
  static double since(Clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  }
  // The status line of one step, from construction to stop() (or destruction).
  class Showing {
   public:
    Showing(Progress& p, std::string_view what) : p_(p) { p_.start_status(what); }
    ~Showing() { stop(); }
    void stop() {
      if (!stopped_) p_.stop_status();
      stopped_ = true;
    }

   private:
    Progress& p_;
    bool stopped_ = false;
  };
  // Takes what the library reports (runtime/progress.hpp), from any thread.
  struct Listener final : ProgressListener {
    Progress* p = nullptr;
    void progress(std::string_view what, uint64_t done, uint64_t total) noexcept override;
  };
  struct Status {
    std::string step;
    Clock::time_point start;
    std::vector<std::string> path;  // the running span's path, from on_tasks_start
    size_t path_shallow = 0;        // of which the spans down to max_depth_
    uint64_t tasks_done = 0, tasks_total = 0;
    std::string work;  // the library's work ("compiling kernels") and its count
    uint64_t work_done = 0, work_total = 0;
  };

  void start_status(std::string_view what);
  void stop_status();
  void tick();                      // the ticker thread
  std::string status_line() const;  // with mutex_ held
  std::vector<std::string> span_path(const Trace& trace, uint32_t span, size_t& shallow) const;

  bool enabled_;
  uint32_t max_depth_ = 0;
  Listener listener_;
  ProgressListener* replaced_ = nullptr;  // the listener before ours, put back when a step ends
  bool following_ = false;                // follow_spans' status line is showing

  mutable std::mutex mutex_;  // guards status_, stop_ and drawn_ (the ticker reads them)
  std::condition_variable wake_;
  Status status_;
  bool stop_ = false;
  bool drawn_ = false;  // the ticker has drawn a line that the next output must clear
  std::thread ticker_;
};

}  // namespace vkstark::cli
