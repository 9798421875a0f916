#include "executors/vulkan/memory.hpp"

#include <fmt/format.h>

#include <bit>
#include <utility>

#include "runtime/error.hpp"

namespace vkstark::vulkan {

namespace {

struct TypeWish {
  VkMemoryPropertyFlags required = 0;
  VkMemoryPropertyFlags preferred = 0;
  VkMemoryPropertyFlags avoided = 0;
};

TypeWish wish(MemoryUse use) {
  constexpr auto kLocal = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
  constexpr auto kVisible = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT;
  constexpr auto kCoherent = VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  constexpr auto kCached = VK_MEMORY_PROPERTY_HOST_CACHED_BIT;
  switch (use) {
    case MemoryUse::Device:
      return {kLocal, 0, kVisible};
    case MemoryUse::Unified:
      return {kLocal | kVisible | kCoherent | kCached, 0, 0};  // the type Context::unified found
    case MemoryUse::Upload:
      return {kVisible, kCoherent, kLocal};  // keep device memory for the device
    case MemoryUse::Download:
    case MemoryUse::HostData:
      return {kVisible, kCached | kCoherent, kLocal};
  }
  return {};
}

// The allowed type with the required flags that has most preferred and fewest avoided flags.
int32_t choose_type(const VkPhysicalDeviceMemoryProperties& mem, uint32_t allowed, const TypeWish& w) {
  int32_t best = -1;
  int best_score = 0;
  for (uint32_t i = 0; i < mem.memoryTypeCount; ++i) {
    VkMemoryPropertyFlags f = mem.memoryTypes[i].propertyFlags;
    if (!(allowed & (1u << i)) || (f & w.required) != w.required) continue;
    int score = 2 * std::popcount(f & w.preferred) - std::popcount(f & w.avoided);
    if (best < 0 || score > best_score) {
      best = static_cast<int32_t>(i);
      best_score = score;
    }
  }
  return best;
}

}  // namespace

DeviceBuffer::DeviceBuffer(const Context& ctx, uint64_t bytes, MemoryUse use, const std::string& name) : ctx_(&ctx) {
  size_ = std::max<uint64_t>((bytes + 15) / 16 * 16, kMinBufferBytes);
  if (size_ > ctx.max_allocation_bytes)
    throw DeviceError(
        fmt::format("out of device memory: buffer '{}' needs {} bytes, more than the device allows in one "
                    "allocation (maxMemoryAllocationSize {})",
                    name, size_, ctx.max_allocation_bytes));
  try {
    auto info = vk_struct<VkBufferCreateInfo>(VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO);
    info.size = size_;
    info.usage =
        VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    const uint32_t families[2] = {ctx.queue_family, ctx.transfer_family};
    if (ctx.shared_families()) {  // uploads on the transfer family's queue, the rest on the compute family's
      info.sharingMode = VK_SHARING_MODE_CONCURRENT;
      info.queueFamilyIndexCount = 2;
      info.pQueueFamilyIndices = families;
    }
    vk_check(ctx.fn.vkCreateBuffer(ctx.device, &info, nullptr, &buffer_), fmt::format("vkCreateBuffer ('{}')", name));
    VkMemoryRequirements req{};
    ctx.fn.vkGetBufferMemoryRequirements(ctx.device, buffer_, &req);
    int32_t type = choose_type(ctx.memory, req.memoryTypeBits, wish(use));
    if (type < 0 && use == MemoryUse::Device) type = choose_type(ctx.memory, req.memoryTypeBits, {});
    if (type < 0)
      throw DeviceError(fmt::format("no suitable Vulkan memory type for buffer '{}' ({} bytes)", name, size_));
    auto alloc = vk_struct<VkMemoryAllocateInfo>(VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO);
    alloc.allocationSize = req.size;
    alloc.memoryTypeIndex = static_cast<uint32_t>(type);
    const VkResult allocated = ctx.fn.vkAllocateMemory(ctx.device, &alloc, nullptr, &memory_);
    if (allocated == VK_ERROR_OUT_OF_DEVICE_MEMORY || allocated == VK_ERROR_OUT_OF_HOST_MEMORY) {
      // Say which heap refused and how full the driver thinks it is.
      const uint32_t heap = ctx.memory.memoryTypes[type].heapIndex;
      const std::vector<Context::HeapState> hs = ctx.heaps();
      const Context::HeapState h = heap < hs.size() ? hs[heap] : Context::HeapState{};
      throw OutOfDeviceMemory(fmt::format(
          "out of device memory: {} bytes for buffer '{}' (vkAllocateMemory: {}) from memory type {} of heap {} "
          "({}{} bytes, {}{} in use by this process)",
          req.size, name, vk_result_name(allocated), type, heap, h.device_local ? "device-local, " : "host, ", h.size,
          ctx.memory_budget ? fmt::format("budget {}, ", h.budget) : std::string(), h.usage));
    }
    vk_check_alloc(allocated, fmt::format("buffer '{}'", name), req.size);
    vk_check(ctx.fn.vkBindBufferMemory(ctx.device, buffer_, memory_, 0), "vkBindBufferMemory");
    VkMemoryPropertyFlags flags = ctx.memory.memoryTypes[type].propertyFlags;
    coherent_ = flags & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    if (use != MemoryUse::Device) {
      void* p = nullptr;
      vk_check(ctx.fn.vkMapMemory(ctx.device, memory_, 0, VK_WHOLE_SIZE, 0, &p), "vkMapMemory");
      mapped_ = static_cast<std::byte*>(p);
    }
    ctx.set_name(VK_OBJECT_TYPE_BUFFER, reinterpret_cast<uint64_t>(buffer_), name);
  } catch (...) {
    release();
    throw;
  }
}

DeviceBuffer::DeviceBuffer(DeviceBuffer&& o) noexcept
    : ctx_(o.ctx_),
      buffer_(std::exchange(o.buffer_, VK_NULL_HANDLE)),
      memory_(std::exchange(o.memory_, VK_NULL_HANDLE)),
      size_(std::exchange(o.size_, 0)),
      mapped_(std::exchange(o.mapped_, nullptr)),
      coherent_(o.coherent_) {}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& o) noexcept {
  if (this != &o) {
    release();
    ctx_ = o.ctx_;
    buffer_ = std::exchange(o.buffer_, VK_NULL_HANDLE);
    memory_ = std::exchange(o.memory_, VK_NULL_HANDLE);
    size_ = std::exchange(o.size_, 0);
    mapped_ = std::exchange(o.mapped_, nullptr);
    coherent_ = o.coherent_;
  }
  return *this;
}

