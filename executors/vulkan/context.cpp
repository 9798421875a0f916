#include "executors/vulkan/context.hpp"
#include "executors/vulkan/memory.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdlib>

#include "kernels/glsl/shaders.hpp"
#include "runtime/error.hpp"
#include "runtime/executor.hpp"
#include "runtime/kernel.hpp"
#include "runtime/log.hpp"
#include "runtime/spirv_interface.hpp"

namespace vkstark::vulkan {

spdlog::logger& logger() {
  static spdlog::logger& log = named_logger("vkstark.vulkan");
  return log;
}

namespace {

VKAPI_ATTR VkBool32 VKAPI_CALL on_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                          VkDebugUtilsMessageTypeFlagsEXT /*types*/,
                                          const VkDebugUtilsMessengerCallbackDataEXT* data, void* user) {
  try {
    bool error = severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
    std::string text = fmt::format("{} {}", error ? "error" : "warning", data && data->pMessage ? data->pMessage : "");
    if (error)
      logger().error("vulkan: {}", text);
    else
      logger().warn("vulkan: {}", text);
    static_cast<MessageLog*>(user)->add(std::move(text));
  } catch (...) {  // a C callback must not throw
  }
  return VK_FALSE;
}

VkDebugUtilsMessengerCreateInfoEXT messenger_info(MessageLog* log) {
  auto info = vk_struct<VkDebugUtilsMessengerCreateInfoEXT>(VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT);
  info.messageSeverity =
      VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
  info.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                     VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
  info.pfnUserCallback = on_message;
  info.pUserData = log;
  return info;
}

bool env_on(const char* name) {
  const char* v = std::getenv(name);
  return v && *v && std::string_view(v) != "0";
}

template <class T>
bool has_name(const std::vector<T>& props, std::string_view name) {
  return std::any_of(props.begin(), props.end(), [&](const T& p) {
    if constexpr (requires { p.layerName; })
      return std::string_view(p.layerName) == name;
    else
      return std::string_view(p.extensionName) == name;
  });
}

std::vector<VkExtensionProperties> instance_extensions(const VkFunctions& fn, const char* layer) {
  uint32_t n = 0;
  vk_check(fn.vkEnumerateInstanceExtensionProperties(layer, &n, nullptr), "vkEnumerateInstanceExtensionProperties");
  std::vector<VkExtensionProperties> out(n);
  vk_check(fn.vkEnumerateInstanceExtensionProperties(layer, &n, out.data()), "vkEnumerateInstanceExtensionProperties");
  out.resize(n);
  return out;
}

bool has_device_extension(const VkFunctions& fn, VkPhysicalDevice d, std::string_view name) {
  uint32_t n = 0;
  vk_check(fn.vkEnumerateDeviceExtensionProperties(d, nullptr, &n, nullptr), "vkEnumerateDeviceExtensionProperties");
  std::vector<VkExtensionProperties> out(n);
  vk_check(fn.vkEnumerateDeviceExtensionProperties(d, nullptr, &n, out.data()), "vkEnumerateDeviceExtensionProperties");
  out.resize(n);
  return has_name(out, name);
}

std::vector<VkLayerProperties> instance_layers(const VkFunctions& fn) {
  uint32_t n = 0;
  vk_check(fn.vkEnumerateInstanceLayerProperties(&n, nullptr), "vkEnumerateInstanceLayerProperties");
  std::vector<VkLayerProperties> out(n);
  vk_check(fn.vkEnumerateInstanceLayerProperties(&n, out.data()), "vkEnumerateInstanceLayerProperties");
  out.resize(n);
  return out;
}

constexpr const char* kValidationLayer = "VK_LAYER_KHRONOS_validation";

}  // namespace

void MessageLog::add(std::string message) {
  std::lock_guard lock(mutex_);
  messages_.push_back(std::move(message));
}

size_t MessageLog::size() const {
  std::lock_guard lock(mutex_);
  return messages_.size();
}

std::vector<std::string> MessageLog::all() const {
  std::lock_guard lock(mutex_);
  return messages_;
}

void MessageLog::throw_if_new(size_t mark, std::string_view operation) const {
  std::lock_guard lock(mutex_);
  if (messages_.size() <= mark) return;
  constexpr size_t kShown = 3;
  std::string text =
      fmt::format("{}: the Vulkan validation layer reported {} message(s):", operation, messages_.size() - mark);
  for (size_t i = mark; i < messages_.size() && i < mark + kShown; ++i) text += "\n  " + messages_[i];
  throw DeviceError(text);
}

