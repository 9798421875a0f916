// Internal to the Vulkan executor: compute pipelines, one per (SPIR-V content, workgroup size,
// layout), built from a run-time kernel's SPIR-V or the embedded SPIR-V of a compiled kernel
// (executors/vulkan/shaders.hpp) and kept across prepares; and the on-disk
// VkPipelineCache at <disk_cache_dir()>/pipelines-<vendor>-<device>-<driver>.bin (IDs in hex;
// runtime/disk_cache.hpp: $XDG_CACHE_HOME/vkstark, fallback ~/.cache/vkstark; VKSTARK_PIPELINE_CACHE=0
// disables it; file errors are not errors).
//
// Lifetime: owned by the executor, destroyed before its Context; Pipeline handles stay valid until
// then. Thread-compatible.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <tuple>

#include "executors/vulkan/context.hpp"
#include "runtime/kernel.hpp"

namespace vkstark::vulkan {

struct Pipeline {
  VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;  // push-descriptor set of `bindings` storage buffers
  VkPipelineLayout layout = VK_NULL_HANDLE;
  VkPipeline pipeline = VK_NULL_HANDLE;
  uint32_t workgroup_size = 0;
};

class PipelineCache {
 public:
  explicit PipelineCache(const Context& ctx);
  ~PipelineCache();  // saves the cache file when pipelines were added
  PipelineCache(const PipelineCache&) = delete;
  PipelineCache& operator=(const PipelineCache&) = delete;
  VkPipelineCache handle() const { return cache_; }
  void mark_dirty() { dirty_ = true; }
  const std::string& path() const { return path_; }

 private:
  void save() const noexcept;
  const Context& ctx_;
  VkPipelineCache cache_ = VK_NULL_HANDLE;
  std::string path_;                 // empty: no file
  std::atomic<bool> dirty_ = false;  // set by pipelines created in parallel
};

class Pipelines {
 public:
  explicit Pipelines(const Context& ctx);
  ~Pipelines();
  Pipelines(const Pipelines&) = delete;
  Pipelines& operator=(const Pipelines&) = delete;

  // The pipeline of `kernel`: its SPIR-V (a run-time kernel's own, else the embedded one of its
  // name), layout from its ABI. Pipelines are shared by every kernel with the same SPIR-V content,
  // workgroup size and layout. DeviceError when there is no SPIR-V or the device cannot run it.
  // `grid`: a kernel without a workgroup preference (correct for any size) runs a grid of at most
  // one subgroup in the smallest power-of-two workgroup that holds it, so that latency-bound
  // scalar steps launch no idle invocations.
  const Pipeline& get(const KernelInfo& kernel, Grid grid);
  // Creates the pipelines the dispatches (kernel, grid) need and do not exist yet, in parallel
  // (prepare passes every dispatch of a plan, so a plan compiles only what it uses, once).
  void create_all(std::span<const std::pair<const KernelInfo*, Grid>> dispatches);

 private:
  struct Key {
    uint64_t hash = 0;  // of the SPIR-V words
    size_t words = 0;
    uint32_t workgroup_size = 0;
    std::vector<uint32_t> layout;  // descriptors per binding, then push-constant bytes
    auto operator<=>(const Key&) const = default;
  };
  // Everything a pipeline is made from, and its key.
  struct Request {
    const KernelInfo* kernel = nullptr;
    std::span<const uint32_t> spirv;
    uint32_t workgroup_size = 0;
    uint32_t push_bytes = 0;
    Key key;
  };
  std::span<const uint32_t> spirv_of(const KernelInfo& kernel);
  Request request(const KernelInfo& kernel, Grid grid);
  Pipeline create(const Request& r);  // thread-safe
  void create_layouts(Pipeline& p, const KernelAbi& abi, uint32_t push_bytes) const;
  void create_pipeline(Pipeline& p, const KernelInfo& kernel, std::span<const uint32_t> spirv);
  void log_statistics(const Pipeline& p, const KernelInfo& kernel) const;
  void destroy(Pipeline& p) const noexcept;

  const Context& ctx_;
  PipelineCache cache_;
  std::map<Key, Pipeline> pipelines_;
  std::map<std::string, std::pair<std::span<const uint32_t>, uint64_t>, std::less<>> embedded_;  // name -> words, hash
};

}  // namespace vkstark::vulkan
