// Running a prepared plan: one command buffer, one vkQueueSubmit and one fence wait per plan
// submission; plan barriers, timestamps at span edges, counters exactly as performed.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "executors/vulkan/prepared_plan.hpp"
#include "runtime/error.hpp"

namespace vkstark::vulkan {

namespace {
bool same_descriptors(const std::vector<VkDescriptorBufferInfo>& a, const std::vector<VkDescriptorBufferInfo>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const auto& x, const auto& y) {
    return x.buffer == y.buffer && x.offset == y.offset && x.range == y.range;
  });
}
}  // namespace

// What the command buffer being recorded has bound, so that a dispatch binds only what changed.
struct VulkanPreparedPlan::BindState {
  const Pipeline* pipeline = nullptr;
  VkPipelineLayout layout = VK_NULL_HANDLE;  // of the pushed descriptors and constants
  const std::vector<VkDescriptorBufferInfo>* descriptors = nullptr;
  const std::vector<uint32_t>* push = nullptr;
};

void VulkanPreparedPlan::run(Trace& trace) {
  start(trace);
  wait();
}

void VulkanPreparedPlan::check_idle(const char* what) const {
  if (run_) throw GraphError(fmt::format("{}: the plan is running (start() without wait())", what));
}

// Every segment but a last submission runs here; that one is submitted and left to wait().
void VulkanPreparedPlan::start(Trace& trace) {
  check_idle("start");
  run_mark_ = ctx_.messages.size();
  check_inputs();
  auto state = std::make_unique<RunState>(trace, plan_);
  RunState& st = *state;
  trace.begin_run(plan_, "vulkan", ctx_.device_name());
  st.profile = trace.profile_tasks && ctx_.timestamp_valid_bits > 0 && !plan_.tasks.empty();
  if (st.profile && !task_queries_) {
    auto info = vk_struct<VkQueryPoolCreateInfo>(VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO);
    info.queryType = VK_QUERY_TYPE_TIMESTAMP;
    info.queryCount = static_cast<uint32_t>(2 * plan_.tasks.size());
    vk_check(ctx_.fn.vkCreateQueryPool(ctx_.device, &info, nullptr, &task_queries_), "vkCreateQueryPool");
  }
  reset_queries(st);
  held_by_run_ = std::move(held_);  // the host memory this run's copies read
  held_.clear();
  const size_t n = plan_.segments.size();
  for (size_t s = 0; s < n; ++s) {
    if (plan_.segments[s].kind != Segment::Kind::Submission) {
      run_host_segment(s, st);
      continue;
    }
    size_t last = s;
    while (last + 2 < n && inside_[last + 1]) last += 2;
    if (last == s)
      run_submission(s, st, s + 1 < n);
    else
      run_chain(s, last, st, last + 1 < n);
    s = last;
  }
  run_ = std::move(state);
}

void VulkanPreparedPlan::wait() {
  if (!run_) return;
  std::unique_ptr<RunState> state = std::move(run_);
  RunState& st = *state;
  const size_t mark = run_mark_;
  if (st.submitted >= 0) complete_submission(st);
  held_by_run_.clear();
  finish_run(st);
  if (!ctx_.submitted) {
    ctx_.submitted = true;
    arm_exit_guard(true);
  }
  ctx_.messages.throw_if_new(mark, "run");
  // Only now: a run that threw has filled nothing that later plans may read.
  for (BufferId id = 0; id < plan_.buffers.size(); ++id)
    if (loc_[id].persistent && plan_.memory.first_use[id] >= 0) loc_[id].persistent->written = true;
  // Inputs in the arena share memory with later transients, writable ones are overwritten: the
  // next run needs them again.
  for (BufferId id = 0; id < plan_.buffers.size(); ++id)
    if (plan_.buffers[id].lifetime == Lifetime::Input &&
        (plan_.memory.placement[id].in_arena() || plan_.buffers[id].writable))
      uploaded_[id] = false;
}

