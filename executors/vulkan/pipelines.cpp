#include "executors/vulkan/pipelines.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <tbb/task_arena.h>
#include <tbb/task_group.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <vector>

#include "kernels/glsl/shaders.hpp"
#include "runtime/disk_cache.hpp"
#include "runtime/error.hpp"
#include "runtime/file.hpp"
#include "runtime/progress.hpp"

namespace vkstark::vulkan {

namespace {

std::string cache_path(const Context& ctx) {
  const std::filesystem::path dir = disk_cache_dir();
  if (dir.empty()) return {};
  const VkPhysicalDeviceProperties& p = ctx.properties;
  return (dir / fmt::format("pipelines-{:x}-{:x}-{:x}.bin", p.vendorID, p.deviceID, p.driverVersion)).string();
}

// The file's contents if its header matches this device (VkPipelineCacheHeaderVersionOne), else empty.
std::vector<char> read_cache_file(const std::string& path, const Context& ctx) {
  std::vector<char> data;
  if (path.empty()) return data;
  std::ifstream f(path, std::ios::binary);
  if (!f) return data;
  data.assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  VkPipelineCacheHeaderVersionOne header{};
  if (data.size() < sizeof(header)) return {};
  std::memcpy(&header, data.data(), sizeof(header));
  bool ok = header.headerSize >= sizeof(header) && header.headerVersion == VK_PIPELINE_CACHE_HEADER_VERSION_ONE &&
            header.vendorID == ctx.properties.vendorID && header.deviceID == ctx.properties.deviceID &&
            std::memcmp(header.pipelineCacheUUID, ctx.properties.pipelineCacheUUID, VK_UUID_SIZE) == 0;
  if (!ok) data.clear();
  return data;
}

const EmbeddedShader* find_shader(std::string_view name) {
  for (const EmbeddedShader& s : embedded_shaders())
    if (s.name == name) return &s;
  return nullptr;
}

}  // namespace

PipelineCache::PipelineCache(const Context& ctx) : ctx_(ctx), path_(cache_path(ctx)) {
  std::vector<char> data = read_cache_file(path_, ctx);
  auto info = vk_struct<VkPipelineCacheCreateInfo>(VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO);
  info.initialDataSize = data.size();
  info.pInitialData = data.empty() ? nullptr : data.data();
  if (ctx.fn.vkCreatePipelineCache(ctx.device, &info, nullptr, &cache_) == VK_SUCCESS) {
    register_exit_work(this, [this] {
      if (dirty_) save();
    });
    return;
  }
  // A cache file the driver rejects is dropped, not an error.
  info.initialDataSize = 0;
  info.pInitialData = nullptr;
  vk_check(ctx.fn.vkCreatePipelineCache(ctx.device, &info, nullptr, &cache_), "vkCreatePipelineCache");
  register_exit_work(this, [this] {
    if (dirty_) save();
  });
}

PipelineCache::~PipelineCache() {
  unregister_exit_work(this);
  if (exit_guard_ran()) return;  // saved by the exit guard; the driver may be gone
  if (dirty_) save();
  ctx_.fn.vkDestroyPipelineCache(ctx_.device, cache_, nullptr);
}

void PipelineCache::save() const noexcept {
  if (path_.empty()) return;
  try {
    size_t size = 0;
    if (ctx_.fn.vkGetPipelineCacheData(ctx_.device, cache_, &size, nullptr) != VK_SUCCESS || size == 0) return;
    std::vector<char> data(size);
    if (ctx_.fn.vkGetPipelineCacheData(ctx_.device, cache_, &size, data.data()) != VK_SUCCESS) return;
    std::filesystem::path target(path_);
    std::error_code ec;
    std::filesystem::create_directories(target.parent_path(), ec);
    // Written whole then renamed, so that concurrent processes never read a half-written file.
    replace_file(target, std::string_view(data.data(), size));
  } catch (const std::exception& e) {
    spdlog::debug("vkstark: pipeline cache not saved to {}: {}", path_, e.what());
  }
}

Pipelines::Pipelines(const Context& ctx) : ctx_(ctx), cache_(ctx) {}

Pipelines::~Pipelines() {
  if (exit_guard_ran()) return;
  for (auto& [key, p] : pipelines_) destroy(p);
}

std::span<const uint32_t> Pipelines::spirv_of(const KernelInfo& kernel) {
  if (kernel.cpu_only)
    throw GraphError(fmt::format(
        "kernel {} was made without SPIR-V, for an executor that runs CPU bodies only: make its kernels for this "
        "executor (a StarkProver of this executor makes its own)",
        kernel.name));
  if (kernel.runtime) return kernel.spirv;
  auto it = embedded_.find(kernel.name);
  if (it == embedded_.end()) {
    const EmbeddedShader* shader = find_shader(kernel.name);
    if (!shader || shader->words.empty())
      throw DeviceError(fmt::format("kernel {} has no SPIR-V: add kernels/glsl/{}.comp", kernel.name, kernel.name));
    it = embedded_.emplace(kernel.name, std::make_pair(shader->words, spirv_content_hash(shader->words))).first;
  }
  return it->second.first;
}

Pipelines::Request Pipelines::request(const KernelInfo& kernel, Grid grid) {
  Request r;
  r.kernel = &kernel;
  r.workgroup_size = ctx_.workgroup_size(kernel.workgroup_size);
  // A small grid of a kernel that runs at any workgroup size gets the smallest power of two that
  // holds it: a 1-thread step launches one invocation (H100: 2.40 against 2.63 us per dependent
  // dispatch with a 32-wide workgroup).
  if (kernel.workgroup_size == 0 && grid.x <= ctx_.subgroup_size)
    r.workgroup_size = std::min(r.workgroup_size, std::bit_ceil(std::max(grid.x, 1u)));
  const uint32_t max_push = ctx_.limits().maxPushConstantsSize;
  const uint32_t push_words = kernel.abi.push_words();
  if (push_words * 4 > max_push)
    throw DeviceError(fmt::format("kernel {}: {} bytes of push constants, the device allows {}", kernel.name,
                                  push_words * 4, max_push));
  r.push_bytes = std::min((push_words * 4 + 15) / 16 * 16, max_push);
  r.spirv = spirv_of(kernel);
  r.key.hash = kernel.runtime ? kernel.spirv_hash : embedded_.find(kernel.name)->second.second;
  r.key.words = r.spirv.size();
  r.key.workgroup_size = r.workgroup_size;
  for (const ViewParam& v : kernel.abi.views) r.key.layout.push_back(v.slots());
  r.key.layout.push_back(r.push_bytes);
  return r;
}

const Pipeline& Pipelines::get(const KernelInfo& kernel, Grid grid) {
  std::unique_lock lock(mutex_);
  Request r = request(kernel, grid);
  if (auto it = pipelines_.find(r.key); it != pipelines_.end()) return it->second;
  lock.unlock();
  keep(r, *create(r));
  lock.lock();
  return pipelines_.find(r.key)->second;  // map nodes stay where they are
}

std::vector<Pipelines::Request> Pipelines::missing(std::span<const std::pair<const KernelInfo*, Grid>> dispatches) {
  std::lock_guard lock(mutex_);
  std::vector<Request> out;
  std::set<Key> seen;
  for (const auto& [k, grid] : dispatches) {
    Request r = request(*k, grid);
    if (pipelines_.count(r.key) == 0 && seen.insert(r.key).second) out.push_back(std::move(r));
  }
  return out;
}

void Pipelines::keep(const Request& r, Pipeline p) {
  std::unique_lock lock(mutex_);
  if (pipelines_.emplace(r.key, p).second) return;
  lock.unlock();
  destroy(p);
}

namespace {
bool pipeline_order_is_plan() {
  const char* v = std::getenv("VKSTARK_PIPELINE_ORDER");
  if (v == nullptr || std::string_view(v) == "largest") return false;
  if (std::string_view(v) == "plan") return true;
  throw InputError(fmt::format("VKSTARK_PIPELINE_ORDER='{}': expected 'largest' or 'plan' (or unset)", v));
}
}  // namespace

void Pipelines::create_all(std::span<const std::pair<const KernelInfo*, Grid>> dispatches, bool background) {
  make_all(missing(dispatches), background, false);
}

bool Pipelines::create_cached(std::span<const std::pair<const KernelInfo*, Grid>> dispatches) {
  std::vector<Request> requests = missing(dispatches);
  return requests.empty() || (ctx_.cache_control && make_all(std::move(requests), true, true));
}

bool Pipelines::make_all(std::vector<Request> missing, bool background, bool cached_only) {
  // Drivers compile in vkCreateComputePipelines (seconds for a large plan on a cold cache): the
  // pipelines are independent, and the pipeline cache is internally synchronized.
  std::vector<Pipeline> made(missing.size());
  std::vector<std::exception_ptr> failed(missing.size());
  // Counted for a front end's progress line (runtime/progress.hpp).
  constexpr std::string_view kWhat = "compiling kernels";
  std::atomic<uint64_t> compiled{0};
  std::atomic<bool> uncached{false};
  if (!missing.empty() && !background) report_progress(kWhat, 0, missing.size());
  // Largest SPIR-V first, each worker taking the next one as it is free (longest processing time
  // first): a plan's compile time is its slowest worker's, and the largest pipelines are the
  // slowest to compile (H100, keccakf's cold prepare: docs/decisions.md). VKSTARK_PIPELINE_ORDER=plan
  // compiles in the plan's order instead, for the comparison.
  if (!pipeline_order_is_plan())
    std::stable_sort(missing.begin(), missing.end(),
                     [](const Request& a, const Request& b) { return a.spirv.size() > b.spirv.size(); });
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i; (i = next.fetch_add(1, std::memory_order_relaxed)) < missing.size();) {
      if (uncached.load(std::memory_order_relaxed)) return;
      if (background && tbb::is_current_task_group_canceling()) return;
      try {
        if (std::optional<Pipeline> p = create(missing[i], cached_only))
          made[i] = *p;
        else
          uncached = true;
      } catch (...) {
        failed[i] = std::current_exception();
      }
      if (!background) report_progress(kWhat, compiled.fetch_add(1, std::memory_order_relaxed) + 1, missing.size());
    }
  };
  const size_t workers = std::min<size_t>(missing.size(), size_t(std::max(1, tbb::this_task_arena::max_concurrency())));
  tbb::task_group group;
  for (size_t w = 1; w < workers; ++w) group.run(work);
  work();
  group.wait();
  for (size_t i = 0; i < missing.size(); ++i)
    if (!failed[i] && made[i].pipeline) keep(missing[i], made[i]);
  for (const std::exception_ptr& e : failed)
    if (e) std::rethrow_exception(e);
  if (!missing.empty()) arm_exit_guard();  // compiling may have loaded more of the driver
  return !uncached;
}

