// Kernels made at run time from GLSL (architecture.md, "Generated kernels"): the source is
// compiled to SPIR-V in process with libglslang, with the shared kernel headers (kernels/glsl/*.glsl
// and the Poseidon2 constants) available to #include, and becomes a run-time kernel
// (runtime/kernel.hpp, make_runtime_kernel) that any executor runs.
//
// Thread-safe: compilations may run concurrently.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/kernel.hpp"

namespace vkstark {

// How compile_glsl got its SPIR-V.
struct GlslCompileInfo {
  bool from_cache = false;           // loaded from the on-disk cache; else compiled by glslang
  std::filesystem::path cache_file;  // this source's cache entry (empty: the cache is off)
};

// SPIR-V (Vulkan 1.2) of a GLSL compute shader. GraphError with the compiler's messages when the
// source does not compile; `name` labels them.
//
// On-disk cache: <disk_cache_dir()>/spirv/<key>.spv (runtime/disk_cache.hpp; VKSTARK_PIPELINE_CACHE=0
// turns it off), key = SHA-256 of (cache format version, glslang version, compile options, the
// embedded headers' names and text, `name`, `source`). A hit compiles nothing. An entry is used only
// when its header, key, word count, SPIR-V magic and stored SHA-256 of the words all check out;
// otherwise it is compiled again and rewritten. Written to a temporary file and renamed, so that
// concurrent processes never see half a file; a cache that cannot be written is logged, not an
// error. Logs at debug level (VKSTARK_LOG_LEVEL=debug) whether it compiled or loaded, and how long
// that took.
[[nodiscard]] std::vector<uint32_t> compile_glsl(std::string_view source, std::string_view name,
                                                 GlslCompileInfo* info = nullptr);

// The cached SPIR-V of `source` (as compile_glsl would load it), or nothing when the on-disk cache
// does not hold a good entry for it or is off: never compiles.
[[nodiscard]] std::optional<std::vector<uint32_t>> cached_glsl(std::string_view source, std::string_view name);

// A run-time kernel whose GLSL is its generated interface (glsl_declarations(abi)) followed by
// `body` (extra includes, helpers and main()). The source starts with #version 460 and enables
// GL_GOOGLE_include_directive, GL_EXT_control_flow_attributes and the KHR subgroup basic, shuffle
// and arithmetic extensions (a body cannot: extensions precede declarations). The CPU body reads its views through
// CpuContext::view / scalars in ABI order. `grid` and `check` are required (RuntimeKernelDesc).
// `constants` go into the generated interface, as a compiled kernel's K::constants.
struct GlslKernelDesc {
  std::string name;
  KernelAbi abi;
  std::vector<KernelConstant> constants = {};
  std::string body;
  uint32_t workgroup_size = 0;
  std::function<void(const CpuContext& ctx)> cpu;
  std::function<Grid(const RuntimeArgs&)> grid;
  std::function<std::string(const RuntimeArgs&)> check;
  bool cached_only = false;  // make_glsl_kernel returns null when the SPIR-V cache lacks it (cached_glsl)
  // False: a CPU-only kernel (RuntimeKernelDesc::cpu_only): `body` is not compiled (it may be empty).
  bool spirv = true;
};
[[nodiscard]] std::shared_ptr<const KernelInfo> make_glsl_kernel(GlslKernelDesc desc);

}  // namespace vkstark