Context::Context(const VulkanOptions& options) {
  profile = chosen_device_profile(options.device_profile);  // a bad name fails before any Vulkan call
  try {
    create_instance(options.validate || env_on("VKSTARK_VALIDATE"));
    std::vector<PhysicalDeviceInfo> devices = describe_devices(fn, instance);
    const PhysicalDeviceInfo& chosen = choose_device(devices, options);
    physical = chosen.handle;
    std::string transfer = options.transfer_queue;
    if (const char* env = std::getenv("VKSTARK_TRANSFER_QUEUE"); env && *env) transfer = env;
    if (transfer != "auto" && transfer != "off" && transfer != "same")
      throw InputError(
          fmt::format("VKSTARK_TRANSFER_QUEUE / VulkanOptions::transfer_queue '{}': expected auto, off "
                      "or same",
                      transfer));
    uint32_t compute_queues = options.compute_queues;
    if (const char* env = std::getenv("VKSTARK_COMPUTE_QUEUES"); env && *env) {
      char* end = nullptr;
      const unsigned long v = std::strtoul(env, &end, 10);
      if (*end != '\0' || v < 1 || v > kMaxQueues)
        throw InputError(
            fmt::format("VKSTARK_COMPUTE_QUEUES '{}': expected a number of queues from 1 to {}", env, kMaxQueues));
      compute_queues = uint32_t(v);
    }
    create_device(chosen, transfer, compute_queues);
    read_properties(options.force_staging);
    if (std::vector<std::string> missing = missing_needs(); !missing.empty()) {
      std::string list;
      for (const std::string& m : missing) list += "\n  - " + m;
      throw DeviceError(fmt::format("{}{} cannot run vkstark: it lacks{}", device_name(),
                                    profile ? fmt::format(" under device profile {}", profile->name) : "", list));
    }
    if (profile)
      logger().info("device profile {} ({}) on {}: subgroup path {}, {} memory, {} transfer queue", profile->name,
                    profile->description, device_name(), subgroup_shuffle ? "on" : "off",
                    unified ? "unified" : "staged", transfer_queue ? "a" : "no");
    arm_exit_guard();
  } catch (...) {
    destroy();
    throw;
  }
}

Context::~Context() { destroy(); }

void Context::destroy() noexcept {
  if (exit_guard_ran()) return;  // the process is ending and the driver may be gone (vk.hpp)
  if (device) {
    fn.vkDeviceWaitIdle(device);
    fn.vkDestroyDevice(device, nullptr);
    device = VK_NULL_HANDLE;
  }
  if (messenger) {
    fn.vkDestroyDebugUtilsMessengerEXT(instance, messenger, nullptr);
    messenger = VK_NULL_HANDLE;
  }
  if (instance) {
    fn.vkDestroyInstance(instance, nullptr);
    instance = VK_NULL_HANDLE;
  }
}

