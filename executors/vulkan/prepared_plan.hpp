// Internal to the Vulkan executor: a Plan prepared on one device. prepare (prepared_plan.cpp)
// allocates memory, resolves every dispatch to a pipeline, descriptor windows, push constants and
// workgroup counts, and allocates one command buffer per plan submission; run (plan_run.cpp)
// records and submits them with one fence wait each; host tasks live in host_tasks.cpp.
//
// Memory (Context::unified): on unified memory every buffer is mapped and uploads, downloads and
// host tasks use it directly. Otherwise buffers are device-local; Inputs and Persistents are
// uploaded from staging by copies recorded at the start of the next submission, Outputs are copied
// to staging at the end of the last submission, and host tasks get staging copies of their views
// (copied down at the end of the previous submission, written data copied up at the start of the
// next). A host task with no submission before it in the run (first segment, or after another
// host task) costs one extra copy submission and wait in that mode, counted in the trace.
//
// Host tasks inside a submission (Plan::host_inside, on a device with timeline semaphores): the
// submission segments around them go to the queue as batches (a vkQueueSubmit each, all issued
// before the first task runs; one fence, one host wait at the end); batch j signals the plan's
// timeline semaphore when its work (and its copies to the task's staging) is done, the host waits
// for that value, runs the task and signals the next value, which batch j + 1 waits for; batch
// j + 1's body starts with the task's written views copied back (recorded once, like the rest).
//
// Lifetime: must not outlive its executor (it refers to the executor's Context, pipelines and
// Persistent buffers). Thread-compatible: one thread at a time, like the executor.
#pragma once

#include <chrono>
#include <deque>
#include <exception>
#include <initializer_list>
#include <span>
#include <thread>
#include <vector>

#include "executors/vulkan/commands.hpp"
#include "executors/vulkan/memory.hpp"
#include "executors/vulkan/persistents.hpp"
#include "executors/vulkan/pipelines.hpp"
#include "runtime/executor.hpp"

namespace vkstark::vulkan {

// Where a buffer of the plan lives on the device.
struct Location {
  VkBuffer buffer = VK_NULL_HANDLE;        // its own VkBuffer, the transient arena, or a persistent's
  uint64_t offset = 0;                     // byte offset of element 0 inside `buffer`
  uint64_t capacity = 0;                   // bytes of `buffer`
  std::byte* host = nullptr;               // unified memory: mapped address of element 0
  DeviceBuffer* staging = nullptr;         // staging mode: Input upload / Output download staging
  PersistentBuffer* persistent = nullptr;  // Persistent buffers
};

struct DispatchRecord {
  const Pipeline* pipeline = nullptr;
  std::vector<VkDescriptorBufferInfo> descriptors;  // binding i = Task::bindings[i]
  std::vector<uint32_t> push;                       // grid, (offset, count) per binding, scalars
  uint32_t groups[3] = {0, 0, 0};                   // zero: grid.x == 0, nothing is recorded
};

// Staging-mode copy of a host task's declared views, merged per VkBuffer.
struct HostInterval {
  BufferId owner = kNoBuffer;  // the buffer; kNoBuffer for a range of the transient arena
  VkBuffer buffer = VK_NULL_HANDLE;
  uint64_t begin = 0, end = 0;  // bytes of `buffer`
  uint64_t staging_offset = 0;
  bool written = false;
};
struct HostStaging {
  DeviceBuffer staging;
  std::vector<HostInterval> intervals;
};

// What a span adds to the trace on every run (derived from the plan at prepare).
struct SpanStatic {
  uint64_t dispatches = 0, barriers = 0, submissions = 0;
};

class VulkanPreparedPlan final : public PreparedPlan {
 public:
  // `queue`: one of ctx.queues, where this plan's submissions go.
  VulkanPreparedPlan(std::shared_ptr<const Plan> plan, const Context& ctx, Pipelines& pipelines,
                     Persistents& persistents, VkQueue queue);
  ~VulkanPreparedPlan() override;
  VulkanPreparedPlan(const VulkanPreparedPlan&) = delete;
  VulkanPreparedPlan& operator=(const VulkanPreparedPlan&) = delete;

  void run(Trace& trace) override;
  void start(Trace& trace) override;
  void wait() override;

 protected:
  void upload_bytes(BufferId id, uint64_t byte_offset, std::span<const std::byte> bytes) override;
  void download_bytes(BufferId id, std::span<std::byte> bytes) const override;

 private:
  class HostView;
  struct RunState;

