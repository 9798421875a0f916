// Internal to the Vulkan executor: the Vulkan API as a table of function pointers, the loader, and
// VkResult checking. Nothing here is linked against libvulkan: the loader (libvulkan.so.1) is opened
// at run time, so a machine without Vulkan still runs the CPU executor and make_vulkan_executor()
// says "no loader" instead of the program failing to start.
//
// Lifetime: a VkFunctions table is valid while its instance / device lives. Thread-safety: the table
// is immutable after loading; the functions themselves follow Vulkan's external synchronization rules.
#pragma once

#ifndef VK_NO_PROTOTYPES
#define VK_NO_PROTOTYPES
#endif
#include <vulkan/vulkan.h>

#include <functional>
#include <string>
#include <string_view>

namespace vkstark::vulkan {

// Functions every loader exports (vkGetInstanceProcAddr with a null instance).
#define VKSTARK_VK_GLOBAL_FUNCTIONS(X)      \
  X(vkCreateInstance)                       \
  X(vkEnumerateInstanceVersion)             \
  X(vkEnumerateInstanceExtensionProperties) \
  X(vkEnumerateInstanceLayerProperties)

#define VKSTARK_VK_INSTANCE_FUNCTIONS(X)      \
  X(vkDestroyInstance)                        \
  X(vkEnumeratePhysicalDevices)               \
  X(vkGetPhysicalDeviceProperties)            \
  X(vkGetPhysicalDeviceProperties2)           \
  X(vkGetPhysicalDeviceFeatures)              \
  X(vkGetPhysicalDeviceFeatures2)             \
  X(vkGetPhysicalDeviceQueueFamilyProperties) \
  X(vkGetPhysicalDeviceMemoryProperties)      \
  X(vkGetPhysicalDeviceMemoryProperties2)     \
  X(vkEnumerateDeviceExtensionProperties)     \
  X(vkCreateDevice)                           \
  X(vkGetDeviceProcAddr)

// VK_EXT_debug_utils: loaded when the instance has the extension, else null.
#define VKSTARK_VK_DEBUG_FUNCTIONS(X) \
  X(vkCreateDebugUtilsMessengerEXT)   \
  X(vkDestroyDebugUtilsMessengerEXT)  \
  X(vkSetDebugUtilsObjectNameEXT)     \
  X(vkCmdBeginDebugUtilsLabelEXT)     \
  X(vkCmdEndDebugUtilsLabelEXT)

// Loaded when the device has VK_KHR_pipeline_executable_properties enabled (pipeline statistics).
#define VKSTARK_VK_PIPELINE_STATISTICS_FUNCTIONS(X) \
  X(vkGetPipelineExecutablePropertiesKHR)           \
  X(vkGetPipelineExecutableStatisticsKHR)

#define VKSTARK_VK_DEVICE_FUNCTIONS(X) \
  X(vkDestroyDevice)                   \
  X(vkGetDeviceQueue)                  \
  X(vkDeviceWaitIdle)                  \
  X(vkQueueSubmit)                     \
  X(vkCreateBuffer)                    \
  X(vkDestroyBuffer)                   \
  X(vkGetBufferMemoryRequirements)     \
  X(vkAllocateMemory)                  \
  X(vkFreeMemory)                      \
  X(vkBindBufferMemory)                \
  X(vkMapMemory)                       \
  X(vkUnmapMemory)                     \
  X(vkFlushMappedMemoryRanges)         \
  X(vkInvalidateMappedMemoryRanges)    \
  X(vkCreateShaderModule)              \
  X(vkDestroyShaderModule)             \
  X(vkCreatePipelineCache)             \
  X(vkDestroyPipelineCache)            \
  X(vkGetPipelineCacheData)            \
  X(vkCreateDescriptorSetLayout)       \
  X(vkDestroyDescriptorSetLayout)      \
  X(vkCreateDescriptorPool)            \
  X(vkDestroyDescriptorPool)           \
  X(vkAllocateDescriptorSets)          \
  X(vkUpdateDescriptorSets)            \
  X(vkCreatePipelineLayout)            \
  X(vkDestroyPipelineLayout)           \
  X(vkCreateComputePipelines)          \
  X(vkDestroyPipeline)                 \
  X(vkCreateCommandPool)               \
  X(vkDestroyCommandPool)              \
  X(vkAllocateCommandBuffers)          \
  X(vkFreeCommandBuffers)              \
  X(vkBeginCommandBuffer)              \
  X(vkEndCommandBuffer)                \
  X(vkCmdBindPipeline)                 \
  X(vkCmdBindDescriptorSets)           \
  X(vkCmdPushConstants)                \
  X(vkCmdDispatch)                     \
  X(vkCmdPipelineBarrier)              \
  X(vkCmdCopyBuffer)                   \
  X(vkCmdFillBuffer)                   \
  X(vkCmdWriteTimestamp)               \
  X(vkCmdResetQueryPool)               \
  X(vkResetQueryPool)                  \
  X(vkCreateQueryPool)                 \
  X(vkDestroyQueryPool)                \
  X(vkGetQueryPoolResults)             \
  X(vkCreateFence)                     \
  X(vkDestroyFence)                    \
  X(vkResetFences)                     \
  X(vkWaitForFences)                   \
  X(vkCreateSemaphore)                 \
  X(vkDestroySemaphore)                \
  X(vkWaitSemaphores)                  \
  X(vkSignalSemaphore)                 \
  X(vkGetSemaphoreCounterValue)        \
  X(vkCmdPushDescriptorSetKHR)

struct VkFunctions {
#define VKSTARK_VK_DECLARE(name) PFN_##name name = nullptr;
  PFN_vkGetInstanceProcAddr vkGetInstanceProcAddr = nullptr;
  VKSTARK_VK_GLOBAL_FUNCTIONS(VKSTARK_VK_DECLARE)
  VKSTARK_VK_INSTANCE_FUNCTIONS(VKSTARK_VK_DECLARE)
  VKSTARK_VK_DEBUG_FUNCTIONS(VKSTARK_VK_DECLARE)
  VKSTARK_VK_DEVICE_FUNCTIONS(VKSTARK_VK_DECLARE)
  VKSTARK_VK_PIPELINE_STATISTICS_FUNCTIONS(VKSTARK_VK_DECLARE)
#undef VKSTARK_VK_DECLARE