namespace {

// Layers, extensions and flags for the instance.
struct InstanceSetup {
  std::vector<const char*> extensions, layers;
  VkInstanceCreateFlags flags = 0;
  bool debug_utils = false;
  bool validation_features = false;
};

InstanceSetup instance_setup(const VkFunctions& fn, bool validate) {
  InstanceSetup setup;
  auto available = instance_extensions(fn, nullptr);
  if (has_name(available, VK_KHR_PORTABILITY_ENUMERATION_EXTENSION_NAME)) {  // MoltenVK and friends
    setup.extensions.push_back(VK_KHR_PORTABILITY_ENUMERATION_EXTENSION_NAME);
    setup.flags |= VK_INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR;
  }
  if (validate) {
    if (!has_name(instance_layers(fn), kValidationLayer))
      throw DeviceError(
          fmt::format("validation was asked for (VKSTARK_VALIDATE=1 or VulkanOptions::validate) but "
                      "{} is not installed",
                      kValidationLayer));
    setup.layers.push_back(kValidationLayer);
    auto layer_extensions = instance_extensions(fn, kValidationLayer);
    available.insert(available.end(), layer_extensions.begin(), layer_extensions.end());
    setup.validation_features = has_name(layer_extensions, VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME);
    if (setup.validation_features) setup.extensions.push_back(VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME);
  }
  setup.debug_utils = has_name(available, VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
  if (setup.debug_utils) setup.extensions.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
  if (validate && !setup.debug_utils)
    throw DeviceError("validation was asked for but " VK_EXT_DEBUG_UTILS_EXTENSION_NAME
                      " is missing: its messages could not be collected");
  return setup;
}

}  // namespace

void Context::create_instance(bool validate) {
  fn.load_global();
  uint32_t version = 0;
  vk_check(fn.vkEnumerateInstanceVersion(&version), "vkEnumerateInstanceVersion");
  if (version < VK_API_VERSION_1_2)
    throw DeviceError(fmt::format("the Vulkan loader supports Vulkan {}.{}; vkstark needs 1.2",
                                  VK_API_VERSION_MAJOR(version), VK_API_VERSION_MINOR(version)));
  InstanceSetup setup = instance_setup(fn, validate);
  auto app = vk_struct<VkApplicationInfo>(VK_STRUCTURE_TYPE_APPLICATION_INFO);
  app.pApplicationName = "vkstark";
  app.pEngineName = "vkstark";
  app.apiVersion = VK_API_VERSION_1_2;
  // Messages emitted while the instance is created or destroyed reach the log too.
  VkDebugUtilsMessengerCreateInfoEXT messages_info = messenger_info(&messages);
  VkValidationFeatureEnableEXT sync = VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT;
  auto features = vk_struct<VkValidationFeaturesEXT>(VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT);
  features.enabledValidationFeatureCount = 1;
  features.pEnabledValidationFeatures = &sync;
  if (setup.validation_features) messages_info.pNext = &features;

  auto info = vk_struct<VkInstanceCreateInfo>(VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO);
  info.pNext = validate ? &messages_info : nullptr;
  info.flags = setup.flags;
  info.pApplicationInfo = &app;
  info.enabledLayerCount = static_cast<uint32_t>(setup.layers.size());
  info.ppEnabledLayerNames = setup.layers.data();
  info.enabledExtensionCount = static_cast<uint32_t>(setup.extensions.size());
  info.ppEnabledExtensionNames = setup.extensions.data();
  VkResult created = fn.vkCreateInstance(&info, nullptr, &instance);
  if (created == VK_ERROR_INCOMPATIBLE_DRIVER)
    throw DeviceError("vkCreateInstance: VK_ERROR_INCOMPATIBLE_DRIVER (the Vulkan loader found no usable driver)");
  vk_check(created, "vkCreateInstance");
  debug_utils = setup.debug_utils;
  fn.load_instance(instance, debug_utils);
  validation = validate;
  if (validate) create_messenger();
}

void Context::create_messenger() {
  VkDebugUtilsMessengerCreateInfoEXT info = messenger_info(&messages);
  vk_check(fn.vkCreateDebugUtilsMessengerEXT(instance, &info, nullptr, &messenger), "vkCreateDebugUtilsMessengerEXT");
}

void Context::create_device(const PhysicalDeviceInfo& chosen, const std::string& transfer, uint32_t compute_queues) {
  queue_family = static_cast<uint32_t>(chosen.queue_family);
  timestamp_valid_bits = chosen.timestamp_valid_bits;
  const uint32_t nqueues =
      std::clamp<uint32_t>(chosen.queue_count, 1, std::clamp<uint32_t>(compute_queues, 1, kMaxQueues));
  const std::vector<float> priorities(nqueues, 1.0f);
  VkDeviceQueueCreateInfo queue_infos[2];
  auto& queue_info = queue_infos[0];
  queue_info = vk_struct<VkDeviceQueueCreateInfo>(VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO);
  queue_info.queueFamilyIndex = queue_family;
  queue_info.queueCount = nqueues;
  queue_info.pQueuePriorities = priorities.data();
  // One queue of the family for transfers only, where the device has one and it is wanted.
  const bool dedicated =
      transfer == "auto" && chosen.transfer_family >= 0 && (!profile || profile->dedicated_transfer_queue);
  if (dedicated) {
    queue_infos[1] = vk_struct<VkDeviceQueueCreateInfo>(VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO);
    queue_infos[1].queueFamilyIndex = static_cast<uint32_t>(chosen.transfer_family);
    queue_infos[1].queueCount = 1;
    queue_infos[1].pQueuePriorities = priorities.data();
  }
  // Kernels may use 64- and 16-bit integers where the device has them; view arrays need dynamic
  // indexing of storage-buffer arrays; runs reset their timestamp queries from the host.
  auto reset =
      vk_struct<VkPhysicalDeviceHostQueryResetFeatures>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_HOST_QUERY_RESET_FEATURES);
  auto timeline = vk_struct<VkPhysicalDeviceTimelineSemaphoreFeatures>(
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_FEATURES);
  reset.pNext = &timeline;
  auto supported = vk_struct<VkPhysicalDeviceFeatures2>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2);
  supported.pNext = &reset;
  fn.vkGetPhysicalDeviceFeatures2(physical, &supported);
  auto features = vk_struct<VkPhysicalDeviceFeatures2>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2);
  // A profile takes away what its device lacks.
  auto allowed = [&](VkBool32 has, bool profile_has) -> VkBool32 { return has && (!profile || profile_has); };
  features.features.shaderInt64 = allowed(supported.features.shaderInt64, profile && profile->shader_int64);
  features.features.shaderInt16 = allowed(supported.features.shaderInt16, profile && profile->shader_int16);
  shader_int64 = features.features.shaderInt64;
  shader_int16 = features.features.shaderInt16;
  features.features.shaderStorageBufferArrayDynamicIndexing =
      allowed(supported.features.shaderStorageBufferArrayDynamicIndexing,
              profile && profile->storage_buffer_array_dynamic_indexing);
  storage_buffer_array_indexing = features.features.shaderStorageBufferArrayDynamicIndexing;
  reset.hostQueryReset = allowed(reset.hostQueryReset, profile && profile->host_query_reset);
  timeline.timelineSemaphore = allowed(timeline.timelineSemaphore, profile && profile->timeline_semaphore);
  auto enable_reset =
      vk_struct<VkPhysicalDeviceHostQueryResetFeatures>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_HOST_QUERY_RESET_FEATURES);
  enable_reset.hostQueryReset = reset.hostQueryReset;
  host_query_reset = reset.hostQueryReset;
  // Host tasks inside a submission (HostPlacement::InSubmission) wait and signal timeline semaphores.
  auto enable_timeline = vk_struct<VkPhysicalDeviceTimelineSemaphoreFeatures>(
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_FEATURES);
  enable_timeline.timelineSemaphore = timeline.timelineSemaphore;
  timeline_semaphore = timeline.timelineSemaphore && std::getenv("VKSTARK_NO_TIMELINE_SEMAPHORE") == nullptr;
  enable_reset.pNext = &enable_timeline;
  features.pNext = &enable_reset;
  std::vector<const char*> extensions = {VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME};
  // An extension's feature struct, enabled (chained into `features`, the extension listed) when the
  // device has the extension and its feature: then true. `info` must outlive vkCreateDevice.
  auto enable = [&]<class T>(T& info, VkStructureType type, const char* extension, VkBool32 T::*feature) {
    if (!has_device_extension(fn, physical, extension)) return false;
    info = vk_struct<T>(type);
    auto query = vk_struct<VkPhysicalDeviceFeatures2>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2);
    query.pNext = &info;
    fn.vkGetPhysicalDeviceFeatures2(physical, &query);  // sets exactly the features the device has
    if (!(info.*feature)) return false;
    info.pNext = features.pNext;
    features.pNext = &info;
    extensions.push_back(extension);
    return true;
  };
  // Pipelines made from the pipeline cache only, or not at all (Pipelines::create_cached: a prover
  // asks whether generated kernels would compile before it uses them).
  VkPhysicalDevicePipelineCreationCacheControlFeaturesEXT cache_control_info{};
  cache_control =
      enable(cache_control_info, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_CREATION_CACHE_CONTROL_FEATURES_EXT,
             VK_EXT_PIPELINE_CREATION_CACHE_CONTROL_EXTENSION_NAME,
             &VkPhysicalDevicePipelineCreationCacheControlFeaturesEXT::pipelineCreationCacheControl);
  // Registers and spills per pipeline for VKSTARK_LOG_LEVEL=debug, where the driver reports them.
  VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR executable_info{};
  pipeline_statistics =
      logger().should_log(spdlog::level::debug) &&
      enable(executable_info, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR,
             VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME,
             &VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR::pipelineExecutableInfo);
  // What the driver would let this process allocate per heap (Context::heaps): the check before a
  // plan is prepared holds it against the heaps' budgets, not only their sizes.
  memory_budget = has_device_extension(fn, physical, VK_EXT_MEMORY_BUDGET_EXTENSION_NAME);
  if (memory_budget) extensions.push_back(VK_EXT_MEMORY_BUDGET_EXTENSION_NAME);
  // A device that lists VK_KHR_portability_subset (MoltenVK) must have it enabled (Vulkan spec,
  // VUID-VkDeviceCreateInfo-pProperties-04451); the compute paths here use none of what it restricts.
  portability_subset = has_device_extension(fn, physical, "VK_KHR_portability_subset");
  if (portability_subset) extensions.push_back("VK_KHR_portability_subset");
  auto info = vk_struct<VkDeviceCreateInfo>(VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO);
  info.pNext = &features;
  info.queueCreateInfoCount = dedicated ? 2 : 1;
  info.pQueueCreateInfos = queue_infos;
  info.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
  info.ppEnabledExtensionNames = extensions.data();
  vk_check(fn.vkCreateDevice(physical, &info, nullptr, &device), "vkCreateDevice");
  fn.load_device(device, pipeline_statistics);
  pipeline_statistics = pipeline_statistics && fn.vkGetPipelineExecutablePropertiesKHR != nullptr &&
                        fn.vkGetPipelineExecutableStatisticsKHR != nullptr;
  queues.assign(nqueues, VK_NULL_HANDLE);
  for (uint32_t i = 0; i < nqueues; ++i) fn.vkGetDeviceQueue(device, queue_family, i, &queues[i]);
  queue = queues[0];
  if (dedicated) {
    transfer_family = static_cast<uint32_t>(chosen.transfer_family);
    transfer_timestamp_bits = chosen.transfer_timestamp_bits;
    fn.vkGetDeviceQueue(device, transfer_family, 0, &transfer_queue);
  } else if (transfer == "same") {  // the last queue of the family: the first plans' are others where it has several
    transfer_family = queue_family;
    transfer_timestamp_bits = timestamp_valid_bits;
    transfer_queue = queues.back();
  }
}

