// Preparing a plan: memory, dispatch records, span bookkeeping, command buffers; and transfers.
#include "executors/vulkan/prepared_plan.hpp"

#include <fmt/format.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <numeric>

#include "runtime/error.hpp"

namespace vkstark::vulkan {

VulkanPreparedPlan::VulkanPreparedPlan(std::shared_ptr<const Plan> plan, const Context& ctx, Pipelines& pipelines,
                                       Persistents& persistents, VkQueue queue)
    : PreparedPlan(std::move(plan)),
      ctx_(ctx),
      persistents_(persistents),
      queue_(queue),
      debug_labels_(ctx.debug_labels()) {
  try {
    allocate_memory();
    build_dispatches(pipelines);
    build_host_staging();
    decide_inside();
    build_spans();
    create_commands();
  } catch (...) {
    destroy_commands();
    throw;
  }
}

VulkanPreparedPlan::~VulkanPreparedPlan() {
  if (exit_guard_ran()) return;  // the process is ending and the driver may be gone (vk.hpp)
  ctx_.fn.vkDeviceWaitIdle(ctx_.device);
  destroy_commands();
}

// ---------------------------------------------------------------------------------------------
// Memory

void VulkanPreparedPlan::allocate_memory() {
  const MemoryUse device_use = ctx_.unified ? MemoryUse::Unified : MemoryUse::Device;
  loc_.resize(plan_.buffers.size());
  uploaded_.assign(plan_.buffers.size(), false);
  dummy_ = &owned_.emplace_back(ctx_, kMinBufferBytes, device_use, "zero-count views");
  dummy_written_ = &owned_.emplace_back(ctx_, kMinBufferBytes, device_use, "zero-count writable views");
  device_bytes_ = dummy_->size() + dummy_written_->size() + persistents_.device_bytes();
  // The transient arena: one allocation per chunk.
  std::vector<DeviceBuffer*> chunks;
  const std::vector<uint64_t>& sizes = plan_.memory.arena_chunks;
  for (size_t c = 0; c < sizes.size(); ++c) {
    chunks.push_back(&owned_.emplace_back(
        ctx_, sizes[c], device_use,
        sizes.size() == 1 ? std::string("transient arena") : fmt::format("transient arena {}", c)));
    device_bytes_ += chunks.back()->size();
  }
  for (BufferId id = 0; id < plan_.buffers.size(); ++id) {
    const Placement& pl = plan_.memory.placement[id];
    if (!pl.in_arena()) {
      place(id);
      continue;
    }
    const DeviceBuffer* arena = chunks.at(pl.chunk);
    Location& l = loc_[id];
    l.buffer = arena->buffer();
    l.offset = pl.offset;
    l.capacity = arena->size();
    if (arena->mapped()) l.host = arena->mapped() + l.offset;
    const BufferDesc& desc = plan_.buffers[id];
    if (desc.lifetime == Lifetime::Input && !ctx_.unified)  // its upload is copied from staging into the chunk
      l.staging = &owned_.emplace_back(ctx_, desc.bytes(), MemoryUse::Upload, desc.name + " (staging)");
  }
}

// A buffer with its own memory: Input, Output (owned by the plan) or Persistent (by the executor).
void VulkanPreparedPlan::place(BufferId id) {
  const BufferDesc& desc = plan_.buffers[id];
  Location& l = loc_[id];
  const DeviceBuffer* device = nullptr;
  if (desc.lifetime == Lifetime::Persistent) {
    bool is_new = !persistents_.contains(desc.name);
    l.persistent = &persistents_.get(desc);
    device = &l.persistent->device;
    if (is_new) device_bytes_ += device->size();
  } else {
    device = &owned_.emplace_back(ctx_, desc.bytes(), ctx_.unified ? MemoryUse::Unified : MemoryUse::Device, desc.name);
    device_bytes_ += device->size();
    if (desc.lifetime == Lifetime::Output) output_bytes_ += desc.bytes();
    if (!ctx_.unified) {
      MemoryUse use = desc.lifetime == Lifetime::Output ? MemoryUse::Download : MemoryUse::Upload;
      l.staging = &owned_.emplace_back(ctx_, desc.bytes(), use, desc.name + " (staging)");
    }
  }
  l.buffer = device->buffer();
  l.capacity = device->size();
  l.host = device->mapped();
  if (desc.lifetime == Lifetime::Constant) upload_bytes(id, 0, *desc.data);
}

// ---------------------------------------------------------------------------------------------
// Dispatches

void VulkanPreparedPlan::build_dispatches(Pipelines& pipelines) {
  std::vector<std::pair<const KernelInfo*, Grid>> dispatches;
  for (const Task& t : plan_.tasks)
    if (t.kind == TaskKind::Dispatch) dispatches.emplace_back(t.kernel.get(), t.grid);
  pipelines.create_all(dispatches);
  dispatch_.resize(plan_.tasks.size());
  for (uint32_t i = 0; i < plan_.tasks.size(); ++i)
    if (plan_.tasks[i].kind == TaskKind::Dispatch) dispatch_[i] = make_dispatch(plan_.tasks[i], pipelines);
}

DispatchRecord VulkanPreparedPlan::make_dispatch(const Task& t, Pipelines& pipelines) const {
  DispatchRecord d;
  d.pipeline = &pipelines.get(*t.kernel, t.grid);
  std::vector<uint32_t> first(t.bindings.size(), 0);
  for (size_t i = 0; i < t.bindings.size(); ++i) d.descriptors.push_back(window(t, t.bindings[i], first[i]));
  pack_push_constants(t.kernel->abi, t.grid, t.bindings, first, t.scalars, d.push);
  workgroups(t, d.pipeline->workgroup_size, d.groups);
  return d;
}

// The window bound for a view: from its byte offset rounded down to lcm(minStorageBufferOffset-
// Alignment, element size) to the view's end. `first` = the view's first element inside the window.
VkDescriptorBufferInfo VulkanPreparedPlan::window(const Task& t, const Binding& b, uint32_t& first) const {
  first = 0;
  // Zero-count views touch nothing, yet synchronization validation sees a writable descriptor as
  // a write of its range: read-only ones share one buffer nothing writes, writable ones another
  // (only scalar programs' spare out slots, and programs are ordered by the transcript).
  if (b.count == 0) {
    const DeviceBuffer* d = b.access == Access::Read ? dummy_ : dummy_written_;
    return {d->buffer(), 0, d->size()};
  }
  const Location& l = loc_[b.buffer];
  const BufferDesc& desc = plan_.buffers[b.buffer];
  const VkPhysicalDeviceLimits& lim = ctx_.limits();
  uint64_t align = std::lcm<uint64_t>(std::max<uint64_t>(lim.minStorageBufferOffsetAlignment, 1), b.type.size);
  if (l.offset % std::max<uint64_t>(lim.minStorageBufferOffsetAlignment, 1) != 0)
    throw DeviceError(
        fmt::format("task '{}': buffer '{}' is placed at byte {}, not a multiple of the device's "
                    "minStorageBufferOffsetAlignment {}",
                    t.name, desc.name, l.offset, lim.minStorageBufferOffsetAlignment));
  uint64_t start = b.byte_offset() / align * align;
  uint64_t range = std::max<uint64_t>(b.byte_offset() + b.byte_count() - start, 4);
  range = std::min(range, l.capacity - l.offset - start);
  if (range > ctx_.max_binding_bytes || b.count > UINT32_MAX)
    throw DeviceError(
        fmt::format("task '{}': its view of buffer '{}' needs a binding of {} bytes, more than the "
                    "device's maxStorageBufferRange {} (or VKSTARK_MAX_BINDING_BYTES)",
                    t.name, desc.name, range, ctx_.max_binding_bytes));
  first = static_cast<uint32_t>((b.byte_offset() - start) / b.type.size);
  return {l.buffer, l.offset + start, range};
}

// runtime.glsl: groups = ceil(grid.x / wg) along x, spilling into rows of VKS_SPILL_X = 65535 along y;
// grid.y along z.
// VKS_SPILL_X of runtime.glsl; at most maxComputeWorkGroupCount[0] on every device.
constexpr uint64_t kSpillGroupsX = 65535;

void VulkanPreparedPlan::workgroups(const Task& t, uint32_t wg, uint32_t groups[3]) const {
  const uint32_t* max = ctx_.limits().maxComputeWorkGroupCount;  // [0] >= 65535 (Vulkan)
  if (t.grid.y > max[2])
    throw DeviceError(fmt::format("task '{}': grid.y = {} exceeds the device's maxComputeWorkGroupCount[2] = {}",
                                  t.name, t.grid.y, max[2]));
  if (t.grid.x == 0 || t.grid.y == 0) return;
  uint64_t n = (uint64_t{t.grid.x} + wg - 1) / wg;
  uint64_t gx = n, gy = 1;
  if (n > kSpillGroupsX) {
    gx = kSpillGroupsX;
    gy = (n + gx - 1) / gx;
  }
  // The kernels' 32-bit index (vks_index_x) must not wrap over the launched invocations.
  if (gy > max[1] || gx * gy * wg > (uint64_t{1} << 32))
    throw DeviceError(
        fmt::format("task '{}': grid.x = {} needs {} x {} workgroups of {}, beyond the device's "
                    "maxComputeWorkGroupCount or 32-bit indexing",
                    t.name, t.grid.x, gx, gy, wg));
  groups[0] = static_cast<uint32_t>(gx);
  groups[1] = static_cast<uint32_t>(gy);
  groups[2] = t.grid.y;
}

// ---------------------------------------------------------------------------------------------
// Spans: static counts, and where the timestamps of each span's edges go.

void VulkanPreparedPlan::build_spans() {
  const size_t n_spans = plan_.spans.size();
  span_static_.assign(n_spans, {});
  span_begin_.assign(plan_.tasks.size(), {});
  span_end_.assign(plan_.tasks.size(), {});
  std::vector<int64_t> first(n_spans, -1), last(n_spans, -1);
  auto chain = [&](uint32_t task) {
    std::vector<uint32_t> c;
    for (int32_t s = static_cast<int32_t>(plan_.tasks[task].span); s >= 0; s = plan_.spans[s].parent)
      c.push_back(static_cast<uint32_t>(s));
    return c;
  };
  std::vector<bool> in_segment(n_spans, false);  // of the submission (segments joined by host tasks inside it)
  for (size_t i = 0; i < plan_.segments.size(); ++i) {
    const Segment& seg = plan_.segments[i];
    if (inside_[i]) {  // its spans' timestamps: at the end of the batch before it, the start of the one after
      for (uint32_t s : chain(seg.steps[0].task)) {
        if (first[s] < 0) first[s] = seg.steps[0].task;
        last[s] = seg.steps[0].task;
      }
      continue;
    }
    if (seg.kind != Segment::Kind::Submission) continue;
    const bool continued = i >= 1 && inside_[i - 1];
    if (!continued) in_segment.assign(n_spans, false);
    std::vector<bool> counted = in_segment;
    for (const Step& step : seg.steps)
      for (uint32_t s : chain(step.task)) {
        span_static_[s].dispatches++;
        if (step.barrier != BarrierKind::None) span_static_[s].barriers++;
        if (first[s] < 0) first[s] = step.task;
        last[s] = step.task;
        in_segment[s] = true;
      }
    for (size_t s = 0; s < n_spans; ++s) span_static_[s].submissions += in_segment[s] && !counted[s];
  }
  // A span that holds a host task inside the submission and ends in the work beside it ends where
  // the device resumes after both (record_after_inside), not when the work beside it is done.
  for (size_t i = 0; i + 1 < plan_.segments.size(); ++i) {
    if (!inside_[i]) continue;
    const uint32_t h = plan_.segments[i].steps[0].task;
    const std::vector<Step>& next = plan_.segments[i + 1].steps;
    for (uint32_t s : chain(h))
      for (uint32_t k = 0; k < prefix_[i + 1]; ++k)
        if (last[s] == static_cast<int64_t>(next[k].task)) last[s] = h;
  }
  // Begin timestamps outermost first, end timestamps innermost first.
  for (int64_t s = static_cast<int64_t>(n_spans) - 1; s >= 0; --s)
    if (last[s] >= 0) span_end_[last[s]].push_back(static_cast<uint32_t>(s));
  for (size_t s = 0; s < n_spans; ++s)
    if (first[s] >= 0) span_begin_[first[s]].push_back(static_cast<uint32_t>(s));
}

// ---------------------------------------------------------------------------------------------
// Command buffers, fence, timestamp queries

void VulkanPreparedPlan::create_commands() {
  const VkFunctions& fn = ctx_.fn;
  auto pool = vk_struct<VkCommandPoolCreateInfo>(VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO);
  pool.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  pool.queueFamilyIndex = ctx_.queue_family;
  vk_check(fn.vkCreateCommandPool(ctx_.device, &pool, nullptr, &pool_), "vkCreateCommandPool");
  const size_t n = plan_.segments.size();
  body_.assign(n, VK_NULL_HANDLE);
  body_profiled_.assign(n, VK_NULL_HANDLE);
  prefix_body_.assign(n, VK_NULL_HANDLE);
  prefix_body_profiled_.assign(n, VK_NULL_HANDLE);
  segment_span_ends_.assign(n, {});
  segment_counts_.assign(n, {});
  for (size_t s = 0; s < n; ++s) {
    if (plan_.segments[s].kind != Segment::Kind::Submission) continue;
    last_submission_ = static_cast<int64_t>(s);
    for (const Step& step : plan_.segments[s].steps) {
      segment_counts_[s].dispatches++;
      if (step.barrier != BarrierKind::None) segment_counts_[s].barriers++;
      for (uint32_t span : span_end_[step.task]) segment_span_ends_[s].push_back(span);
    }
    if (s >= 1 && inside_[s - 1])  // spans that end with the host task before it: stamped at its start
      for (uint32_t span : span_end_[plan_.segments[s - 1].steps[0].task]) segment_span_ends_[s].push_back(span);
  }
  VkCommandBuffer extra[2];
  auto alloc = vk_struct<VkCommandBufferAllocateInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO);
  alloc.commandPool = pool_;
  alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  alloc.commandBufferCount = 2;
  vk_check(fn.vkAllocateCommandBuffers(ctx_.device, &alloc, extra), "vkAllocateCommandBuffers");
  prologue_ = extra[0];
  spare_ = extra[1];
  auto fence = vk_struct<VkFenceCreateInfo>(VK_STRUCTURE_TYPE_FENCE_CREATE_INFO);
  vk_check(fn.vkCreateFence(ctx_.device, &fence, nullptr, &fence_), "vkCreateFence");
  if (std::find(inside_.begin(), inside_.end(), true) != inside_.end()) {
    auto type = vk_struct<VkSemaphoreTypeCreateInfo>(VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO);
    type.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
    type.initialValue = 0;
    auto semaphore = vk_struct<VkSemaphoreCreateInfo>(VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO);
    semaphore.pNext = &type;
    vk_check(fn.vkCreateSemaphore(ctx_.device, &semaphore, nullptr, &timeline_), "vkCreateSemaphore (timeline)");
  }
  if (ctx_.transfer_queue && !ctx_.unified) {
    auto tpool = vk_struct<VkCommandPoolCreateInfo>(VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO);
    tpool.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
    tpool.queueFamilyIndex = ctx_.transfer_family;
    vk_check(fn.vkCreateCommandPool(ctx_.device, &tpool, nullptr, &transfer_pool_), "vkCreateCommandPool");
    auto talloc = vk_struct<VkCommandBufferAllocateInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO);
    talloc.commandPool = transfer_pool_;
    talloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    talloc.commandBufferCount = 1;
    vk_check(fn.vkAllocateCommandBuffers(ctx_.device, &talloc, &transfer_cb_), "vkAllocateCommandBuffers");
    auto semaphore = vk_struct<VkSemaphoreCreateInfo>(VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO);
    vk_check(fn.vkCreateSemaphore(ctx_.device, &semaphore, nullptr, &upload_done_), "vkCreateSemaphore");
  }
  if (ctx_.timestamp_valid_bits > 0 && !plan_.spans.empty()) {
    auto queries = vk_struct<VkQueryPoolCreateInfo>(VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO);
    queries.queryType = VK_QUERY_TYPE_TIMESTAMP;
    queries.queryCount = query_count();
    vk_check(fn.vkCreateQueryPool(ctx_.device, &queries, nullptr, &queries_), "vkCreateQueryPool");
  }
  // Every body is recorded now, once: runs only submit them.
  for (size_t s = 0; s < n; ++s)
    if (plan_.segments[s].kind == Segment::Kind::Submission) {
      (void)body(s, false);
      if (prefix_[s] > 0) (void)body(s, false, true);
    }
}

