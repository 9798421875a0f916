#include "executors/vulkan/vulkan_executor.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <limits>
#include <utility>

#include "executors/vulkan/context.hpp"
#include "executors/vulkan/persistents.hpp"
#include "executors/vulkan/pipelines.hpp"
#include "executors/vulkan/prepared_plan.hpp"
#include "runtime/error.hpp"

namespace vkstark {

namespace {

// Each kernel as dispatched with a grid wider than a subgroup (a kernel without a workgroup
// preference takes the default workgroup then: Pipelines::get).
std::vector<std::pair<const KernelInfo*, Grid>> dispatches_of(std::span<const KernelInfo* const> kernels) {
  std::vector<std::pair<const KernelInfo*, Grid>> out;
  for (const KernelInfo* k : kernels) out.emplace_back(k, Grid{std::numeric_limits<uint32_t>::max()});
  return out;
}

// Host memory of the device's that its copies read in place: registered with the context by address,
// so that an upload from it becomes a copy from this buffer (VulkanPreparedPlan::upload_bytes).
class VulkanHostMemory final : public HostMemory {
 public:
  VulkanHostMemory(const vulkan::Context& ctx, uint64_t bytes)
      : ctx_(ctx), buffer_(ctx, bytes, vulkan::MemoryUse::HostData, "host memory for uploads") {
    set(buffer_.mapped(), bytes);
    ctx_.add_host_memory(this, &buffer_);
  }
  ~VulkanHostMemory() override { ctx_.remove_host_memory(this); }

 private:
  const vulkan::Context& ctx_;
  vulkan::DeviceBuffer buffer_;
};

// The system's memory that processes may still take (MemAvailable of /proc/meminfo; unknown: no
// limit). The host heap's budget is a share of the machine's memory that does not shrink as this
// process fills its own heap (a 44 GB trace), so the staging check takes the lower of the two.
uint64_t system_memory_available() {
  std::FILE* f = std::fopen("/proc/meminfo", "r");
  if (f == nullptr) return ~uint64_t(0);
  char line[256];
  uint64_t kib = 0;
  bool found = false;
  while (!found && std::fgets(line, sizeof line, f) != nullptr)
    found = std::sscanf(line, "MemAvailable: %" SCNu64 " kB", &kib) == 1;
  std::fclose(f);
  return found ? kib * 1024 : ~uint64_t(0);
}

class VulkanExecutorImpl final : public VulkanExecutor {
 public:
  explicit VulkanExecutorImpl(const VulkanOptions& options)
      : ctx_(std::make_unique<vulkan::Context>(options)),
        pipelines_(std::make_unique<vulkan::Pipelines>(*ctx_)),
        persistents_(std::make_unique<vulkan::Persistents>(*ctx_)) {
    ctx_->messages.throw_if_new(0, "creating the Vulkan executor");
  }
  ~VulkanExecutorImpl() override {
    if (!vulkan::exit_guard_ran()) ctx_->fn.vkDeviceWaitIdle(ctx_->device);
    persistents_.reset();
    pipelines_.reset();  // saves the pipeline cache
  }
  VulkanExecutorImpl(const VulkanExecutorImpl&) = delete;
  VulkanExecutorImpl& operator=(const VulkanExecutorImpl&) = delete;

  std::string_view name() const override { return "vulkan"; }
  std::string device_name() const override { return ctx_->device_name(); }

  ExecutorLimits limits() const override {
    ExecutorLimits l;
    l.max_workgroup_size = ctx_->workgroup_size(0);
    l.subgroup_size = ctx_->subgroup_size;
    l.max_buffer_bytes = ctx_->max_allocation_bytes;
    l.max_binding_bytes = ctx_->max_binding_bytes;
    l.unified_memory = ctx_->unified;
    l.slow_shader_compiler = ctx_->properties.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU;
    // llvmpipe (lavapipe), the CPU implementation CI runs; assumed of any CPU device.
    if (l.slow_shader_compiler) l.max_shader_loop_iterations = 65535;
    for (uint32_t i = 0; i < ctx_->memory.memoryHeapCount; ++i)
      if (ctx_->memory.memoryHeaps[i].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT)
        l.device_memory_bytes = std::max<uint64_t>(l.device_memory_bytes, ctx_->memory.memoryHeaps[i].size);
    return apply_limit_overrides(l);
  }

