// Internal to the Vulkan executor: the instance, the chosen device and its queue, the device's
// limits, and the validation-message log.
//
// Lifetime: owns every object it creates and destroys them (waiting for the device to be idle) in
// its destructor; everything else the executor creates must be destroyed first (they hold a
// `const Context&`). Thread-safety: immutable after construction except the MessageLog, which is
// thread-safe (the validation layer may call back from any thread).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <spdlog/logger.h>

#include "executors/vulkan/device_profile.hpp"
#include "executors/vulkan/vk.hpp"
#include "executors/vulkan/vulkan_executor.hpp"

namespace vkstark::vulkan {

// The executor's log ("vkstark.vulkan" on stderr); VKSTARK_LOG_LEVEL=debug|info|warn... sets its level
// (debug: the compile time of every pipeline).
spdlog::logger& logger();

// Warnings and errors from the validation layer.
class MessageLog {
 public:
  void add(std::string message);
  size_t size() const;
  std::vector<std::string> all() const;
  // Throws DeviceError listing (the first few of) the messages added after `mark`, if any.
  void throw_if_new(size_t mark, std::string_view operation) const;

 private:
  mutable std::mutex mutex_;
  std::vector<std::string> messages_;
};

// What device selection learned about one physical device.
struct PhysicalDeviceInfo {
  VkPhysicalDevice handle = VK_NULL_HANDLE;
  uint32_t index = 0;
  VkPhysicalDeviceProperties properties{};
  int32_t queue_family = -1;  // a family with compute, preferring one with timestamps
  uint32_t timestamp_valid_bits = 0;
  uint32_t queue_count = 0;      // queues of that family
  int32_t transfer_family = -1;  // a family for transfers only (copy engines), if the device has one
  uint32_t transfer_timestamp_bits = 0;
  std::string problem;  // why it cannot be used; empty if it can
  std::string describe() const;
};

// Every physical device of `instance`, with what makes it unusable (API < 1.2, no
// VK_KHR_push_descriptor, no compute queue).
std::vector<PhysicalDeviceInfo> describe_devices(const VkFunctions& fn, VkInstance instance);
// Whether `wanted` names d: an index or case-insensitive name substring, a comma-separated list of
// them, or "all".
bool device_matches(const PhysicalDeviceInfo& d, std::string_view wanted);
// The device to use under `options` (see VulkanOptions::device); DeviceError naming why none fits.
const PhysicalDeviceInfo& choose_device(const std::vector<PhysicalDeviceInfo>& devices, const VulkanOptions& options);

// Queues the executor takes from its family, at most (proofs in flight on one device).
inline constexpr uint32_t kMaxQueues = 4;

class DeviceBuffer;

class Context {
 public:
  explicit Context(const VulkanOptions& options);
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  const VkPhysicalDeviceLimits& limits() const { return properties.limits; }
  std::string device_name() const { return properties.deviceName; }
  // Invocations per workgroup for a kernel preferring `preference` (0: the default, 256), within
  // the device's limits.
  uint32_t workgroup_size(uint32_t preference) const;
  // Names an object for debuggers and validation messages (VK_EXT_debug_utils; no-op without it).
  void set_name(VkObjectType type, uint64_t handle, const std::string& name) const;
  // Whether recorded dispatches carry debug-utils labels with their task names: where the
  // extension is present, unless VKSTARK_DEBUG_LABELS=0.
  bool debug_labels() const;
  // What the device (under its profile) lacks of what the library's kernels need: one line each,
  // naming the limit, the value and what needs more. Empty when it has everything.
  std::vector<std::string> missing_needs() const;
  // What the device lacks of what one kernel needs (its SPIR-V read by spirv_needs at `workgroup`
  // invocations; `fixed`: the kernel's shared tiles are sized for exactly that workgroup): one line
  // each, the kernel named. Empty when it can run.
  std::vector<std::string> kernel_missing_needs(std::string_view kernel, std::span<const uint32_t> spirv,
                                                uint32_t workgroup, bool fixed) const;