std::optional<Pipeline> Pipelines::create(const Request& r, bool cached_only) {
  const KernelInfo& kernel = *r.kernel;
  // What the kernel's SPIR-V asks of the device at this workgroup (a run-time kernel's too: the
  // library's were checked when the executor was made), all of it in one error.
  if (std::vector<std::string> missing =
          ctx_.kernel_missing_needs(kernel.name, r.spirv, r.workgroup_size, kernel.workgroup_size != 0);
      !missing.empty()) {
    std::string list;
    for (const std::string& m : missing) list += "\n  - " + m;
    throw DeviceError(fmt::format("kernel {} cannot run on {}{}: it needs more than{}", kernel.name, ctx_.device_name(),
                                  ctx_.profile ? fmt::format(" under device profile {}", ctx_.profile->name) : "",
                                  list));
  }
  bool arrays =
      std::any_of(kernel.abi.views.begin(), kernel.abi.views.end(), [](const ViewParam& v) { return v.array > 0; });
  if (arrays && !ctx_.storage_buffer_array_indexing)
    throw DeviceError(
        fmt::format("kernel {} indexes a view array, and the device lacks "
                    "shaderStorageBufferArrayDynamicIndexing",
                    kernel.name));
  Pipeline p;
  p.workgroup_size = r.workgroup_size;
  try {
    const auto start = std::chrono::steady_clock::now();
    create_layouts(p, kernel.abi, r.push_bytes);
    if (!create_pipeline(p, kernel, r.spirv, cached_only)) {
      destroy(p);
      return std::nullopt;
    }
    logger().debug("pipeline {} (workgroup {}){}: {:.1f} ms", kernel.name, r.workgroup_size,
                   cached_only ? " from the cache" : "",
                   std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    return p;
  } catch (...) {
    destroy(p);
    throw;
  }
}

// A push-descriptor set with one storage-buffer binding per view (N descriptors for a view array)
// and one push-constant range.
void Pipelines::create_layouts(Pipeline& p, const KernelAbi& abi, uint32_t push_bytes) const {
  const VkFunctions& fn = ctx_.fn;
  std::vector<VkDescriptorSetLayoutBinding> slots;
  for (uint32_t i = 0; i < abi.views.size(); ++i)
    slots.push_back({i, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, abi.views[i].slots(), VK_SHADER_STAGE_COMPUTE_BIT, nullptr});
  auto set_info = vk_struct<VkDescriptorSetLayoutCreateInfo>(VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO);
  set_info.flags = VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR;
  set_info.bindingCount = static_cast<uint32_t>(slots.size());
  set_info.pBindings = slots.data();
  vk_check(fn.vkCreateDescriptorSetLayout(ctx_.device, &set_info, nullptr, &p.set_layout),
           "vkCreateDescriptorSetLayout");
  VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, push_bytes};
  auto layout_info = vk_struct<VkPipelineLayoutCreateInfo>(VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO);
  layout_info.setLayoutCount = 1;
  layout_info.pSetLayouts = &p.set_layout;
  layout_info.pushConstantRangeCount = 1;
  layout_info.pPushConstantRanges = &range;
  vk_check(fn.vkCreatePipelineLayout(ctx_.device, &layout_info, nullptr, &p.layout), "vkCreatePipelineLayout");
}

