// Host tasks: what they see (mapped memory, or staging copies of their declared views) and how
// their writes return to the device.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <exception>
#include <functional>

#include "executors/vulkan/prepared_plan.hpp"
#include "runtime/error.hpp"

namespace vkstark::vulkan {

class VulkanPreparedPlan::HostView final : public HostContext {
 public:
  HostView(const VulkanPreparedPlan& plan, uint32_t task) : plan_(plan), task_(task) {}

 protected:
  std::byte* address(BufferId buffer, uint64_t byte_offset, uint64_t bytes, Access access) const override {
    return plan_.host_address(task_, buffer, byte_offset, bytes, access);
  }

 private:
  const VulkanPreparedPlan& plan_;
  uint32_t task_;
};

namespace {

// Declared views as byte ranges of VkBuffers, merged where they overlap or touch.
std::vector<HostInterval> merge(std::vector<HostInterval> ranges) {
  std::sort(ranges.begin(), ranges.end(), [](const HostInterval& a, const HostInterval& b) {
    if (a.buffer != b.buffer) return std::less<VkBuffer>{}(a.buffer, b.buffer);
    return a.begin < b.begin;
  });
  std::vector<HostInterval> out;
  for (const HostInterval& r : ranges) {
    if (!out.empty() && out.back().buffer == r.buffer && r.begin <= out.back().end) {
      out.back().end = std::max(out.back().end, r.end);
      out.back().written |= r.written;
      if (out.back().owner != r.owner) out.back().owner = kNoBuffer;
    } else {
      out.push_back(r);
    }
  }
  return out;
}

}  // namespace

void VulkanPreparedPlan::build_host_staging() {
  host_.resize(plan_.tasks.size());
  host_read_bytes_.assign(plan_.tasks.size(), 0);
  for (uint32_t i = 0; i < plan_.tasks.size(); ++i) {
    const Task& t = plan_.tasks[i];
    if (t.kind != TaskKind::Host) continue;
    for (const Binding& b : t.bindings)
      if (reads(b.access)) host_read_bytes_[i] += b.byte_count();
    if (ctx_.unified) continue;
    std::vector<HostInterval> ranges;
    for (const Binding& b : t.bindings) {
      if (b.count == 0) continue;
      const Location& l = loc_[b.buffer];
      uint64_t begin = l.offset + b.byte_offset();
      const bool transient = plan_.memory.placement[b.buffer].in_arena();
      ranges.push_back(
          {transient ? kNoBuffer : b.buffer, l.buffer, begin, begin + b.byte_count(), 0, writes(b.access)});
    }
    HostStaging& hs = host_[i];
    hs.intervals = merge(std::move(ranges));
    uint64_t total = 0;
    for (HostInterval& iv : hs.intervals) {
      iv.staging_offset = total;
      total += (iv.end - iv.begin + 63) / 64 * 64;  // keeps every element type aligned on the host
    }
    if (!hs.intervals.empty())
      hs.staging = DeviceBuffer(ctx_, total, MemoryUse::Download, fmt::format("host task '{}' (staging)", t.name));
  }
}

// Which host tasks run inside a submission: those the plan places there, on a device with timeline
// semaphores, unless (staging mode) the task writes a Persistent, whose writes travel through the
// executor's own staging at a run's next prologue.
void VulkanPreparedPlan::decide_inside() {
  inside_.assign(plan_.segments.size(), false);
  prefix_.assign(plan_.segments.size(), 0);
  if (!ctx_.timeline_semaphore) return;
  for (size_t s = 0; s < plan_.segments.size(); ++s) {
    if (!plan_.host_inside(s)) continue;
    const uint32_t task = plan_.segments[s].steps[0].task;
    bool persistent = false;
    for (const HostInterval& iv : host_[task].intervals)
      persistent |= iv.written && iv.owner != kNoBuffer && loc_[iv.owner].persistent != nullptr;
    inside_[s] = !persistent;
    if (inside_[s]) prefix_[s + 1] = independent_prefix(task, plan_.segments[s + 1]);
  }
}

// The leading steps of `next` whose views overlap none of host task `task`'s, in memory (aliased
// transients included): they may run while the task does. The task's reads are not written under
// it (on unified memory it reads the buffers themselves) and its writes are not read or written.
uint32_t VulkanPreparedPlan::independent_prefix(uint32_t task, const Segment& next) const {
  struct Range {
    VkBuffer buffer;
    uint64_t begin, end;
  };
  auto range = [&](const Binding& b) {
    const Location& l = loc_[b.buffer];
    const uint64_t begin = l.offset + b.byte_offset();
    return Range{l.buffer, begin, begin + b.byte_count()};
  };
  std::vector<Range> host;
  for (const Binding& b : plan_.tasks[task].bindings)
    if (b.count > 0) host.push_back(range(b));
  uint32_t k = 0;
  for (const Step& step : next.steps) {
    for (const Binding& b : plan_.tasks[step.task].bindings) {
      if (b.count == 0) continue;
      const Range r = range(b);
      for (const Range& h : host)
        if (h.buffer == r.buffer && h.begin < r.end && r.begin < h.end) return k;
    }
    ++k;
  }
  return k;
}

std::vector<PendingCopy> VulkanPreparedPlan::host_down_copies(uint32_t task) const {
  std::vector<PendingCopy> copies;
  const HostStaging& hs = host_[task];
  // Written views are copied down too, so that what the task leaves unwritten keeps its value.
  for (const HostInterval& iv : hs.intervals)
    copies.push_back({iv.buffer, hs.staging.buffer(), {iv.begin, iv.staging_offset, iv.end - iv.begin}});
  return copies;
}

void VulkanPreparedPlan::run_host_segment(size_t index, RunState& st) {
  uint32_t task = plan_.segments[index].steps[0].task;
  const Task& t = plan_.tasks[task];
  bool after_submission = index > 0 && plan_.segments[index - 1].kind == Segment::Kind::Submission;
  if (!ctx_.unified && !host_[task].intervals.empty() && !after_submission) flush_for_host(task, st);
  st.task_begin[task] = st.now();
  if (host_[task].staging) host_[task].staging.invalidate();
  call_host(t, task);
  after_host_task(task);
  st.trace.counters.host_tasks++;
  st.trace.counters.bytes_down += host_read_bytes_[task];
  st.task_end[task] = st.now();
}

// Staging mode, no submission right before the host task: one copy-only submission brings the
// device's data (with earlier host writes applied) to its staging.
void VulkanPreparedPlan::flush_for_host(uint32_t task, RunState& st) {
  VkCommandBuffer cb = spare_;
  begin_commands(ctx_, cb);
  record_prologue(cb, &st);
  memory_barrier(ctx_, cb, kBeforeDownload);
  record_copies(ctx_, cb, host_down_copies(task));
  memory_barrier(ctx_, cb, kToHost);
  end_commands(ctx_, cb);
  submit(ctx_, queue_, {&cb, 1}, fence_);
  wait_fence(ctx_, fence_);
  st.trace.counters.submissions++;
  st.trace.counters.host_syncs++;
}

void VulkanPreparedPlan::call_host(const Task& t, uint32_t task) {
  HostView view(*this, task);
  try {
    t.host(view);
  } catch (const GraphError&) {
    throw;  // an access outside the declared views: a graph-building mistake, named by host_address
  } catch (const std::exception& e) {
    std::throw_with_nested(ExecutionError(fmt::format("host task '{}' failed: {}", t.name, e.what())));
  } catch (...) {
    std::throw_with_nested(ExecutionError(fmt::format("host task '{}' failed", t.name)));
  }
}

// Staging mode: written views go back to the device at the start of the next submission (and,
// for Outputs, into the download staging; for Persistents, through their own staging so that any
// plan of the executor sees them).
void VulkanPreparedPlan::after_host_task(uint32_t task, bool inside) {
  HostStaging& hs = host_[task];
  if (!hs.staging) return;
  hs.staging.flush();
  for (const HostInterval& iv : hs.intervals) {
    if (!iv.written) continue;
    // Inside a submission the next body copies it back (record_after_inside), and an Output goes
    // to its download staging with the last one.
    if (inside) continue;
    const uint64_t size = iv.end - iv.begin;
    const std::byte* src = hs.staging.mapped() + iv.staging_offset;
    const Location* l = iv.owner == kNoBuffer ? nullptr : &loc_[iv.owner];
    if (l && l->persistent) {
      DeviceBuffer& ps = l->persistent->staging_buffer(ctx_);
      std::memcpy(ps.mapped() + iv.begin, src, size);
      ps.flush();
      PendingCopy copy{ps.buffer(), iv.buffer, {iv.begin, iv.begin, size}};
      if (std::find(persistents_.pending.begin(), persistents_.pending.end(), copy) == persistents_.pending.end())
        persistents_.pending.push_back(copy);
      continue;
    }
    if (l && plan_.buffers[iv.owner].lifetime == Lifetime::Output) {
      std::memcpy(l->staging->mapped() + iv.begin, src, size);
      l->staging->flush();
    }
    PendingCopy copy{hs.staging.buffer(), iv.buffer, {iv.staging_offset, iv.begin, size}};
    if (std::find(pending_.begin(), pending_.end(), copy) == pending_.end()) pending_.push_back(copy);
  }
}

void VulkanPreparedPlan::record_after_inside(VkCommandBuffer cb, size_t index) const {
  const uint32_t task = plan_.segments[index - 1].steps[0].task;
  // The spans the task ends: when the device resumes, and the work beside the task is done.
  for (uint32_t s : span_end_[task])
    if (queries_) ctx_.fn.vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queries_, 2 * s + 1);
  memory_barrier(ctx_, cb, kFromHost);
  if (ctx_.unified) return;
  const HostStaging& hs = host_[task];
  std::vector<PendingCopy> copies;
  for (const HostInterval& iv : hs.intervals)
    if (iv.written)
      copies.push_back({hs.staging.buffer(), iv.buffer, {iv.staging_offset, iv.begin, iv.end - iv.begin}});
  if (copies.empty()) return;
  record_copies(ctx_, cb, copies);
  memory_barrier(ctx_, cb, kAfterUpload);
}