  VkFunctions fn;
  VkInstance instance = VK_NULL_HANDLE;
  VkDebugUtilsMessengerEXT messenger = VK_NULL_HANDLE;
  VkPhysicalDevice physical = VK_NULL_HANDLE;
  VkDevice device = VK_NULL_HANDLE;
  VkQueue queue = VK_NULL_HANDLE;  // queues[0]: transfers of the executor's own (persistents)
  // Up to kMaxQueues queues of the family: prepared plans are spread over them, so that plans in
  // flight together (PreparedPlan::start) can overlap on the device.
  std::vector<VkQueue> queues;
  uint32_t queue_family = 0;
  uint32_t timestamp_valid_bits = 0;  // 0: no timestamps on this queue
  // Where runs submit their uploads (VulkanOptions::transfer_queue); null: with the run. A queue of
  // another family makes every buffer shared by the two (VK_SHARING_MODE_CONCURRENT).
  VkQueue transfer_queue = VK_NULL_HANDLE;
  uint32_t transfer_family = 0;
  uint32_t transfer_timestamp_bits = 0;
  bool shared_families() const { return transfer_queue != VK_NULL_HANDLE && transfer_family != queue_family; }
  VkPhysicalDeviceProperties properties{};
  VkPhysicalDeviceMemoryProperties memory{};
  // The device profile in force (VulkanOptions::device_profile), or null.
  const DeviceProfile* profile = nullptr;
  uint32_t subgroup_size = 1;  // VkPhysicalDeviceSubgroupProperties::subgroupSize
  // The sizes compute shaders may run at (VK_EXT_subgroup_size_control; without it, subgroup_size).
  uint32_t min_subgroup_size = 1, max_subgroup_size = 1;
  // Compute shaders may declare basic and shuffle subgroup operations (the device has them, and the
  // profile, if any).
  bool subgroup_ops = false;
  // Kernels take their subgroup paths (specialization constant VKS_SUBGROUP_SHUFFLE, runtime.glsl):
  // subgroup_ops, and the subgroup size is fixed (min = max) at one the library's kernels are tested
  // at, 16 (lavapipe) or 32 (NVIDIA), for the device and the profile. Elsewhere (varying sizes, 4, 8,
  // 64) they take their shared-memory paths, whose correctness does not depend on the size.
  bool subgroup_shuffle = false;
  bool shader_int64 = false, shader_int16 = false;  // enabled (the device's and the profile's)
  // Storage buffers one kernel may bind: the least of maxPushDescriptors, maxPerStageDescriptorStorageBuffers
  // and maxDescriptorSetStorageBuffers (a push-descriptor set layout counts against both).
  uint32_t max_storage_buffers = 0;
  bool portability_subset = false;  // VK_KHR_portability_subset listed by the device, so enabled
  // maxMemoryAllocationSize (VkPhysicalDeviceMaintenance3Properties) and maxStorageBufferRange, as
  // lowered by VKSTARK_MAX_ALLOCATION_BYTES / VKSTARK_MAX_BINDING_BYTES (apply_limit_overrides):
  // allocations and bindings are checked against these.
  uint64_t max_allocation_bytes = 0;
  uint64_t max_binding_bytes = 0;
  uint32_t max_push_descriptors = 32;          // VkPhysicalDevicePushDescriptorPropertiesKHR
  bool storage_buffer_array_indexing = false;  // shaderStorageBufferArrayDynamicIndexing (view arrays)
  bool host_query_reset = false;               // vkResetQueryPool from the host (Vulkan 1.2 feature)
  // Timeline semaphores (Vulkan 1.2 feature): host tasks run inside a submission. Off where the
  // device lacks them or VKSTARK_NO_TIMELINE_SEMAPHORE is set (such tasks then run Split).
  bool timeline_semaphore = false;
  // Pipelines are made with their statistics captured and logged (registers, spills, per shader
  // executable): VK_KHR_pipeline_executable_properties is there and the log level is debug.
  bool pipeline_statistics = false;
  bool cache_control = false;      // VK_EXT_pipeline_creation_cache_control enabled
  bool memory_budget = false;      // VK_EXT_memory_budget enabled: heaps() reports budgets and usage
  mutable bool submitted = false;  // a run has submitted work (arms the exit guard once more)
  bool debug_utils = false;
  bool validation = false;
  // Integrated or CPU device (or a device profile of one) with a DEVICE_LOCAL | HOST_VISIBLE |
  // HOST_COHERENT | HOST_CACHED memory type on its largest device-local heap: every buffer is mapped,
  // uploads and downloads are memcpy (no staging, no copies).
  bool unified = false;
  MessageLog messages;

  // HostMemory this device copies from in place (Executor::host_memory), by address. Thread-safe.
  struct HostSource {
    const DeviceBuffer* buffer = nullptr;
    uint64_t offset = 0;                 // of the bytes in the buffer
    std::shared_ptr<HostMemory> memory;  // held by the plan until the run that copies has finished
  };
  // Every memory heap now: its size, and with VK_EXT_memory_budget what the driver would let this
  // process allocate from it in all (budget: the heap less other processes' use, as the driver
  // sees it) and what this process holds there (usage); without it, budget = size and usage 0.
  struct HeapState {
    uint64_t size = 0, budget = 0, usage = 0;
    bool device_local = false;
  };
  std::vector<HeapState> heaps() const;
  void add_host_memory(HostMemory* memory, const DeviceBuffer* buffer) const;
  void remove_host_memory(HostMemory* memory) const;
  // The host memory that holds all of `bytes`, if any.
  std::optional<HostSource> host_source(std::span<const std::byte> bytes) const;

 private:
  mutable std::mutex host_mutex_;
  mutable std::map<const std::byte*, std::pair<HostMemory*, const DeviceBuffer*>> host_memory_;  // by start

  void create_instance(bool validate);
  void create_messenger();
  void create_device(const PhysicalDeviceInfo& info, const std::string& transfer_queue, uint32_t compute_queues);
  void read_properties(bool force_staging);
  void destroy() noexcept;
};

}  // namespace vkstark::vulkan
