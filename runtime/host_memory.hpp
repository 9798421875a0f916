// Host memory an executor's uploads read in place (Executor::host_memory): data written here (a
// trace made by the host) goes to the device by the device's own copy, with no staging copy on the
// host first. Any host code reads and writes it as ordinary memory.
//
//   std::shared_ptr<HostMemory> m = exec.host_memory(bytes);   // reuse it for job after job
//   fill(m->data(), ...);
//   run->upload(buffer, std::span<const Fp>(reinterpret_cast<const Fp*>(m->data()), n));
//   run->run(trace);   // the run's copy reads m: keep m, unchanged, until the run has finished
//
// Vulkan: host-visible memory of the device (cached where it has such), known to the executor by
// its address: an upload whose bytes lie in it is copied by the device from there, and the plan
// holds the memory until the run that copies it has finished. Other executors: ordinary anonymous
// memory (zeroed, huge pages advised). A HostMemory must not outlive the executor that made it.
// Thread-safety: the memory is shared like any other; making and dropping HostMemory is thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

namespace vkstark {

class HostMemory : public std::enable_shared_from_this<HostMemory> {
 public:
  virtual ~HostMemory() = default;
  HostMemory(const HostMemory&) = delete;
  HostMemory& operator=(const HostMemory&) = delete;

  std::byte* data() const { return data_; }
  uint64_t size() const { return size_; }

 protected:
  HostMemory() = default;
  void set(std::byte* data, uint64_t size) {
    data_ = data;
    size_ = size;
  }

 private:
  std::byte* data_ = nullptr;
  uint64_t size_ = 0;
};

// Ordinary anonymous memory (mmap, zeroed on first touch, huge pages advised): what executors
// without memory of their own for uploads give. DeviceError when the system has no memory for it.
[[nodiscard]] std::shared_ptr<HostMemory> anonymous_host_memory(uint64_t bytes);

}  // namespace vkstark