void VulkanPreparedPlan::check_inputs() const {
  for (BufferId id = 0; id < plan_.buffers.size(); ++id)
    if (plan_.buffers[id].lifetime == Lifetime::Input && !uploaded_[id] && plan_.memory.first_use[id] >= 0)
      throw InputError(fmt::format("input buffer '{}' was {} before run()", plan_.buffers[id].name,
                                   plan_.memory.placement[id].in_arena() || plan_.buffers[id].writable
                                       ? "not uploaded again (it lives in the transient arena or is writable: "
                                         "upload it before every run)"
                                       : "never uploaded"));
  for (BufferId id = 0; id < plan_.buffers.size(); ++id) {
    PersistentBuffer* p = loc_[id].persistent;
    if (p && plan_.read_before_written(id) && !p->written)
      throw InputError(
          fmt::format("Persistent buffer '{}' is read before anything wrote it (run its setup graph first)",
                      plan_.buffers[id].name));
  }
}

// Timestamp queries are reset before every run: from the host where the device allows it, else by
// the run's first prologue.
void VulkanPreparedPlan::reset_queries(RunState& st) {
  if (!ctx_.host_query_reset) return;
  if (queries_) ctx_.fn.vkResetQueryPool(ctx_.device, queries_, 0, query_count());
  if (st.profile)
    ctx_.fn.vkResetQueryPool(ctx_.device, task_queries_, 0, static_cast<uint32_t>(2 * plan_.tasks.size()));
  st.queries_reset = true;
}

void VulkanPreparedPlan::run_submission(size_t index, RunState& st, bool wait) {
  // The run's uploads on the transfer queue, where there is one, so that they overlap the device's
  // work on other plans (proofs in flight); this submission waits for them.
  const bool uploads = transfer_cb_ && submit_uploads(st);
  VkCommandBuffer cbs[2];
  size_t n = 0;
  if (needs_prologue(st)) {  // most runs need none: a replay records nothing at all
    begin_commands(ctx_, prologue_);
    record_prologue(prologue_, &st);
    end_commands(ctx_, prologue_);
    cbs[n++] = prologue_;
  }
  cbs[n++] = body(index, st.profile);
  st.submitted_at = st.now();
  submit(ctx_, queue_, {cbs, n}, fence_, uploads ? upload_done_ : VK_NULL_HANDLE);
  st.submitted = static_cast<int64_t>(index);
  st.chain_first = static_cast<int64_t>(index);
  if (wait) complete_submission(st);
}