// Inside a submission: the device has signalled `index`'s start (its views in staging); the
// caller signals its end whatever happens here.
void VulkanPreparedPlan::run_inside(size_t index, RunState& st, std::exception_ptr& failure) {
  const uint32_t task = plan_.segments[index].steps[0].task;
  st.task_begin[task] = st.now();
  try {
    if (host_[task].staging) host_[task].staging.invalidate();
    call_host(plan_.tasks[task], task);
    after_host_task(task, true);
  } catch (...) {
    failure = std::current_exception();
    return;
  }
  st.trace.counters.host_tasks++;
  st.trace.counters.bytes_down += host_read_bytes_[task];
  st.task_end[task] = st.now();
}

std::byte* VulkanPreparedPlan::host_address(uint32_t task, BufferId buffer, uint64_t offset, uint64_t bytes,
                                            Access access) const {
  const Task& t = plan_.tasks[task];
  bool inside = false, allowed = false;
  for (const Binding& b : t.bindings) {
    if (b.buffer != buffer || offset < b.byte_offset() || offset + bytes > b.byte_offset() + b.byte_count()) continue;
    inside = true;
    allowed |= access == Access::Read || writes(b.access);
  }
  std::string name = buffer < plan_.buffers.size() ? plan_.buffers[buffer].name : fmt::format("#{}", buffer);
  if (!inside)
    throw GraphError(fmt::format("host task '{}': {} of bytes [{}, {}) of buffer '{}' is outside the views it declared",
                                 t.name, access == Access::Read ? "read" : "write", offset, offset + bytes, name));
  if (!allowed)
    throw GraphError(
        fmt::format("host task '{}': writes buffer '{}' through a view it declared read-only", t.name, name));
  const Location& l = loc_[buffer];
  if (ctx_.unified) return l.host + offset;
  const HostStaging& hs = host_[task];
  const uint64_t phys = l.offset + offset;
  for (const HostInterval& iv : hs.intervals)
    if (iv.buffer == l.buffer && iv.begin <= phys && phys + bytes <= iv.end)
      return hs.staging.mapped() + iv.staging_offset + (phys - iv.begin);
  return nullptr;  // an empty view: no bytes to address
}

}  // namespace vkstark::vulkan