void Context::read_properties(bool force_staging) {
  auto subgroup = vk_struct<VkPhysicalDeviceSubgroupProperties>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES);
  auto maintenance3 =
      vk_struct<VkPhysicalDeviceMaintenance3Properties>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES);
  auto push = vk_struct<VkPhysicalDevicePushDescriptorPropertiesKHR>(
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PUSH_DESCRIPTOR_PROPERTIES_KHR);
  auto size_control = vk_struct<VkPhysicalDeviceSubgroupSizeControlPropertiesEXT>(
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_PROPERTIES_EXT);
  maintenance3.pNext = &push;
  subgroup.pNext = &maintenance3;
  auto maintenance4 = vk_struct<VkPhysicalDeviceMaintenance4PropertiesKHR>(
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_4_PROPERTIES_KHR);
  const bool has_size_control = has_device_extension(fn, physical, VK_EXT_SUBGROUP_SIZE_CONTROL_EXTENSION_NAME);
  const bool has_maintenance4 = has_device_extension(fn, physical, VK_KHR_MAINTENANCE_4_EXTENSION_NAME);
  if (has_size_control) push.pNext = &size_control;
  if (has_maintenance4) {
    maintenance4.pNext = push.pNext;
    push.pNext = &maintenance4;
  }
  auto props2 = vk_struct<VkPhysicalDeviceProperties2>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2);
  props2.pNext = &subgroup;
  fn.vkGetPhysicalDeviceProperties2(physical, &props2);
  properties = props2.properties;
  subgroup_size = std::max(subgroup.subgroupSize, 1u);
  min_subgroup_size = has_size_control ? std::max(size_control.minSubgroupSize, 1u) : subgroup_size;
  max_subgroup_size = has_size_control ? std::max(size_control.maxSubgroupSize, 1u) : subgroup_size;
  constexpr VkSubgroupFeatureFlags kShuffle = VK_SUBGROUP_FEATURE_BASIC_BIT | VK_SUBGROUP_FEATURE_SHUFFLE_BIT;
  subgroup_ops = (subgroup.supportedOperations & kShuffle) == kShuffle &&
                 (subgroup.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) != 0 &&
                 (!profile || profile->subgroup_shuffle);
  // The subgroup paths run where the size is fixed at a size they are tested at, on the device and
  // on the profile's device (a profile whose device varies its size, or runs 64 wide, takes the
  // shared-memory paths here as it would there).
  auto tested = [](uint32_t lo, uint32_t hi) { return lo == hi && (lo == 16 || lo == 32); };
  // (subgroupSize lies in [min, max]: min = max is the size itself.)
  subgroup_shuffle = subgroup_ops && tested(min_subgroup_size, max_subgroup_size) &&
                     (!profile || tested(profile->min_subgroup_size, profile->max_subgroup_size));
  VkPhysicalDeviceLimits& l = properties.limits;
  // Every buffer is its own allocation: the smaller of the largest allocation and, where the device
  // states it (VK_KHR_maintenance4), the largest buffer (4 GiB on Intel's ANV).
  uint64_t allocation = maintenance3.maxMemoryAllocationSize;
  if (has_maintenance4 && maintenance4.maxBufferSize > 0)
    allocation = std::min<uint64_t>(allocation, maintenance4.maxBufferSize);
  max_push_descriptors = push.maxPushDescriptors;
  if (profile) {  // lower only: where the device has less, its value stays
    auto cap = [](auto& value, auto limit) {
      value = std::min<std::remove_reference_t<decltype(value)>>(value, limit);
    };
    cap(l.maxComputeSharedMemorySize, profile->max_compute_shared_memory_size);
    cap(l.maxComputeWorkGroupInvocations, profile->max_compute_workgroup_invocations);
    for (int i = 0; i < 3; ++i) {
      cap(l.maxComputeWorkGroupSize[i], profile->max_compute_workgroup_size[i]);
      cap(l.maxComputeWorkGroupCount[i], profile->max_compute_workgroup_count[i]);
    }
    cap(l.maxPushConstantsSize, profile->max_push_constants_size);
    cap(l.maxPerStageDescriptorStorageBuffers, profile->max_per_stage_descriptor_storage_buffers);
    cap(l.maxStorageBufferRange, profile->max_storage_buffer_range);
    cap(allocation, profile->max_memory_allocation_size);
    cap(max_push_descriptors, profile->max_push_descriptors);
  }
  max_storage_buffers =
      std::min({max_push_descriptors, l.maxPerStageDescriptorStorageBuffers, l.maxDescriptorSetStorageBuffers});
  {
    ExecutorLimits own;
    own.max_buffer_bytes = allocation;
    own.max_binding_bytes = l.maxStorageBufferRange;
    own = apply_limit_overrides(own);
    max_allocation_bytes = own.max_buffer_bytes;
    max_binding_bytes = own.max_binding_bytes;
  }
  fn.vkGetPhysicalDeviceMemoryProperties(physical, &memory);
  constexpr VkMemoryPropertyFlags kUnified = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT | VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                             VK_MEMORY_PROPERTY_HOST_COHERENT_BIT | VK_MEMORY_PROPERTY_HOST_CACHED_BIT;
  // Unified memory: an integrated or CPU device (or a profile of one) with a device-local, mapped,
  // coherent and host-cached memory type on its largest device-local heap. Not a discrete device's
  // mapped window (a resizable BAR), even under an integrated device's profile: the host reads it
  // uncached (the H200 under apple-m: the openings' host sponge read the opened values in 24.5 ms
  // instead of 1.6, docs/decisions.md).
  bool shared_type = profile ? profile->unified_memory
                             : properties.deviceType == VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU ||
                                   properties.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU;
  int64_t largest = -1;
  for (uint32_t h = 0; h < memory.memoryHeapCount; ++h)
    if ((memory.memoryHeaps[h].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) &&
        (largest < 0 || memory.memoryHeaps[h].size > memory.memoryHeaps[size_t(largest)].size))
      largest = h;
  bool has_type = false;
  for (uint32_t i = 0; i < memory.memoryTypeCount; ++i)
    has_type |= (memory.memoryTypes[i].propertyFlags & kUnified) == kUnified &&
                int64_t(memory.memoryTypes[i].heapIndex) == largest;
  unified = shared_type && has_type && !force_staging;
  logger().debug(
      "limits{}: subgroups {} ({}-{}, subgroup path {}), shared memory {}, workgroup {} invocations, push constants "
      "{}, "
      "storage buffers a kernel {}, binding {} bytes, allocation {} bytes (maxMemoryAllocationSize {}{}), {} memory",
      profile ? fmt::format(" under device profile {}", profile->name) : "", subgroup_size, min_subgroup_size,
      max_subgroup_size, subgroup_shuffle ? "on" : "off", l.maxComputeSharedMemorySize,
      l.maxComputeWorkGroupInvocations, l.maxPushConstantsSize, max_storage_buffers, max_binding_bytes,
      max_allocation_bytes, maintenance3.maxMemoryAllocationSize,
      has_maintenance4 ? fmt::format(", maxBufferSize {}", maintenance4.maxBufferSize) : "",
      unified ? "unified" : "staged");
  if (logger().should_log(spdlog::level::debug)) {
    const std::vector<HeapState> hs = heaps();
    for (uint32_t i = 0; i < hs.size(); ++i)
      logger().debug("memory heap {}: {} bytes{}, budget {}, in use {}{}", i, hs[i].size,
                     hs[i].device_local ? " (device-local)" : "", hs[i].budget, hs[i].usage,
                     memory_budget ? "" : " (no VK_EXT_memory_budget: the heap's size)");
    for (uint32_t i = 0; i < memory.memoryTypeCount; ++i) {
      const VkMemoryPropertyFlags f = memory.memoryTypes[i].propertyFlags;
      logger().debug("memory type {}: heap {},{}{}{}{}", i, memory.memoryTypes[i].heapIndex,
                     f & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT ? " device-local" : "",
                     f & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT ? " host-visible" : "",
                     f & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT ? " coherent" : "",
                     f & VK_MEMORY_PROPERTY_HOST_CACHED_BIT ? " cached" : "");
    }
  }
}