void VulkanPreparedPlan::run_chain(size_t first, size_t last, RunState& st, bool wait) {
  const bool uploads = transfer_cb_ && submit_uploads(st);
  const size_t hosts = (last - first) / 2;
  // The batches: the first segment's (after the prologue, if any); then per host task, its
  // independent prefix (no wait: it runs while the host works) and the rest of the segment after
  // it, which waits for the task. A batch before a host task signals base + 2h + 1 (task h may
  // start); the host signals base + 2h + 2 (it is done).
  struct Batch {
    VkCommandBuffer cbs[2] = {VK_NULL_HANDLE, VK_NULL_HANDLE};
    uint32_t count = 0;
    uint64_t wait = 0, signal = 0;  // 0: none
    bool upload_wait = false;
  };
  const uint64_t base = timeline_value_;
  std::vector<Batch> batches;
  batches.reserve(2 * hosts + 1);
  Batch& b0 = batches.emplace_back();
  if (needs_prologue(st)) {
    begin_commands(ctx_, prologue_);
    record_prologue(prologue_, &st);
    end_commands(ctx_, prologue_);
    b0.cbs[b0.count++] = prologue_;
  }
  b0.cbs[b0.count++] = body(first, st.profile);
  b0.upload_wait = uploads;
  for (size_t h = 0; h < hosts; ++h) {
    batches.back().signal = base + 2 * h + 1;
    const size_t seg = first + 2 * h + 2;
    if (prefix_[seg] > 0) batches.push_back({{body(seg, st.profile, true)}, 1});
    batches.push_back({{body(seg, st.profile)}, 1, base + 2 * h + 2});
  }
  std::vector<VkTimelineSemaphoreSubmitInfo> values(batches.size());
  std::vector<VkSubmitInfo> infos(batches.size());
  const VkPipelineStageFlags stage = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
  for (size_t j = 0; j < batches.size(); ++j) {
    Batch& b = batches[j];
    VkTimelineSemaphoreSubmitInfo& v = values[j];
    v = vk_struct<VkTimelineSemaphoreSubmitInfo>(VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO);
    VkSubmitInfo& info = infos[j];
    info = vk_struct<VkSubmitInfo>(VK_STRUCTURE_TYPE_SUBMIT_INFO);
    info.pNext = &v;
    info.commandBufferCount = b.count;
    info.pCommandBuffers = b.cbs;
    if (b.wait != 0 || b.upload_wait) {
      info.waitSemaphoreCount = 1;
      info.pWaitSemaphores = b.upload_wait ? &upload_done_ : &timeline_;
      info.pWaitDstStageMask = &stage;
      v.waitSemaphoreValueCount = 1;
      v.pWaitSemaphoreValues = &b.wait;  // ignored for the binary upload semaphore
    }
    if (b.signal != 0) {
      info.signalSemaphoreCount = 1;
      info.pSignalSemaphores = &timeline_;
      v.signalSemaphoreValueCount = 1;
      v.pSignalSemaphoreValues = &b.signal;
    }
  }
  vk_check(ctx_.fn.vkResetFences(ctx_.device, 1, &fence_), "vkResetFences");
  st.submitted_at = st.now();
  // One vkQueueSubmit per batch, all issued before the host tasks run. One call carrying every
  // batch is what the API allows, but NVIDIA's driver (580.159, H200) then ran the batches after
  // the first without waiting for the host's values (executor_behaviour_test's host tasks inside
  // read and wrote nothing); per batch, it waits (docs/decisions.md, "The openings' sponge").
  for (size_t j = 0; j < batches.size(); ++j)
    vk_check(ctx_.fn.vkQueueSubmit(queue_, 1, &infos[j], j + 1 == batches.size() ? fence_ : VK_NULL_HANDLE),
             "vkQueueSubmit");
  st.submitted = static_cast<int64_t>(last);
  st.chain_first = static_cast<int64_t>(first);
  timeline_value_ = base + 2 * hosts;
  // The host tasks as the device reaches them. After one throws, the rest are skipped but their
  // values still signalled, so that the device finishes the submission before the error returns.
  // Where the submission is the run's last (left to wait()), on a thread of the run's own: start()
  // returns now, and wait() joins it (docs/decisions.md, "A batch's proofs").
  auto host_tasks = [this, &st, first, hosts, base] {
    try {
      for (size_t h = 0; h < hosts; ++h) {
        const uint64_t ready = base + 2 * h + 1, done = base + 2 * h + 2;
        if (!st.host_failure) {
          try {
            wait_timeline(ready);
          } catch (...) {
            st.host_failure = std::current_exception();
          }
        }
        if (!st.host_failure) run_inside(first + 2 * h + 1, st, st.host_failure);
        auto signal = vk_struct<VkSemaphoreSignalInfo>(VK_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO);
        signal.semaphore = timeline_;
        signal.value = done;
        vk_check(ctx_.fn.vkSignalSemaphore(ctx_.device, &signal), "vkSignalSemaphore");
      }
    } catch (...) {
      if (!st.host_failure) st.host_failure = std::current_exception();
      st.host_signal_failed = true;
    }
  };
  if (!wait) {
    st.host_thread = std::thread(host_tasks);
    return;
  }
  host_tasks();
  complete_submission(st);
}

