// Internal to the Vulkan executor: compute pipelines, one per (SPIR-V content, workgroup size,
// layout), built from a run-time kernel's SPIR-V or the embedded SPIR-V of a compiled kernel
// (kernels/glsl/shaders.hpp) and kept across prepares; and the on-disk
// VkPipelineCache at <disk_cache_dir()>/pipelines-<vendor>-<device>-<driver>.bin (IDs in hex;
// runtime/disk_cache.hpp: $XDG_CACHE_HOME/vkstark, fallback ~/.cache/vkstark; VKSTARK_PIPELINE_CACHE=0
// disables it; file errors are not errors).
//
// Lifetime: owned by the executor, destroyed before its Context; Pipeline handles stay valid until
// then. Thread-safe: a prover's background compilation (create_all from another thread) runs beside
// prepares.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
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
  // `background`: no progress reports, and no new pipeline is started once the TBB task group it
  // runs in is cancelled (those made are kept).
  void create_all(std::span<const std::pair<const KernelInfo*, Grid>> dispatches, bool background = false);
  // Whether every pipeline of the dispatches exists or the pipeline cache holds it; those it holds
  // are made (VK_PIPELINE_CREATE_FAIL_ON_PIPELINE_COMPILE_REQUIRED_BIT), nothing is compiled. False
  // without VK_EXT_pipeline_creation_cache_control.
  bool create_cached(std::span<const std::pair<const KernelInfo*, Grid>> dispatches);

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
  // The requests of the dispatches whose pipelines do not exist, one per pipeline. Takes mutex_.
  std::vector<Request> missing(std::span<const std::pair<const KernelInfo*, Grid>> dispatches);
  // Makes the requests' pipelines in parallel (create_all, create_cached); false when `cached_only`
  // and the cache lacks one (those made are kept). `background`: as create_all's.
  bool make_all(std::vector<Request> missing, bool background, bool cached_only);
  // Adds `p` under r's key; destroys it when another thread made that pipeline first. Takes mutex_.
  void keep(const Request& r, Pipeline p);
  std::span<const uint32_t> spirv_of(const KernelInfo& kernel);  // mutex_ held
  Request request(const KernelInfo& kernel, Grid grid);          // mutex_ held
  // Thread-safe. `cached_only`: a pipeline the cache does not hold is not compiled (nullopt).
  std::optional<Pipeline> create(const Request& r, bool cached_only = false);
  void create_layouts(Pipeline& p, const KernelAbi& abi, uint32_t push_bytes) const;
  // False when `cached_only` and the pipeline cache does not hold it.
  bool create_pipeline(Pipeline& p, const KernelInfo& kernel, std::span<const uint32_t> spirv, bool cached_only);
  void log_statistics(const Pipeline& p, const KernelInfo& kernel) const;
  void destroy(Pipeline& p) const noexcept;

  const Context& ctx_;
  PipelineCache cache_;
  std::mutex mutex_;  // guards pipelines_ and embedded_ (not held while compiling)
  std::map<Key, Pipeline> pipelines_;
  std::map<std::string, std::pair<std::span<const uint32_t>, uint64_t>, std::less<>> embedded_;  // name -> words, hash
};

}  // namespace vkstark::vulkan