std::vector<Context::HeapState> Context::heaps() const {
  auto budget = vk_struct<VkPhysicalDeviceMemoryBudgetPropertiesEXT>(
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_BUDGET_PROPERTIES_EXT);
  auto props = vk_struct<VkPhysicalDeviceMemoryProperties2>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_PROPERTIES_2);
  if (memory_budget) props.pNext = &budget;
  fn.vkGetPhysicalDeviceMemoryProperties2(physical, &props);
  std::vector<HeapState> out;
  for (uint32_t i = 0; i < props.memoryProperties.memoryHeapCount; ++i) {
    const VkMemoryHeap& h = props.memoryProperties.memoryHeaps[i];
    HeapState s;
    s.size = h.size;
    s.device_local = h.flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT;
    s.budget = memory_budget ? std::min<uint64_t>(budget.heapBudget[i], h.size) : h.size;
    s.usage = memory_budget ? budget.heapUsage[i] : 0;
    out.push_back(s);
  }
  return out;
}

uint32_t Context::workgroup_size(uint32_t preference) const {
  // A kernel's own workgroup is the one its shared tiles are sized for: it is not lowered (a device
  // with fewer invocations refuses the kernel: kernel_missing_needs). The default is.
  if (preference) return preference;
  return std::max(std::min({256u, limits().maxComputeWorkGroupInvocations, limits().maxComputeWorkGroupSize[0]}), 1u);
}