  std::unique_ptr<PreparedPlan> do_prepare(std::shared_ptr<const Plan> plan) override {
    size_t mark = ctx_->messages.size();
    // Plans take the queues in turn: plans in flight together (start()) overlap where there are several.
    VkQueue queue = ctx_->queues[next_queue_++ % ctx_->queues.size()];
    auto prepared =
        std::make_unique<vulkan::VulkanPreparedPlan>(std::move(plan), *ctx_, *pipelines_, *persistents_, queue);
    ctx_->messages.throw_if_new(mark, "prepare");
    return prepared;
  }

  void compile_kernels(std::span<const KernelInfo* const> kernels) override {
    pipelines_->create_all(dispatches_of(kernels), true);
  }

  bool kernels_ready(std::span<const KernelInfo* const> kernels) override {
    return pipelines_->create_cached(dispatches_of(kernels));
  }

  // Larger than one allocation may be (or with unified memory, where uploads are a memcpy anyway):
  // ordinary memory, whose uploads go through staging.
  std::shared_ptr<HostMemory> host_memory(uint64_t bytes) override {
    if (ctx_->unified || bytes > ctx_->max_allocation_bytes) return anonymous_host_memory(bytes);
    return std::make_shared<VulkanHostMemory>(*ctx_, bytes);
  }

  // VK_EXT_memory_budget: the device-local heap plans take (the largest) and the host heap their
  // staging takes (a host-visible type's without device-local, as MemoryUse::Upload prefers).
  std::optional<MemoryAvailable> memory_available() const override {
    if (!ctx_->memory_budget) return std::nullopt;
    const std::vector<vulkan::Context::HeapState> heaps = ctx_->heaps();
    auto free_of = [&](size_t h) { return heaps[h].budget > heaps[h].usage ? heaps[h].budget - heaps[h].usage : 0; };
    MemoryAvailable out;
    int64_t device = -1, host = -1;
    for (size_t h = 0; h < heaps.size(); ++h)
      if (heaps[h].device_local && (device < 0 || heaps[h].size > heaps[size_t(device)].size)) device = int64_t(h);
    for (uint32_t i = 0; i < ctx_->memory.memoryTypeCount && !ctx_->unified; ++i) {
      const VkMemoryPropertyFlags f = ctx_->memory.memoryTypes[i].propertyFlags;
      if ((f & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) && !(f & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT)) {
        host = ctx_->memory.memoryTypes[i].heapIndex;
        break;
      }
    }
    if (device >= 0) out.device_bytes = free_of(size_t(device));
    if (host >= 0 && host != device) out.host_bytes = std::min(free_of(size_t(host)), system_memory_available());
    return out;
  }

  // VulkanPreparedPlan::allocate_memory: a staging copy per Input of the arena and per buffer of
  // its own that is neither Persistent (the executor stages those itself, when asked) nor unified.
  uint64_t staging_bytes(const Plan& plan) const override {
    if (ctx_->unified) return 0;
    uint64_t out = 0;
    for (BufferId id = 0; id < plan.buffers.size(); ++id) {
      const BufferDesc& b = plan.buffers[id];
      const bool arena = plan.memory.placement[id].in_arena();
      if ((arena && b.lifetime == Lifetime::Input) || (!arena && b.lifetime != Lifetime::Persistent))
        out += std::max<uint64_t>((b.bytes() + 15) / 16 * 16, vulkan::kMinBufferBytes);
    }
    return out;
  }

  std::vector<std::string> validation_messages() const override { return ctx_->messages.all(); }
  bool validation_enabled() const override { return ctx_->validation; }

