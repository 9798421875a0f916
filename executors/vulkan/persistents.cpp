#include "executors/vulkan/persistents.hpp"

#include <fmt/format.h>

#include "runtime/error.hpp"
#include "runtime/executor.hpp"

namespace vkstark::vulkan {

DeviceBuffer& PersistentBuffer::staging_buffer(const Context& ctx) {
  if (!staging) staging = DeviceBuffer(ctx, device.size(), MemoryUse::Download, name + " (staging)");
  return staging;
}

PersistentBuffer& Persistents::get(const BufferDesc& desc) {
  auto it = buffers_.find(desc.name);
  if (it != buffers_.end()) {
    check_persistent_declaration(desc, it->second->type, it->second->count);
    return *it->second;
  }
  auto p = std::make_unique<PersistentBuffer>();
  p->name = desc.name;
  p->type = desc.type;
  p->count = desc.count;
  p->device = DeviceBuffer(ctx_, desc.bytes(), ctx_.unified ? MemoryUse::Unified : MemoryUse::Device, desc.name);
  return *buffers_.emplace(desc.name, std::move(p)).first->second;
}

uint64_t Persistents::device_bytes() const {
  uint64_t total = 0;
  for (const auto& [name, p] : buffers_) total += p->device.size();
  return total;
}

}  // namespace vkstark::vulkan