namespace {

// One thing a kernel needs that the device lacks: the limit or feature, the device's value, what
// the kernel needs and the line that says so.
struct Missing {
  std::string limit;
  uint64_t have = 0, need = 0;
  std::string kernel, text;
};

std::vector<Missing> kernel_missing(const Context& ctx, std::string_view kernel, std::span<const uint32_t> spirv,
                                    uint32_t workgroup, bool fixed) {
  std::vector<Missing> out;
  auto add = [&](std::string limit, uint64_t have, uint64_t need, std::string text) {
    out.push_back({std::move(limit), have, need, std::string(kernel), std::move(text)});
  };
  const VkPhysicalDeviceLimits& l = ctx.limits();
  const std::pair<uint32_t, uint32_t> spec[] = {
      {0, workgroup}, {1, ctx.subgroup_size}, {2, ctx.subgroup_shuffle ? 1u : 0u}};
  const SpirvNeeds n = spirv_needs(spirv, spec);
  if (!n.error.empty()) {
    add("SPIR-V", 0, 0, fmt::format("kernel {}: its SPIR-V could not be read ({})", kernel, n.error));
    return out;
  }
  const uint32_t max_wg = std::min(l.maxComputeWorkGroupInvocations, l.maxComputeWorkGroupSize[0]);
  if (workgroup > max_wg)
    add("maxComputeWorkGroupInvocations", max_wg, workgroup,
        fmt::format("maxComputeWorkGroupInvocations / maxComputeWorkGroupSize[0] {}: kernel {} runs workgroups of "
                    "{} invocations{}",
                    max_wg, kernel, workgroup, fixed ? " (its shared tiles are sized for them)" : ""));
  if (n.shared_bytes > l.maxComputeSharedMemorySize)
    add("maxComputeSharedMemorySize", l.maxComputeSharedMemorySize, n.shared_bytes,
        fmt::format("maxComputeSharedMemorySize {}: kernel {} declares {} bytes of shared memory at {} invocations",
                    l.maxComputeSharedMemorySize, kernel, n.shared_bytes, workgroup));
  if (n.storage_buffers > ctx.max_storage_buffers)
    add("storage buffers", ctx.max_storage_buffers, n.storage_buffers,
        fmt::format("storage buffers a kernel may bind {} (maxPushDescriptors {}, maxPerStageDescriptorStorageBuffers "
                    "{}, maxDescriptorSetStorageBuffers {}): kernel {} binds {}",
                    ctx.max_storage_buffers, ctx.max_push_descriptors, l.maxPerStageDescriptorStorageBuffers,
                    l.maxDescriptorSetStorageBuffers, kernel, n.storage_buffers));
  if (n.push_constant_bytes > l.maxPushConstantsSize)
    add("maxPushConstantsSize", l.maxPushConstantsSize, n.push_constant_bytes,
        fmt::format("maxPushConstantsSize {}: kernel {} pushes {} bytes", l.maxPushConstantsSize, kernel,
                    n.push_constant_bytes));
  if (n.int64 && !ctx.shader_int64)
    add("shaderInt64", 0, 1, fmt::format("shaderInt64: kernel {} uses 64-bit integers", kernel));
  if (n.int16 && !ctx.shader_int16)
    add("shaderInt16", 0, 1, fmt::format("shaderInt16: kernel {} uses 16-bit integers", kernel));
  if ((n.subgroup_shuffle || n.subgroup_basic) && !ctx.subgroup_ops)
    add("subgroup operations", 0, 1,
        fmt::format("basic and shuffle subgroup operations in compute shaders: kernel {} declares them (it takes "
                    "its shared-memory path where they are off, but a module may only declare what the device "
                    "supports)",
                    kernel));
  return out;
}

}  // namespace

