// Internal to the Vulkan executor: device profiles. A profile caps every limit and feature the
// executor reads to a named device's values (taken from that device's driver sources, named beside
// each value in executors/vulkan/profiles/*.inc), so that what a prover needs of an AMD, Intel or
// Apple GPU is tested on the devices we have (lavapipe, the H200): under a profile a proof either
// runs with the same bytes or is refused at once with the list of what the device lacks.
//
// Selected by VulkanOptions::device_profile or VKSTARK_DEVICE_PROFILE=<name> (the environment wins).
// A profile only lowers: where the real device has less than the profile, the device's value stays.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace vkstark::vulkan {

struct DeviceProfile {
  std::string_view name;         // "apple-m"
  std::string_view description;  // the devices and driver it stands for
  std::string_view source;       // the driver sources and versions its values come from

  // Subgroups (VkPhysicalDeviceSubgroupProperties, VK_EXT_subgroup_size_control): the sizes a
  // compute shader may run at on such a device, and whether compute shaders have basic + shuffle
  // subgroup operations.
  uint32_t min_subgroup_size = 0;
  uint32_t max_subgroup_size = 0;
  bool subgroup_shuffle = false;

  // VkPhysicalDeviceLimits the executor reads.
  uint32_t max_compute_shared_memory_size = 0;
  uint32_t max_compute_workgroup_invocations = 0;
  uint32_t max_compute_workgroup_size[3] = {0, 0, 0};
  uint32_t max_compute_workgroup_count[3] = {0, 0, 0};
  uint32_t max_push_constants_size = 0;
  uint32_t max_per_stage_descriptor_storage_buffers = 0;
  uint32_t max_storage_buffer_range = 0;
  // VkPhysicalDeviceMaintenance3Properties::maxMemoryAllocationSize.
  uint64_t max_memory_allocation_size = 0;
  // VkPhysicalDevicePushDescriptorPropertiesKHR::maxPushDescriptors; 0: no VK_KHR_push_descriptor.
  uint32_t max_push_descriptors = 0;

  // Features (VkPhysicalDeviceFeatures, Vulkan 1.2 features).
  bool shader_int64 = false;
  bool shader_int16 = false;
  bool storage_buffer_array_dynamic_indexing = false;
  bool timeline_semaphore = false;
  bool host_query_reset = false;

  // Queues and memory.
  bool dedicated_transfer_queue = false;  // a queue family with transfer and neither compute nor graphics
  bool unified_memory = false;            // every heap host-visible: uploads without staging
  bool portability_subset = false;        // VK_KHR_portability_subset listed (and so enabled)
};

// Every profile, in a fixed order.
std::span<const DeviceProfile> device_profiles();
// The profile named `name`; InputError listing the names when there is none.
const DeviceProfile& device_profile(std::string_view name);
// The profile to use: VKSTARK_DEVICE_PROFILE when set (non-empty), else `option`; "" or "none": none.
const DeviceProfile* chosen_device_profile(std::string_view option);

}  // namespace vkstark::vulkan