 private:
  std::unique_ptr<vulkan::Context> ctx_;  // declared first: destroyed last
  std::unique_ptr<vulkan::Pipelines> pipelines_;
  std::unique_ptr<vulkan::Persistents> persistents_;
  size_t next_queue_ = 0;  // the queue the next prepared plan takes
};

}  // namespace

std::unique_ptr<Executor> make_vulkan_executor(const VulkanOptions& options) {
  return std::make_unique<VulkanExecutorImpl>(options);
}

std::vector<VulkanDeviceSummary> describe_vulkan_devices() {
  using namespace vulkan;
  VkFunctions fn;
  try {
    fn.load_global();
  } catch (const DeviceError&) {
    return {};
  }
  auto app = vk_struct<VkApplicationInfo>(VK_STRUCTURE_TYPE_APPLICATION_INFO);
  app.apiVersion = VK_API_VERSION_1_2;
  auto info = vk_struct<VkInstanceCreateInfo>(VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO);
  info.pApplicationInfo = &app;
  VkInstance instance = VK_NULL_HANDLE;
  if (fn.vkCreateInstance(&info, nullptr, &instance) != VK_SUCCESS) return {};
  std::vector<VulkanDeviceSummary> out;
  try {
    fn.load_instance(instance, false);
    for (const PhysicalDeviceInfo& d : describe_devices(fn, instance))
      out.push_back({d.index, d.properties.deviceName, d.properties.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU,
                     d.problem, d.describe()});
  } catch (const DeviceError&) {
  }
  if (fn.vkDestroyInstance) fn.vkDestroyInstance(instance, nullptr);
  return out;
}

std::vector<uint32_t> select_vulkan_devices(std::string_view wanted, bool allow_cpu_device) {
  using namespace vulkan;
  VkFunctions fn;
  fn.load_global();
  auto app = vk_struct<VkApplicationInfo>(VK_STRUCTURE_TYPE_APPLICATION_INFO);
  app.apiVersion = VK_API_VERSION_1_2;
  auto info = vk_struct<VkInstanceCreateInfo>(VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO);
  info.pApplicationInfo = &app;
  VkInstance instance = VK_NULL_HANDLE;
  vk_check(fn.vkCreateInstance(&info, nullptr, &instance), "vkCreateInstance");
  std::vector<PhysicalDeviceInfo> devices;
  try {
    fn.load_instance(instance, false);
    devices = describe_devices(fn, instance);
  } catch (...) {
    fn.vkDestroyInstance(instance, nullptr);
    throw;
  }
  fn.vkDestroyInstance(instance, nullptr);
  std::string listed = "devices:";
  for (const PhysicalDeviceInfo& d : devices) listed += "\n  " + d.describe();
  if (devices.empty()) listed = "the loader sees no Vulkan device";
  // Each entry of a list must name a device; "all" takes the usable ones.
  const bool all = wanted == "all";
  if (!all) {
    size_t begin = 0;
    while (begin <= wanted.size()) {
      const size_t end = std::min(wanted.find(',', begin), wanted.size());
      const std::string_view one = wanted.substr(begin, end - begin);
      if (one.empty()) throw InputError(fmt::format("Vulkan devices '{}': an empty entry", wanted));
      if (std::none_of(devices.begin(), devices.end(), [&](const auto& d) { return device_matches(d, one); }))
        throw DeviceError(fmt::format("no Vulkan device matches '{}' (of '{}'); {}", one, wanted, listed));
      begin = end + 1;
    }
  }
  std::vector<uint32_t> out;
  for (const PhysicalDeviceInfo& d : devices) {
    if (!device_matches(d, wanted)) continue;
    const bool cpu = d.properties.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU;
    if (!d.problem.empty()) {
      if (all) continue;
      throw DeviceError(fmt::format("Vulkan device {} cannot be used", d.describe()));
    }
    if (cpu && !allow_cpu_device) continue;
    out.push_back(d.index);
  }
  if (out.empty())
    throw DeviceError(fmt::format("no usable Vulkan device in '{}'{}; {}", wanted,
                                  allow_cpu_device ? "" : " (CPU implementations such as lavapipe are not used here)",
                                  listed));
  return out;
}

std::vector<std::string> list_vulkan_devices() {
  std::vector<std::string> names;
  for (const VulkanDeviceSummary& d : describe_vulkan_devices()) names.push_back(d.name);
  return names;
}

}  // namespace vkstark