std::vector<std::string> Context::kernel_missing_needs(std::string_view kernel, std::span<const uint32_t> spirv,
                                                       uint32_t workgroup, bool fixed) const {
  std::vector<std::string> out;
  for (Missing& m : kernel_missing(*this, kernel, spirv, workgroup, fixed)) out.push_back(std::move(m.text));
  return out;
}

std::vector<std::string> Context::missing_needs() const {
  std::vector<std::string> out;
  if (max_push_descriptors == 0)
    out.push_back(VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME
                  " (maxPushDescriptors 0): every kernel binds its views with push descriptors");
  const uint32_t max_wg = std::min(limits().maxComputeWorkGroupInvocations, limits().maxComputeWorkGroupSize[0]);
  if (max_wg < kMaxFixedWorkgroupSize)
    out.push_back(
        fmt::format("maxComputeWorkGroupInvocations / maxComputeWorkGroupSize[0] {}: kernels run fixed "
                    "workgroups of up to {} invocations (kernels/registry.hpp)",
                    max_wg, kMaxFixedWorkgroupSize));
  // Every embedded kernel at the default workgroup (a kernel's shared tiles are sized by its own
  // constants, not by the specialization, so the sizes read are exact; its fixed workgroup is the
  // line above), one line a limit: the kernel that needs the most, and how many others need more
  // than the device has.
  std::vector<Missing> all;
  for (const EmbeddedShader& shader : embedded_shaders())
    for (Missing& m : kernel_missing(*this, shader.name, shader.words, workgroup_size(0), false))
      all.push_back(std::move(m));
  std::stable_sort(all.begin(), all.end(), [](const Missing& a, const Missing& b) {
    return a.limit != b.limit ? a.limit < b.limit : a.need > b.need;
  });
  for (size_t i = 0; i < all.size();) {
    size_t j = i;
    while (j < all.size() && all[j].limit == all[i].limit) ++j;
    std::string line = all[i].text;
    if (j - i > 1) line += fmt::format(" (and {} other kernel{})", j - i - 1, j - i > 2 ? "s" : "");
    out.push_back(std::move(line));
    i = j;
  }
  return out;
}

