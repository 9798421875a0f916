#include "runtime/executor.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cstdlib>

#include "runtime/error.hpp"

namespace vkstark {

namespace {

// The value of a byte-count variable, or ~0 when unset.
uint64_t env_bytes(const char* name) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return ~uint64_t(0);
  const std::string_view s(v);
  uint64_t out = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  if (ec != std::errc() || end != s.data() + s.size() || out < 4096)
    throw InputError(fmt::format("{}='{}': expected a whole number of bytes, at least 4096", name, s));
  return out;
}

struct Overrides {
  uint64_t allocation, binding, memory;
};
const Overrides& overrides() {
  static const Overrides o{env_bytes("VKSTARK_MAX_ALLOCATION_BYTES"), env_bytes("VKSTARK_MAX_BINDING_BYTES"),
                           env_bytes("VKSTARK_DEVICE_MEMORY_BYTES")};
  return o;
}

}  // namespace

ExecutorLimits apply_limit_overrides(ExecutorLimits limits) {
  const Overrides& o = overrides();
  limits.max_buffer_bytes = std::min(limits.max_buffer_bytes, o.allocation);
  limits.max_binding_bytes = std::min(limits.max_binding_bytes, o.binding);
  limits.device_memory_bytes = std::min(limits.device_memory_bytes, o.memory);
  return limits;
}

MemoryLimits memory_limits(const ExecutorLimits& limits) {
  return {.max_allocation_bytes = limits.max_buffer_bytes, .max_binding_bytes = limits.max_binding_bytes};
}

void check_plan_fits(const Plan& plan, const ExecutorLimits& limits, std::string_view device) {
  const MemoryPlan& m = plan.memory;
  const uint64_t needed = plan_device_bytes(m);
  if (needed > limits.device_memory_bytes)
    throw DeviceError(fmt::format(
        "out of device memory: the plan needs {} bytes ({}), more than the {} bytes of {} (its largest device-local "
        "heap, or VKSTARK_DEVICE_MEMORY_BYTES); nothing was allocated. Prove smaller traces, fewer at once, or on a "
        "device with more memory",
        needed, format_memory_breakdown(memory_breakdown(plan)), limits.device_memory_bytes, device));
  for (size_t c = 0; c < m.arena_chunks.size(); ++c)
    if (m.arena_chunks[c] > limits.max_buffer_bytes)
      throw DeviceError(fmt::format(
          "out of device memory: transient arena chunk {} needs {} bytes, more than {} allows in one allocation ({}); "
          "the plan was compiled for larger allocations: compile it with memory_limits(executor.limits())",
          c, m.arena_chunks[c], device, limits.max_buffer_bytes));
  for (BufferId id = 0; id < plan.buffers.size(); ++id)
    if (!m.placement[id].in_arena() && plan.buffers[id].bytes() > limits.max_buffer_bytes)
      throw DeviceError(fmt::format(
          "out of device memory: buffer '{}' needs {} bytes, more than {} allows in one allocation ({}); the plan was "
          "compiled for larger allocations: compile it with memory_limits(executor.limits())",
          plan.buffers[id].name, plan.buffers[id].bytes(), device, limits.max_buffer_bytes));
  const MemoryLimits mine = memory_limits(limits);
  const MemoryLimits& compiled = plan.options.limits;
  if (compiled.max_binding_bytes <= mine.max_binding_bytes &&
      compiled.max_allocation_bytes <= mine.max_allocation_bytes)
    return;  // compile() checked the views against these or tighter limits
  for (const Task& t : plan.tasks) {
    if (t.kind != TaskKind::Dispatch) continue;
    for (const Binding& b : t.bindings)
      if (b.used() && !mine.binds(b.byte_offset(), b.byte_count()))
        throw DeviceError(fmt::format(
            "task '{}': its view of buffer '{}' is {} bytes from byte {}, more than {} can bind ({} bytes); the plan "
            "was compiled for larger bindings: compile it with memory_limits(executor.limits())",
            t.name, plan.buffers[b.buffer].name, b.byte_count(), b.byte_offset(), device,
            std::min(mine.max_binding_bytes, mine.max_allocation_bytes)));
  }
}

std::unique_ptr<PreparedPlan> Executor::prepare(std::shared_ptr<const Plan> plan) {
  if (!plan) throw InputError("prepare: no plan (null pointer)");
  check_plan_fits(*plan, limits(), device_name());
  if (const std::optional<MemoryAvailable> free = memory_available()) {
    const uint64_t needed = plan_device_bytes(plan->memory), staging = staging_bytes(*plan);
    if (needed > free->device_bytes)
      throw DeviceError(fmt::format(
          "out of device memory: the plan needs {} bytes ({}), but the driver lets this process allocate only {} more "
          "bytes of {} now (its memory budget, less what the process holds: other prepared proofs, committed traces, "
          "host memory for uploads; and what other processes hold); nothing was allocated. Release other prepared "
          "proofs first, lower the proof's memory (--device-memory), or prove smaller traces",
          needed, format_memory_breakdown(memory_breakdown(*plan)), free->device_bytes, device_name()));
    if (staging > free->host_bytes)
      throw DeviceError(fmt::format(
          "out of host memory for staging: the plan's uploads and downloads go through {} bytes of host-visible "
          "memory, but the driver lets this process allocate only {} more bytes of it now; nothing was allocated. "
          "Prove smaller traces, or fewer at once",
          staging, free->host_bytes));
  }
  return do_prepare(std::move(plan));
}

}  // namespace vkstark