void VulkanPreparedPlan::complete_submission(RunState& st) {
  if (st.host_thread.joinable()) st.host_thread.join();
  if (st.host_failure) {
    st.submitted = -1;
    st.chain_first = -1;
    if (!st.host_signal_failed) wait_fence(ctx_, fence_);
    std::rethrow_exception(std::exchange(st.host_failure, nullptr));
  }
  const size_t last = static_cast<size_t>(st.submitted);
  const size_t first = st.chain_first >= 0 ? static_cast<size_t>(st.chain_first) : last;
  st.submitted = -1;
  st.chain_first = -1;
  wait_fence(ctx_, fence_);
  const double start = st.submitted_at, done = st.now();
  st.trace.submit_wait_ms += done - start;
  TraceCounters& c = st.trace.counters;
  c.submissions++;
  c.host_syncs++;
  for (size_t index = first; index <= last; index += 2) {  // host tasks inside between
    for (const Step& step : plan_.segments[index].steps) {
      st.task_begin[step.task] = start;
      st.task_end[step.task] = done;
    }
    for (uint32_t s : segment_span_ends_[index]) st.stamped[s] = true;
    c.dispatches += segment_counts_[index].dispatches;
    c.barriers += segment_counts_[index].barriers;
  }
}

// Until the plan's timeline semaphore reaches `value`: polled for a while (a host task inside the
// submission is on the proof's critical path, and a blocking wait wakes late), then blocking. Not
// polled on a CPU implementation of Vulkan, whose threads the polling would slow.
void VulkanPreparedPlan::wait_timeline(uint64_t value) const {
  const int spin_ms = ctx_.properties.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU ? 0 : kTimelineSpinMs;
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::milliseconds(spin_ms);
  uint64_t now = 0;
  do {
    vk_check(ctx_.fn.vkGetSemaphoreCounterValue(ctx_.device, timeline_, &now), "vkGetSemaphoreCounterValue");
    if (now >= value) return;
    std::this_thread::yield();
  } while (std::chrono::steady_clock::now() < give_up);
  auto info = vk_struct<VkSemaphoreWaitInfo>(VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO);
  info.semaphoreCount = 1;
  info.pSemaphores = &timeline_;
  info.pValues = &value;
  vk_check(ctx_.fn.vkWaitSemaphores(ctx_.device, &info, UINT64_MAX),
           "vkWaitSemaphores (host task inside the submission)");
}

// The body of submission segment `index` (or its prefix that runs beside the host task before it),
// recorded on first use.
VkCommandBuffer VulkanPreparedPlan::body(size_t index, bool profile, bool prefix) {
  VkCommandBuffer& cb = prefix ? (profile ? prefix_body_profiled_[index] : prefix_body_[index])
                               : (profile ? body_profiled_[index] : body_[index]);
  if (cb) return cb;
  auto alloc = vk_struct<VkCommandBufferAllocateInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO);
  alloc.commandPool = pool_;
  alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  alloc.commandBufferCount = 1;
  vk_check(ctx_.fn.vkAllocateCommandBuffers(ctx_.device, &alloc, &cb), "vkAllocateCommandBuffers");
  begin_commands(ctx_, cb, true);
  record_body(cb, index, profile, prefix);
  end_commands(ctx_, cb);
  return cb;
}

void VulkanPreparedPlan::record_body(VkCommandBuffer cb, size_t index, bool profile, bool prefix) {
  const std::vector<Step>& steps = plan_.segments[index].steps;
  BindState bound;
  if (prefix) {
    for (size_t i = 0; i < prefix_[index]; ++i) record_step(cb, steps[i], profile, bound);
    return;
  }
  if (index >= 1 && inside_[index - 1]) record_after_inside(cb, index);
  for (size_t i = prefix_[index]; i < steps.size(); ++i) record_step(cb, steps[i], profile, bound);
  finish_commands(cb, index);
}

bool VulkanPreparedPlan::needs_prologue(const RunState& st) const {
  return (queries_ && !st.queries_reset) || !pending_.empty() || !persistents_.pending.empty();
}