bool Context::debug_labels() const {
  const char* v = std::getenv("VKSTARK_DEBUG_LABELS");
  return fn.vkCmdBeginDebugUtilsLabelEXT && fn.vkCmdEndDebugUtilsLabelEXT && !(v && std::string_view(v) == "0");
}

void Context::set_name(VkObjectType type, uint64_t handle, const std::string& name) const {
  if (!fn.vkSetDebugUtilsObjectNameEXT || !handle) return;
  auto info = vk_struct<VkDebugUtilsObjectNameInfoEXT>(VK_STRUCTURE_TYPE_DEBUG_UTILS_OBJECT_NAME_INFO_EXT);
  info.objectType = type;
  info.objectHandle = handle;
  info.pObjectName = name.c_str();
  fn.vkSetDebugUtilsObjectNameEXT(device, &info);
}

// ---------------------------------------------------------------------------------------------
// Host memory the device copies from in place

void Context::add_host_memory(HostMemory* memory, const DeviceBuffer* buffer) const {
  std::lock_guard lock(host_mutex_);
  host_memory_[memory->data()] = {memory, buffer};
}

void Context::remove_host_memory(HostMemory* memory) const {
  std::lock_guard lock(host_mutex_);
  host_memory_.erase(memory->data());
}

std::optional<Context::HostSource> Context::host_source(std::span<const std::byte> bytes) const {
  if (bytes.empty()) return std::nullopt;
  std::lock_guard lock(host_mutex_);
  auto it = host_memory_.upper_bound(bytes.data());
  if (it == host_memory_.begin()) return std::nullopt;
  --it;
  const auto& [memory, buffer] = it->second;
  const uint64_t offset = static_cast<uint64_t>(bytes.data() - memory->data());
  if (offset + bytes.size() > memory->size()) return std::nullopt;
  std::shared_ptr<HostMemory> held = memory->weak_from_this().lock();
  if (!held) return std::nullopt;  // being destroyed
  return HostSource{buffer, offset, std::move(held)};
}

}  // namespace vkstark::vulkan