void VulkanPreparedPlan::destroy_commands() noexcept {
  const VkFunctions& fn = ctx_.fn;
  if (queries_) fn.vkDestroyQueryPool(ctx_.device, queries_, nullptr);
  if (task_queries_) fn.vkDestroyQueryPool(ctx_.device, task_queries_, nullptr);
  task_queries_ = VK_NULL_HANDLE;
  if (fence_) fn.vkDestroyFence(ctx_.device, fence_, nullptr);
  if (pool_) fn.vkDestroyCommandPool(ctx_.device, pool_, nullptr);  // frees the command buffers
  if (transfer_pool_) fn.vkDestroyCommandPool(ctx_.device, transfer_pool_, nullptr);
  if (upload_done_) fn.vkDestroySemaphore(ctx_.device, upload_done_, nullptr);
  if (timeline_) fn.vkDestroySemaphore(ctx_.device, timeline_, nullptr);
  timeline_ = VK_NULL_HANDLE;
  transfer_pool_ = VK_NULL_HANDLE;
  transfer_cb_ = VK_NULL_HANDLE;
  upload_done_ = VK_NULL_HANDLE;
  queries_ = VK_NULL_HANDLE;
  fence_ = VK_NULL_HANDLE;
  pool_ = VK_NULL_HANDLE;
}

