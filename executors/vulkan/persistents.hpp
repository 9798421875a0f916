// Internal to the Vulkan executor: Persistent buffers, owned by the executor and keyed by buffer
// name, so that data written by one plan is read by the next (proving-key data, twiddles).
//
// Lifetime: owned by the executor, destroyed before its Context; a PersistentBuffer's address is
// stable while the executor lives. Thread-compatible.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "executors/vulkan/commands.hpp"
#include "executors/vulkan/memory.hpp"
#include "runtime/graph.hpp"

namespace vkstark::vulkan {

struct PersistentBuffer {
  std::string name;
  TypeTag type;
  uint64_t count = 0;
  DeviceBuffer device;   // what kernels bind; mapped on unified memory
  DeviceBuffer staging;  // staging mode only, made on first use: same layout as `device`
  bool written = false;  // some run or upload has filled it
  DeviceBuffer& staging_buffer(const Context& ctx);
};

class Persistents {
 public:
  explicit Persistents(const Context& ctx) : ctx_(ctx) {}
  // The buffer called desc.name, made on first use. GraphError if it exists with another element
  // type or count (check_persistent_declaration).
  PersistentBuffer& get(const BufferDesc& desc);
  bool contains(const std::string& name) const { return buffers_.count(name) != 0; }
  uint64_t device_bytes() const;

  // Staging -> device copies not yet recorded (staging mode). Any plan of the executor records
  // them at the start of its next submission, since any plan may read the buffer next.
  std::vector<PendingCopy> pending;

 private:
  const Context& ctx_;
  std::map<std::string, std::unique_ptr<PersistentBuffer>, std::less<>> buffers_;
};

}  // namespace vkstark::vulkan