  // prepare (prepared_plan.cpp)
  void allocate_memory();
  void place(BufferId id);
  void build_dispatches(Pipelines& pipelines);
  DispatchRecord make_dispatch(const Task& t, Pipelines& pipelines) const;
  VkDescriptorBufferInfo window(const Task& t, const Binding& b, uint32_t& first) const;
  void workgroups(const Task& t, uint32_t wg, uint32_t groups[3]) const;
  void build_spans();
  void create_commands();
  void destroy_commands() noexcept;
  void download_persistent(BufferId id, std::span<std::byte> bytes);

  // host tasks (host_tasks.cpp)
  void build_host_staging();
  std::vector<PendingCopy> host_down_copies(uint32_t task) const;
  void run_host_segment(size_t index, RunState& st);
  void call_host(const Task& t, uint32_t task);
  // `inside`: the task ran inside a submission, whose next body copies its writes back.
  void after_host_task(uint32_t task, bool inside = false);
  void decide_inside();
  uint32_t independent_prefix(uint32_t task, const Segment& next) const;
  // Runs a task inside a submission (between batches); if it throws, `failure` holds it.
  void run_inside(size_t index, RunState& st, std::exception_ptr& failure);
  std::byte* host_address(uint32_t task, BufferId buffer, uint64_t offset, uint64_t bytes, Access access) const;

  // run (plan_run.cpp)
  struct BindState;
  void check_inputs() const;
  void reset_queries(RunState& st);
  void run_submission(size_t index, RunState& st, bool wait = true);
  // Submission segments first, first + 2, .., last joined by host tasks inside them: one
  // vkQueueSubmit of their batches, the host tasks run as the device reaches them.
  void run_chain(size_t first, size_t last, RunState& st, bool wait);
  // The body's start after a host task inside the submission: its writes made visible (and, in
  // staging mode, copied back from its staging).
  void record_after_inside(VkCommandBuffer cb, size_t index) const;
  void complete_submission(RunState& st);
  void check_idle(const char* what) const;
  VkCommandBuffer body(size_t index, bool profile, bool prefix = false);
  void record_body(VkCommandBuffer cb, size_t index, bool profile, bool prefix);
  void wait_timeline(uint64_t value) const;
  static constexpr int kTimelineSpinMs = 250;
  void record_step(VkCommandBuffer cb, const Step& step, bool profile, BindState& bound) const;
  void record_dispatch(VkCommandBuffer cb, const Task& t, const DispatchRecord& d, BindState& bound) const;
  bool needs_prologue(const RunState& st) const;
  bool record_prologue(VkCommandBuffer cb, RunState* st);
  // The uploads to the plan's own buffers waiting (pending_) submitted on the transfer queue,
  // signalling upload_done_; false when there are none.
  bool submit_uploads(RunState& st);
  // `copies` into cb, between two timestamps (Trace::upload_device_ms) when the run's uploads are
  // not timed yet and the queue's timestamps have `bits` valid bits (0: none).
  void record_upload_copies(VkCommandBuffer cb, RunState* st, uint32_t bits,
                            std::initializer_list<std::span<const PendingCopy>> copies);
  void finish_commands(VkCommandBuffer cb, size_t index);
  void flush_for_host(uint32_t task, RunState& st);
  void finish_run(RunState& st);
  void read_timestamps(RunState& st);
  // Timestamps: two per span, then two around the uploads' copies; `bits` of a raw one are valid.
  double ticks_to_ms(uint64_t begin, uint64_t end, uint32_t bits) const;
  uint32_t query_count() const { return static_cast<uint32_t>(2 * plan_.spans.size() + 2); }
  uint32_t upload_query() const { return static_cast<uint32_t>(2 * plan_.spans.size()); }
  void read_task_timestamps(RunState& st);
  void fill_spans(RunState& st);

  const Context& ctx_;
  Persistents& persistents_;
  VkQueue queue_ = VK_NULL_HANDLE;
  bool debug_labels_ = false;              // a debug-utils label around every dispatch (names in GPU tools)
  std::deque<DeviceBuffer> owned_;         // Input/Output buffers and their staging, the arena, the dummy
  DeviceBuffer* dummy_ = nullptr;          // bound for zero-count read-only views
  DeviceBuffer* dummy_written_ = nullptr;  // bound for zero-count writable views
  std::vector<Location> loc_;              // per buffer
  uint64_t device_bytes_ = 0;
  uint64_t output_bytes_ = 0;

  std::vector<DispatchRecord> dispatch_;           // per task (empty for host tasks)
  std::vector<HostStaging> host_;                  // per task (staging mode host tasks only)
  std::vector<uint64_t> host_read_bytes_;          // per task
  std::vector<std::vector<uint32_t>> span_begin_;  // per task: spans whose begin timestamp precedes it
  std::vector<std::vector<uint32_t>> span_end_;    // per task: spans whose end timestamp follows it
  std::vector<SpanStatic> span_static_;            // per span