// ---------------------------------------------------------------------------------------------
// Transfers

namespace {
// memcpy, on the TBB pool for large copies (a keccakf trace is 345 MB: one thread copies it into
// staging memory in about 0.1 s).
void copy_bytes(void* dst, const void* src, size_t n) {
  constexpr size_t kPiece = size_t(4) << 20;
  if (n < 4 * kPiece) {
    if (n > 0) std::memcpy(dst, src, n);
    return;
  }
  tbb::parallel_for(size_t{0}, (n + kPiece - 1) / kPiece, [&](size_t i) {
    const size_t at = i * kPiece;
    std::memcpy(static_cast<std::byte*>(dst) + at, static_cast<const std::byte*>(src) + at, std::min(kPiece, n - at));
  });
}
}  // namespace

void VulkanPreparedPlan::upload_bytes(BufferId id, uint64_t at, std::span<const std::byte> bytes) {
  check_idle("upload");
  const Location& l = loc_[id];
  pending_bytes_up_ += bytes.size();
  uploaded_[id] = true;
  if (l.persistent) l.persistent->written = true;
  if (ctx_.unified) {  // the device is idle between runs: write the memory it reads
    copy_bytes(l.host + at, bytes.data(), bytes.size());
    return;
  }
  bool persistent = l.persistent != nullptr;
  std::vector<PendingCopy>& queue = persistent ? persistents_.pending : pending_;
  PendingCopy copy;
  if (std::optional<Context::HostSource> src = ctx_.host_source(bytes)) {
    // Host memory of the device's (Executor::host_memory): the device copies from it in place, and
    // the plan holds it until the run that copies it has finished.
    src->buffer->flush();
    copy = {src->buffer->buffer(), l.buffer, {src->offset, l.offset + at, bytes.size()}};
    held_.push_back(std::move(src->memory));
  } else {
    DeviceBuffer& staging = persistent ? l.persistent->staging_buffer(ctx_) : *l.staging;
    copy_bytes(staging.mapped() + at, bytes.data(), bytes.size());
    staging.flush();
    copy = {staging.buffer(), l.buffer, {at, l.offset + at, bytes.size()}};
  }
  // An upload again before the run replaces the earlier one's copy (same source and place).
  if (std::find(queue.begin(), queue.end(), copy) == queue.end()) queue.push_back(copy);
}