bool Pipelines::create_pipeline(Pipeline& p, const KernelInfo& kernel, std::span<const uint32_t> spirv,
                                bool cached_only) {
  const VkFunctions& fn = ctx_.fn;
  auto module_info = vk_struct<VkShaderModuleCreateInfo>(VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO);
  module_info.codeSize = spirv.size_bytes();
  module_info.pCode = spirv.data();
  VkShaderModule module = VK_NULL_HANDLE;
  vk_check(fn.vkCreateShaderModule(ctx_.device, &module_info, nullptr, &module),
           fmt::format("vkCreateShaderModule ({})", kernel.name));
  // Specialization: id 0 = workgroup size, id 1 = subgroup size, id 2 = 1 where compute shaders
  // have subgroup shuffles (kernels/glsl/runtime.glsl).
  const uint32_t constants[3] = {p.workgroup_size, ctx_.subgroup_size, ctx_.subgroup_shuffle ? 1u : 0u};
  const VkSpecializationMapEntry entries[3] = {{0, 0, 4}, {1, 4, 4}, {2, 8, 4}};
  VkSpecializationInfo spec{3, entries, sizeof(constants), constants};
  auto info = vk_struct<VkComputePipelineCreateInfo>(VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO);
  info.stage = vk_struct<VkPipelineShaderStageCreateInfo>(VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO);
  info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  info.stage.module = module;
  info.stage.pName = "main";
  info.stage.pSpecializationInfo = &spec;
  info.layout = p.layout;
  if (ctx_.pipeline_statistics) info.flags |= VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR;
  if (cached_only) info.flags |= VK_PIPELINE_CREATE_FAIL_ON_PIPELINE_COMPILE_REQUIRED_BIT_EXT;
  VkResult r = fn.vkCreateComputePipelines(ctx_.device, cache_.handle(), 1, &info, nullptr, &p.pipeline);
  fn.vkDestroyShaderModule(ctx_.device, module, nullptr);
  if (cached_only && r == VK_PIPELINE_COMPILE_REQUIRED_EXT) {
    p.pipeline = VK_NULL_HANDLE;
    return false;
  }
  vk_check(r, fmt::format("vkCreateComputePipelines ({})", kernel.name));
  if (ctx_.pipeline_statistics) log_statistics(p, kernel);
  cache_.mark_dirty();
  ctx_.set_name(VK_OBJECT_TYPE_PIPELINE, reinterpret_cast<uint64_t>(p.pipeline), std::string(kernel.name));
  return true;
}