  // Per Submission segment, a body recorded once (barriers, dispatches, span timestamps, the copies
  // the plan implies) and replayed by every run, so a run records nothing per dispatch; its
  // profiled variant (timestamps around every dispatch) is recorded on the first profiled run.
  // What changes between runs (uploads waiting in staging; query resets where the device cannot
  // reset from the host) goes into the prologue, submitted with the body. The spare serves
  // copy-only submissions.
  VkCommandPool pool_ = VK_NULL_HANDLE;
  std::vector<VkCommandBuffer> body_, body_profiled_;  // per segment; null for host segments
  VkCommandBuffer prologue_ = VK_NULL_HANDLE, spare_ = VK_NULL_HANDLE;
  std::vector<std::vector<uint32_t>> segment_span_ends_;  // per segment: spans whose end timestamp it writes
  std::vector<SpanStatic> segment_counts_;                // per segment: dispatches and barriers it records
  int64_t last_submission_ = -1;                          // segment index
  std::vector<bool> inside_;                              // per segment: a host task run inside the submission
  // Per segment after such a task: its leading steps that touch none of the task's views; they run
  // in a batch of their own that does not wait for the task (beside it).
  std::vector<uint32_t> prefix_;
  std::vector<VkCommandBuffer> prefix_body_, prefix_body_profiled_;
  VkSemaphore timeline_ = VK_NULL_HANDLE;  // where some host task runs inside a submission
  uint64_t timeline_value_ = 0;            // its value after the last run
  VkFence fence_ = VK_NULL_HANDLE;
  // With a transfer queue (Context::transfer_queue): a run's uploads are recorded into their own
  // command buffer, submitted there, and the run's first submission waits for `upload_done_`.
  VkCommandPool transfer_pool_ = VK_NULL_HANDLE;
  VkCommandBuffer transfer_cb_ = VK_NULL_HANDLE;
  VkSemaphore upload_done_ = VK_NULL_HANDLE;
  VkQueryPool queries_ = VK_NULL_HANDLE;       // two timestamps per span, when the queue has timestamps
  VkQueryPool task_queries_ = VK_NULL_HANDLE;  // two per task, made on the first profiled run

  std::vector<PendingCopy> pending_;  // staging -> device copies for the next submission
  std::vector<bool> uploaded_;        // per buffer
  uint64_t pending_bytes_up_ = 0;
  std::vector<std::shared_ptr<HostMemory>> held_;         // host memory the pending copies read (until wait())
  std::vector<std::shared_ptr<HostMemory>> held_by_run_;  // ... that the run in flight reads
  uint64_t deferred_submissions_ = 0;                     // Persistent downloads in staging mode, added to the next run

  // A run between start() and wait(); the message-log mark at its start.
  std::unique_ptr<RunState> run_;
  size_t run_mark_ = 0;
};

// Per-run bookkeeping: host times per task, which spans got timestamps.
struct VulkanPreparedPlan::RunState {
  RunState(Trace& t, const Plan& plan)
      : trace(t),
        start(std::chrono::steady_clock::now()),
        task_begin(plan.tasks.size(), -1),
        task_end(plan.tasks.size(), -1),
        stamped(plan.spans.size(), false) {}
  double now() const {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  }

  Trace& trace;
  std::chrono::steady_clock::time_point start;
  std::vector<double> task_begin, task_end;  // per task: host ms since `start` (-1: not reached)
  std::vector<bool> stamped;                 // per span: both timestamps written in this run
  bool queries_reset = false;                // (devices without host query reset) by a prologue
  uint32_t upload_stamp_bits = 0;            // valid bits of the queue that timed the uploads (0: untimed)
  bool profile = false;                      // per-task timestamps this run
  int64_t submitted = -1;                    // the segment submitted and not yet waited for
  int64_t chain_first = -1;                  // the first segment of that submission (host tasks inside it)
  double submitted_at = 0;                   // host ms of its submission
  // The host tasks inside a submission left to wait(): run on a thread of their own, so that start()
  // returns once the submission is made (a batch's worker starts or finishes other proofs meanwhile).
  std::thread host_thread;
  std::exception_ptr host_failure;  // the first host task that threw (the rest skipped, their values signalled)
  bool host_signal_failed = false;  // a value left unsignalled: the device cannot finish the submission
  ~RunState() {
    if (host_thread.joinable()) host_thread.join();
  }
};

}  // namespace vkstark::vulkan