  // Opens the loader (once per process) and loads the global functions. DeviceError if there is none.
  void load_global();
  // DeviceError naming a missing function.
  void load_instance(VkInstance instance, bool debug_utils);
  // `pipeline_statistics`: the VK_KHR_pipeline_executable_properties functions too (left null if
  // the driver lacks them).
  void load_device(VkDevice device, bool pipeline_statistics = false);
};

// A zero-initialised Vulkan struct with its sType set.
template <class T>
T vk_struct(VkStructureType type) {
  T t{};
  t.sType = type;
  return t;
}

// Process exit. A Vulkan driver tears itself down in exit handlers and static destructors that it
// registers when it is loaded and used; an executor kept in a static (a function-local map, say)
// whose destructor runs after those would call into a dead driver (seen on NVIDIA: SIGSEGV at exit).
// So every time the executor has made the driver load or initialise more (devices, pipelines),
// it registers an exit guard after it; the guard runs before the driver's handlers, waits for the
// live devices to go idle, runs their at-exit work (saving pipeline caches), and from then on
// Vulkan objects are left to the end of the process instead of destroyed.
//
// Thread-safe.
// `after_first_run`: register again even if no library was loaded (the driver initialises state at
// its first submission too).
void arm_exit_guard(bool after_first_run = false);
// True once the exit guard has run: destructors must not call Vulkan any more.
bool exit_guard_ran();
// Devices the guard waits for, with their at-exit work; a Context registers itself.
void register_exit_work(const void* owner, std::function<void()> work);
void unregister_exit_work(const void* owner);

// "VK_ERROR_OUT_OF_DEVICE_MEMORY", ...; "VkResult(<n>)" for codes this file does not know.
std::string_view vk_result_name(VkResult result);

// Throws DeviceError("<operation>: <VkResult name>") when `result` is an error (negative).
void vk_check(VkResult result, std::string_view operation);
// Same, naming a memory allocation: DeviceError("out of device memory: ...") for the OOM codes.
void vk_check_alloc(VkResult result, std::string_view what, uint64_t bytes);

}  // namespace vkstark::vulkan