// What a submission needs before its body in this run: query resets (devices without host query
// reset) and the uploads waiting in staging (Inputs, Persistents, host-task writes). False if none.
bool VulkanPreparedPlan::record_prologue(VkCommandBuffer cb, RunState* st) {
  bool any = false;
  if (st && queries_ && !st->queries_reset) {
    ctx_.fn.vkCmdResetQueryPool(cb, queries_, 0, query_count());
    if (st->profile) ctx_.fn.vkCmdResetQueryPool(cb, task_queries_, 0, static_cast<uint32_t>(2 * plan_.tasks.size()));
    st->queries_reset = true;
    any = true;
  }
  if (pending_.empty() && persistents_.pending.empty()) return any;
  memory_barrier(ctx_, cb, kBeforeUpload);
  record_upload_copies(cb, st, ctx_.timestamp_valid_bits, {persistents_.pending, pending_});
  memory_barrier(ctx_, cb, kAfterUpload);
  persistents_.pending.clear();
  pending_.clear();
  return true;
}

bool VulkanPreparedPlan::submit_uploads(RunState& st) {
  // The plan's own buffers only: a Persistent may be read by another plan in flight on the compute
  // queue, so its uploads stay in the prologue, ordered after that plan by the queue and a barrier.
  if (pending_.empty()) return false;
  begin_commands(ctx_, transfer_cb_);
  // No barrier before the copies: this plan's memory was last used by its previous run, which the
  // host has waited for; the semaphore orders them before the run's first submission.
  record_upload_copies(transfer_cb_, &st, ctx_.transfer_timestamp_bits, {pending_});
  end_commands(ctx_, transfer_cb_);
  auto info = vk_struct<VkSubmitInfo>(VK_STRUCTURE_TYPE_SUBMIT_INFO);
  info.commandBufferCount = 1;
  info.pCommandBuffers = &transfer_cb_;
  info.signalSemaphoreCount = 1;
  info.pSignalSemaphores = &upload_done_;
  vk_check(ctx_.fn.vkQueueSubmit(ctx_.transfer_queue, 1, &info, VK_NULL_HANDLE), "vkQueueSubmit (uploads)");
  pending_.clear();
  return true;
}

void VulkanPreparedPlan::record_upload_copies(VkCommandBuffer cb, RunState* st, uint32_t bits,
                                              std::initializer_list<std::span<const PendingCopy>> copies) {
  // The queries must have been reset before (from the host, or by a prologue recorded before these).
  const bool stamp = st && queries_ && st->queries_reset && st->upload_stamp_bits == 0 && bits > 0;
  if (stamp) ctx_.fn.vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, queries_, upload_query());
  for (std::span<const PendingCopy> c : copies) record_copies(ctx_, cb, c);
  if (stamp) {
    ctx_.fn.vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queries_, upload_query() + 1);
    st->upload_stamp_bits = bits;
  }
}

// The end of a submission: copies to staging for the host task that follows and (last submission)
// for Output downloads, then make everything visible to the host before the fence.
void VulkanPreparedPlan::finish_commands(VkCommandBuffer cb, size_t index) {
  bool host_next = index + 1 < plan_.segments.size() && plan_.segments[index + 1].kind == Segment::Kind::Host;
  bool last = static_cast<int64_t>(index) == last_submission_;
  if (host_next && inside_[index + 1] && queries_)  // the spans a host task inside the submission begins
    for (uint32_t s : span_begin_[plan_.segments[index + 1].steps[0].task])
      ctx_.fn.vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queries_, 2 * s);
  if (!host_next && !last) return;
  if (!ctx_.unified) {
    std::vector<PendingCopy> copies;
    if (host_next) copies = host_down_copies(plan_.segments[index + 1].steps[0].task);
    if (last)
      for (BufferId id = 0; id < loc_.size(); ++id)
        if (plan_.buffers[id].lifetime == Lifetime::Output)
          copies.push_back({loc_[id].buffer, loc_[id].staging->buffer(), {0, 0, loc_[id].capacity}});
    if (!copies.empty()) {
      memory_barrier(ctx_, cb, kBeforeDownload);
      record_copies(ctx_, cb, copies);
    }
  }
  memory_barrier(ctx_, cb, kToHost);
}

