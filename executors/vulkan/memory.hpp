// Internal to the Vulkan executor: a VkBuffer with its own VkDeviceMemory, mapped when host-visible.
//
// Lifetime: move-only RAII; must be destroyed before its Context. Thread-compatible.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "executors/vulkan/context.hpp"

namespace vkstark::vulkan {

enum class MemoryUse : uint8_t {
  Device,    // device-local, not mapped (discrete GPUs)
  Unified,   // device-local and host-visible/coherent, mapped (integrated GPUs, CPU devices)
  Upload,    // host-visible staging the host writes and the device copies from
  Download,  // host-visible staging the device copies into and the host reads (cached preferred)
  HostData,  // host-visible memory the host works in (HostMemory: traces made in place), the device
             // copies from (cached preferred: the host writes it in any order and reads it)
};

inline constexpr uint64_t kMinBufferBytes = 16;  // size-0 buffers still get memory

class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  // Usage STORAGE | TRANSFER_SRC | TRANSFER_DST. DeviceError("out of device memory ...") naming
  // `name` and the size when it cannot be allocated.
  DeviceBuffer(const Context& ctx, uint64_t bytes, MemoryUse use, const std::string& name);
  DeviceBuffer(DeviceBuffer&& o) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer();

  explicit operator bool() const { return buffer_ != VK_NULL_HANDLE; }
  VkBuffer buffer() const { return buffer_; }
  uint64_t size() const { return size_; }        // bytes of the VkBuffer (>= kMinBufferBytes)
  std::byte* mapped() const { return mapped_; }  // null unless host-visible
  // Make host writes visible to the device / device writes visible to the host on non-coherent
  // memory (no-ops on coherent memory).
  void flush() const;
  void invalidate() const;

 private:
  void release() noexcept;

  const Context* ctx_ = nullptr;
  VkBuffer buffer_ = VK_NULL_HANDLE;
  VkDeviceMemory memory_ = VK_NULL_HANDLE;
  uint64_t size_ = 0;
  std::byte* mapped_ = nullptr;
  bool coherent_ = true;
};

}  // namespace vkstark::vulkan