DeviceBuffer::~DeviceBuffer() { release(); }

void DeviceBuffer::release() noexcept {
  if (!ctx_) return;
  if (exit_guard_ran()) buffer_ = VK_NULL_HANDLE, memory_ = VK_NULL_HANDLE;  // the process is ending
  if (buffer_) ctx_->fn.vkDestroyBuffer(ctx_->device, buffer_, nullptr);
  if (memory_) ctx_->fn.vkFreeMemory(ctx_->device, memory_, nullptr);  // unmaps implicitly
  buffer_ = VK_NULL_HANDLE;
  memory_ = VK_NULL_HANDLE;
  mapped_ = nullptr;
}

void DeviceBuffer::flush() const {
  if (coherent_ || !mapped_) return;
  VkMappedMemoryRange range{VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE, nullptr, memory_, 0, VK_WHOLE_SIZE};
  vk_check(ctx_->fn.vkFlushMappedMemoryRanges(ctx_->device, 1, &range), "vkFlushMappedMemoryRanges");
}

void DeviceBuffer::invalidate() const {
  if (coherent_ || !mapped_) return;
  VkMappedMemoryRange range{VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE, nullptr, memory_, 0, VK_WHOLE_SIZE};
  vk_check(ctx_->fn.vkInvalidateMappedMemoryRanges(ctx_->device, 1, &range), "vkInvalidateMappedMemoryRanges");
}

}  // namespace vkstark::vulkan
