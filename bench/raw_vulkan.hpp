// runtime_bench's raw-Vulkan baseline: the bench's two shapes (K dependent 1-invocation dispatches
// with a memory barrier between consecutive ones, K independent ones without barriers) recorded by
// hand into one command buffer, with no vkstark runtime in between, on the device the executor
// uses. It is the floor against which runtime_bench states the runtime's overhead.
//
// Lifetime: owns its own instance, device and every object it creates; the destructor waits for the
// device and destroys them. Thread-safety: none; use from one thread.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "executors/vulkan/vk.hpp"

namespace vkstark::bench {

// The shader's push-constant `mode` (bench/raw_copy.comp).
enum class RawShape : uint32_t { chain = 0, independent = 1 };

struct RawTiming {
  double median_ms = 0;  // vkQueueSubmit + vkWaitForFences of the pre-recorded command buffer
  double record_ms = 0;  // recording that command buffer once; not part of median_ms
};

class RawVulkan {
 public:
  // Opens the physical device whose name is exactly `device_name` (Executor::device_name()). With
  // VKSTARK_VALIDATE=1 the Khronos layer with synchronization validation watches, and any message
  // it reports throws DeviceError.
  RawVulkan(const std::string& device_name, uint32_t k);
  ~RawVulkan();
  RawVulkan(const RawVulkan&) = delete;
  RawVulkan& operator=(const RawVulkan&) = delete;

  // Records `shape` once, checks what it computes (DeviceError if wrong), then times `runs`
  // submissions after one warm-up.
  RawTiming measure(RawShape shape, int runs);

 private:
  struct Messages {  // the validation layer may call back from any thread
    std::mutex mutex;
    std::vector<std::string> text;
  };

  void create_instance(bool validate);
  void create_device(const std::string& device_name);
  void create_buffer(VkBufferUsageFlags usage, VkMemoryPropertyFlags want, VkBuffer& buffer, VkDeviceMemory& memory);
  void create_pipeline();
  void create_commands();
  void record_clear_and_readback();
  double record(RawShape shape);
  void check(RawShape shape);
  double submit_and_wait(std::initializer_list<VkCommandBuffer> cbs);
  static VkBool32 VKAPI_CALL on_message(VkDebugUtilsMessageSeverityFlagBitsEXT, VkDebugUtilsMessageTypeFlagsEXT,
                                        const VkDebugUtilsMessengerCallbackDataEXT* data, void* user);
  void throw_if_messages(std::string_view operation);
  void destroy() noexcept;

  uint32_t k_;
  vulkan::VkFunctions fn_;
  Messages messages_;
  VkInstance instance_ = VK_NULL_HANDLE;
  VkDebugUtilsMessengerEXT messenger_ = VK_NULL_HANDLE;
  VkPhysicalDevice physical_ = VK_NULL_HANDLE;
  VkDevice device_ = VK_NULL_HANDLE;
  VkQueue queue_ = VK_NULL_HANDLE;
  uint32_t queue_family_ = 0;
  VkBuffer x_ = VK_NULL_HANDLE, staging_ = VK_NULL_HANDLE;
  VkDeviceMemory x_memory_ = VK_NULL_HANDLE, staging_memory_ = VK_NULL_HANDLE;
  const uint32_t* staged_ = nullptr;  // staging_ mapped
  VkDescriptorSetLayout set_layout_ = VK_NULL_HANDLE;
  VkPipelineLayout layout_ = VK_NULL_HANDLE;
  VkPipeline pipeline_ = VK_NULL_HANDLE;
  VkDescriptorPool descriptor_pool_ = VK_NULL_HANDLE;
  VkDescriptorSet set_ = VK_NULL_HANDLE;
  VkCommandPool command_pool_ = VK_NULL_HANDLE;
  VkCommandBuffer shape_cb_ = VK_NULL_HANDLE, clear_cb_ = VK_NULL_HANDLE, readback_cb_ = VK_NULL_HANDLE;
  VkFence fence_ = VK_NULL_HANDLE;
};

}  // namespace vkstark::bench
