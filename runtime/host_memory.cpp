#include "runtime/host_memory.hpp"

#include <fmt/format.h>
#include <sys/mman.h>

#include "runtime/error.hpp"

namespace vkstark {

namespace {

class AnonymousMemory final : public HostMemory {
 public:
  explicit AnonymousMemory(uint64_t bytes) : mapped_(std::max<uint64_t>(bytes, 1)) {
    void* p = mmap(nullptr, mapped_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) throw DeviceError(fmt::format("out of host memory: cannot map {} bytes", bytes));
    madvise(p, mapped_, MADV_HUGEPAGE);
    set(static_cast<std::byte*>(p), bytes);
  }
  ~AnonymousMemory() override { munmap(data(), mapped_); }

 private:
  uint64_t mapped_;
};

}  // namespace

std::shared_ptr<HostMemory> anonymous_host_memory(uint64_t bytes) { return std::make_shared<AnonymousMemory>(bytes); }

}  // namespace vkstark
