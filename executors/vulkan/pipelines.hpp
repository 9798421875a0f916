// Internal to the Vulkan executor: compute pipelines, one per (kernel, workgroup size), built from
// the embedded SPIR-V (executors/vulkan/shaders.hpp) and kept across prepares; and the on-disk
// VkPipelineCache at $XDG_CACHE_HOME/vkstark/pipelines-<vendor>-<device>-<driver>.bin (IDs in hex; fallback
// ~/.cache/vkstark; VKSTARK_PIPELINE_CACHE=0 disables it; file errors are not errors).
//
// Lifetime: owned by the executor, destroyed before its Context; Pipeline handles stay valid until
// then. Thread-compatible.
#pragma once

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
  std::string path_;  // empty: no file
  bool dirty_ = false;
};

class Pipelines {
 public:
  explicit Pipelines(const Context& ctx);
  ~Pipelines();
  Pipelines(const Pipelines&) = delete;
  Pipelines& operator=(const Pipelines&) = delete;

  // The pipeline of `kernel` for a dispatch with `bindings` views and `push_words` push-constant
  // words. DeviceError when the kernel has no embedded SPIR-V or needs more push constants than
  // the device has.
  const Pipeline& get(const KernelInfo& kernel, uint32_t bindings, uint32_t push_words);

 private:
  Pipeline create(const KernelInfo& kernel, uint32_t workgroup_size, uint32_t bindings, uint32_t push_bytes);
  void create_layouts(Pipeline& p, uint32_t bindings, uint32_t push_bytes) const;
  void create_pipeline(Pipeline& p, const KernelInfo& kernel, std::span<const uint32_t> spirv);
  void destroy(Pipeline& p) const noexcept;

  const Context& ctx_;
  PipelineCache cache_;
  // (kernel name, workgroup size, bindings, push-constant bytes) -> pipeline
  std::map<std::tuple<std::string, uint32_t, uint32_t, uint32_t>, Pipeline> pipelines_;
};

}  // namespace vkstark::vulkan