void VulkanPreparedPlan::record_step(VkCommandBuffer cb, const Step& step, bool profile, BindState& bound) const {
  if (step.barrier == BarrierKind::Memory) memory_barrier(ctx_, cb, kComputeToCompute);
  if (step.barrier == BarrierKind::Execution) execution_barrier(ctx_, cb);
  for (uint32_t s : span_begin_[step.task])
    if (queries_) ctx_.fn.vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, queries_, 2 * s);
  if (profile) ctx_.fn.vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, task_queries_, 2 * step.task);
  record_dispatch(cb, plan_.tasks[step.task], dispatch_[step.task], bound);
  if (profile) ctx_.fn.vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, task_queries_, 2 * step.task + 1);
  for (uint32_t s : span_end_[step.task])
    if (queries_) ctx_.fn.vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queries_, 2 * s + 1);
}

void VulkanPreparedPlan::record_dispatch(VkCommandBuffer cb, const Task& t, const DispatchRecord& d,
                                         BindState& bound) const {
  if (d.groups[0] == 0) return;  // grid.x == 0: a plan dispatch with nothing to run
  const VkFunctions& fn = ctx_.fn;
  if (debug_labels_) {
    auto label = vk_struct<VkDebugUtilsLabelEXT>(VK_STRUCTURE_TYPE_DEBUG_UTILS_LABEL_EXT);
    label.pLabelName = t.name.c_str();
    fn.vkCmdBeginDebugUtilsLabelEXT(cb, &label);
  }
  const Pipeline& p = *d.pipeline;
  if (bound.pipeline != &p) fn.vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, p.pipeline);
  // Push descriptors and constants stay bound while the layout does; push only what changed.
  const bool same_layout = bound.layout == p.layout;
  if (!d.descriptors.empty() && !(same_layout && same_descriptors(*bound.descriptors, d.descriptors))) {
    auto write = vk_struct<VkWriteDescriptorSet>(VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET);
    write.dstBinding = 0;
    write.descriptorCount = static_cast<uint32_t>(d.descriptors.size());
    write.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    write.pBufferInfo = d.descriptors.data();
    fn.vkCmdPushDescriptorSetKHR(cb, VK_PIPELINE_BIND_POINT_COMPUTE, p.layout, 0, 1, &write);
    bound.descriptors = &d.descriptors;
  }
  if (!(same_layout && *bound.push == d.push))
    fn.vkCmdPushConstants(cb, p.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, static_cast<uint32_t>(d.push.size() * 4),
                          d.push.data());
  bound.pipeline = &p;
  bound.layout = p.layout;
  bound.push = &d.push;
  if (d.descriptors.empty()) bound.descriptors = &d.descriptors;
  fn.vkCmdDispatch(cb, d.groups[0], d.groups[1], d.groups[2]);
  if (debug_labels_) fn.vkCmdEndDebugUtilsLabelEXT(cb);
}

// ---------------------------------------------------------------------------------------------
// After the last segment: counters, timestamps, spans.

void VulkanPreparedPlan::finish_run(RunState& st) {
  TraceCounters& c = st.trace.counters;
  c.submissions += deferred_submissions_;
  c.host_syncs += deferred_submissions_;
  deferred_submissions_ = 0;
  c.bytes_up += pending_bytes_up_;
  pending_bytes_up_ = 0;
  c.bytes_down += output_bytes_;
  c.peak_device_bytes = std::max(c.peak_device_bytes, device_bytes_);
  read_timestamps(st);
  read_task_timestamps(st);
  fill_spans(st);
  st.trace.total_host_ms += st.now();
}

double VulkanPreparedPlan::ticks_to_ms(uint64_t begin, uint64_t end, uint32_t bits) const {
  const uint64_t mask = bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
  const uint64_t a = begin & mask, b = end & mask;
  return static_cast<double>(b >= a ? b - a : 0) * ctx_.limits().timestampPeriod / 1e6;
}

