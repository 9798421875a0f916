// Trace: what a run did (architecture.md, "Trace"). Counters and a span tree with host and device
// times. Filled by Executor runs; written by the sinks below, one per format (each in its own file:
// trace_summary.cpp, trace_json.cpp, trace_chrome.cpp). Thread-compatible.
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <span>
#include <string>
#include <vector>

#include "runtime/plan.hpp"

namespace vkstark {

struct TraceCounters {
  uint64_t dispatches = 0;
  uint64_t barriers = 0;     // dependency points between tasks (memory + execution)
  uint64_t submissions = 0;  // command-buffer submissions (CPU executor: task groups run as one)
  uint64_t host_syncs = 0;   // host waits for the device
  uint64_t host_tasks = 0;
  uint64_t bytes_up = 0;    // host -> executor memory
  uint64_t bytes_down = 0;  // executor memory -> host
  uint64_t peak_device_bytes = 0;
};

struct TraceSpan {
  std::string name;
  std::string path;
  int32_t parent = -1;
  double host_start_ms = 0;  // relative to the start of the run
  double host_ms = 0;        // host wall time inside the span (Vulkan: recording, submitting, waiting)
  double device_start_ms = -1;
  double device_ms = -1;  // time the device spent between the span's edges; -1 if not measured
  uint64_t dispatches = 0;
  uint64_t barriers = 0;
  uint64_t submissions = 0;  // submissions holding at least one task of the span
};

// One dispatch's device time (profiled runs only).
struct TraceTask {
  std::string name;
  std::string kernel;  // "host" for host tasks
  uint32_t span = 0;
  double device_ms = 0;
};

class Trace {
 public:
  // Also time every task (Vulkan: two timestamps per dispatch). Default: VKSTARK_PROFILE=1.
  bool profile_tasks = profile_from_environment();
  std::vector<TraceTask> tasks;  // per plan task, when profile_tasks
  std::string executor;          // "cpu" | "vulkan"
  std::string device;
  TraceCounters counters;
  std::vector<TraceSpan> spans;  // span 0 = the whole run ("run")
  // Where the plan's memory goes (memory_breakdown of the last run's plan).
  std::vector<MemoryPart> memory;
  double total_host_ms = 0;
  // Of total_host_ms, the time spent submitting work and waiting for it (Vulkan: vkQueueSubmit to
  // the end of the fence wait; CPU: running the submissions' tasks). The rest is the executor's own
  // bookkeeping and host tasks.
  double submit_wait_ms = 0;
  uint64_t runs = 0;
  // The last run's transfers, as measured by the executor and by callers that upload and download
  // (the prover); 0 where nothing was measured:
  double staging_ms = 0;        // host: the inputs copied into staging memory before the run
  double upload_device_ms = 0;  // device: the run's copies of its inputs from host memory (timestamped)
  double download_ms = 0;       // host: the run's outputs read back after it
  // Progress: called with a span's index and its wall time so far as the span's last task
  // finishes, by executors that see that during the run (the CPU executor; the Vulkan executor
  // learns span times only at the run's host sync, so it does not call it). The span's times in
  // `spans` are filled at the end of the run. Called on the thread that called run().
  std::function<void(uint32_t span, double elapsed_ms)> on_span_end;
  // Live progress: called as each group of tasks that run together starts, with the innermost span
  // of the group's first task, the run's tasks finished before the group and the run's tasks in all
  // (a host task is a group of its own), by executors that run the plan group by group on the host
  // (the CPU executor; the Vulkan executor records the whole run as one submission and does not
  // call it). Called on the thread that called run(), after begin_run: `spans` names the span.
  std::function<void(uint32_t span, uint64_t tasks_done, uint64_t tasks_total)> on_tasks_start;

  // Prepares the span list for `plan` (keeps counters: several runs accumulate).
  void begin_run(const Plan& plan, std::string executor_name, std::string device_name);
  // Span index for task `task` and all its ancestors (innermost first).
  std::vector<uint32_t> span_chain(const Plan& plan, uint32_t task) const;
  static bool profile_from_environment();
};

// Sinks.
void write_summary(const Trace& trace, std::ostream& os);       // span tree with times and counts
void write_json(const Trace& trace, std::ostream& os);          // {"executor", "device", "counters", "spans"}
void write_chrome_trace(const Trace& trace, std::ostream& os);  // traceEvents (Perfetto, chrome://tracing)
// Several runs in one Chrome trace, one after another on the same tracks (e.g. one run of each plan
// a tool measured); each run's top span (spans[0], "run" unless renamed) names it.
void write_chrome_trace(std::span<const Trace> runs, std::ostream& os);

// Writes JSON / Chrome trace to a file; throws InputError if the file cannot be written.
void write_json_file(const Trace& trace, const std::string& path);
void write_chrome_trace_file(const Trace& trace, const std::string& path);
void write_chrome_trace_file(std::span<const Trace> runs, const std::string& path);

}  // namespace vkstark