void VulkanPreparedPlan::download_bytes(BufferId id, std::span<std::byte> bytes) const {
  check_idle("download");
  size_t mark = ctx_.messages.size();
  const Location& l = loc_[id];
  if (ctx_.unified) {
    if (!bytes.empty()) std::memcpy(bytes.data(), l.host, bytes.size());
  } else if (l.persistent) {
    // download() is const for callers; the copy submission changes only internal state.
    const_cast<VulkanPreparedPlan*>(this)->download_persistent(id, bytes);
  } else {
    l.staging->invalidate();
    if (!bytes.empty()) std::memcpy(bytes.data(), l.staging->mapped(), bytes.size());
  }
  ctx_.messages.throw_if_new(mark, "download");
}

// Staging mode: a Persistent's data lives on the device only; copy it down with its own
// submission and wait (rare: tests and debugging). Counted in the next run's trace.
void VulkanPreparedPlan::download_persistent(BufferId id, std::span<std::byte> bytes) {
  const Location& l = loc_[id];
  DeviceBuffer& staging = l.persistent->staging_buffer(ctx_);
  VkCommandBuffer cb = spare_;
  begin_commands(ctx_, cb);
  record_prologue(cb, nullptr);
  memory_barrier(ctx_, cb, kBeforeDownload);
  PendingCopy copy{l.buffer, staging.buffer(), {0, 0, l.capacity}};
  record_copies(ctx_, cb, {&copy, 1});
  memory_barrier(ctx_, cb, kToHost);
  end_commands(ctx_, cb);
  submit(ctx_, queue_, {&cb, 1}, fence_);
  wait_fence(ctx_, fence_);
  ++deferred_submissions_;
  staging.invalidate();
  if (!bytes.empty()) std::memcpy(bytes.data(), staging.mapped(), bytes.size());
}

}  // namespace vkstark::vulkan