// One debug line per shader executable: its name and every statistic the driver reports (NVIDIA:
// registers, spills, shared memory...).
void Pipelines::log_statistics(const Pipeline& p, const KernelInfo& kernel) const {
  const VkFunctions& fn = ctx_.fn;
  auto pipeline_info = vk_struct<VkPipelineInfoKHR>(VK_STRUCTURE_TYPE_PIPELINE_INFO_KHR);
  pipeline_info.pipeline = p.pipeline;
  uint32_t n = 0;
  if (fn.vkGetPipelineExecutablePropertiesKHR(ctx_.device, &pipeline_info, &n, nullptr) != VK_SUCCESS) return;
  std::vector<VkPipelineExecutablePropertiesKHR> executables(
      n, vk_struct<VkPipelineExecutablePropertiesKHR>(VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_PROPERTIES_KHR));
  if (fn.vkGetPipelineExecutablePropertiesKHR(ctx_.device, &pipeline_info, &n, executables.data()) != VK_SUCCESS)
    return;
  for (uint32_t e = 0; e < n; ++e) {
    auto exe = vk_struct<VkPipelineExecutableInfoKHR>(VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR);
    exe.pipeline = p.pipeline;
    exe.executableIndex = e;
    uint32_t m = 0;
    if (fn.vkGetPipelineExecutableStatisticsKHR(ctx_.device, &exe, &m, nullptr) != VK_SUCCESS) continue;
    std::vector<VkPipelineExecutableStatisticKHR> stats(
        m, vk_struct<VkPipelineExecutableStatisticKHR>(VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR));
    if (fn.vkGetPipelineExecutableStatisticsKHR(ctx_.device, &exe, &m, stats.data()) != VK_SUCCESS) continue;
    std::string line;
    for (uint32_t i = 0; i < m; ++i) {
      const VkPipelineExecutableStatisticKHR& st = stats[i];
      std::string value;
      switch (st.format) {
        case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_BOOL32_KHR:
          value = st.value.b32 ? "true" : "false";
          break;
        case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_INT64_KHR:
          value = fmt::format("{}", st.value.i64);
          break;
        case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR:
          value = fmt::format("{}", st.value.u64);
          break;
        default:
          value = fmt::format("{:g}", st.value.f64);
          break;
      }
      line += fmt::format("{}{}={}", i ? ", " : "", st.name, value);
    }
    logger().debug("pipeline {} (workgroup {}) executable '{}': {}", kernel.name, p.workgroup_size, executables[e].name,
                   line);
  }
}

void Pipelines::destroy(Pipeline& p) const noexcept {
  if (p.pipeline) ctx_.fn.vkDestroyPipeline(ctx_.device, p.pipeline, nullptr);
  if (p.layout) ctx_.fn.vkDestroyPipelineLayout(ctx_.device, p.layout, nullptr);
  if (p.set_layout) ctx_.fn.vkDestroyDescriptorSetLayout(ctx_.device, p.set_layout, nullptr);
  p = Pipeline{};
}

}  // namespace vkstark::vulkan