void VulkanPreparedPlan::read_timestamps(RunState& st) {
  if (!queries_) return;
  if (st.upload_stamp_bits > 0) {
    uint64_t ticks[2] = {0, 0};
    vk_check(ctx_.fn.vkGetQueryPoolResults(ctx_.device, queries_, upload_query(), 2, sizeof(ticks), ticks,
                                           sizeof(uint64_t), VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT),
             "vkGetQueryPoolResults");
    st.trace.upload_device_ms = ticks_to_ms(ticks[0], ticks[1], st.upload_stamp_bits);
  }
  struct Edge {
    uint64_t begin = 0, end = 0;
  };
  std::vector<Edge> edges(plan_.spans.size());
  uint64_t t0 = UINT64_MAX;
  uint64_t mask = ctx_.timestamp_valid_bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << ctx_.timestamp_valid_bits) - 1;
  for (uint32_t s = 0; s < plan_.spans.size(); ++s) {
    if (!st.stamped[s]) continue;
    uint64_t ticks[2] = {0, 0};
    vk_check(ctx_.fn.vkGetQueryPoolResults(ctx_.device, queries_, 2 * s, 2, sizeof(ticks), ticks, sizeof(uint64_t),
                                           VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT),
             "vkGetQueryPoolResults");
    edges[s] = {ticks[0] & mask, ticks[1] & mask};
    t0 = std::min(t0, edges[s].begin);
  }
  const double ms_per_tick = ctx_.limits().timestampPeriod / 1e6;
  for (uint32_t s = 0; s < plan_.spans.size(); ++s) {
    if (!st.stamped[s]) continue;
    TraceSpan& span = st.trace.spans[s];
    double ms = static_cast<double>(edges[s].end >= edges[s].begin ? edges[s].end - edges[s].begin : 0) * ms_per_tick;
    span.device_start_ms = static_cast<double>(edges[s].begin - t0) * ms_per_tick;
    span.device_ms = span.device_ms < 0 ? ms : span.device_ms + ms;
  }
}

void VulkanPreparedPlan::read_task_timestamps(RunState& st) {
  if (!st.profile) return;
  for (uint32_t t = 0; t < plan_.tasks.size(); ++t) {
    if (plan_.tasks[t].kind != TaskKind::Dispatch) continue;
    uint64_t ticks[2] = {0, 0};
    vk_check(ctx_.fn.vkGetQueryPoolResults(ctx_.device, task_queries_, 2 * t, 2, sizeof(ticks), ticks, sizeof(uint64_t),
                                           VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT),
             "vkGetQueryPoolResults");
    st.trace.tasks[t].device_ms += ticks_to_ms(ticks[0], ticks[1], ctx_.timestamp_valid_bits);
  }
}

// Counts from the plan; host time from the first task's recording to the last task's wait (span 0,
// "run": the whole run).
void VulkanPreparedPlan::fill_spans(RunState& st) {
  const size_t n = plan_.spans.size();
  std::vector<double> begin(n, -1), end(n, -1);
  for (uint32_t t = 0; t < plan_.tasks.size(); ++t) {
    if (st.task_begin[t] < 0) continue;
    for (int32_t s = static_cast<int32_t>(plan_.tasks[t].span); s >= 0; s = plan_.spans[s].parent) {
      begin[s] = begin[s] < 0 ? st.task_begin[t] : std::min(begin[s], st.task_begin[t]);
      end[s] = std::max(end[s], st.task_end[t]);
    }
  }
  if (n > 0) {
    begin[0] = 0;
    end[0] = st.now();
  }
  for (size_t s = 0; s < n; ++s) {
    TraceSpan& span = st.trace.spans[s];
    span.dispatches += span_static_[s].dispatches;
    span.barriers += span_static_[s].barriers;
    span.submissions += span_static_[s].submissions;
    if (begin[s] < 0) continue;
    span.host_start_ms = begin[s];
    span.host_ms += std::max(end[s] - begin[s], 0.0);
  }
}

}  // namespace vkstark::vulkan
