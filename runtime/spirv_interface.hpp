// Checks a kernel's SPIR-V against its KernelAbi (runtime/kernel_abi.hpp): what the shader declares
// must be what the runtime binds and pushes. Used for run-time kernels (make_runtime_kernel: the
// words may come from a file) and, in the tests, for every compiled kernel.
//
// Checked: storage buffers are in set 0 at bindings the ABI has, with its descriptor counts (view
// arrays), an array stride that divides the element type, NonWritable on views the ABI reads only
// and NonReadable on views it writes only (so the scheduler's accesses are the shader's); the
// push-constant block fits in the ABI's push words and, where the SPIR-V keeps member names, its
// members are the ABI's, in order.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "runtime/kernel_abi.hpp"

namespace vkstark {

// Empty if the SPIR-V matches `abi`, else what does not (naming the binding or member).
std::string spirv_interface_mismatch(std::span<const uint32_t> spirv, const KernelAbi& abi);

// Whether the shader reads the built-in gl_NumWorkGroups (a variable decorated BuiltIn
// NumWorkgroups). On an H100 that costs about 0.13 us of GPU time per dispatch, so the library's
// kernels do without it (runtime.glsl) and make_runtime_kernel warns about it. False for words that
// are not SPIR-V.
bool spirv_reads_num_workgroups(std::span<const uint32_t> spirv);

}  // namespace vkstark

namespace vkstark {

// What a kernel's SPIR-V asks of a device, read from the module: the capabilities a device must
// support, the workgroup (shared) memory it declares under a specialization (SpecId -> value; the
// workgroup size is SpecId 0, runtime.glsl), its storage-buffer descriptors and push-constant bytes.
// Shared sizes are the declared types' natural sizes (a driver may pad them).
struct SpirvNeeds {
  uint64_t shared_bytes = 0;
  uint32_t storage_buffers = 0;  // descriptors (a view array counts its length)
  uint32_t push_constant_bytes = 0;
  bool int64 = false, int16 = false, int8 = false, float64 = false;
  bool subgroup_basic = false;    // any GroupNonUniform capability
  bool subgroup_shuffle = false;  // GroupNonUniformShuffle or ShuffleRelative
  bool subgroup_other = false;    // vote, arithmetic, ballot, clustered or quad
  std::string error;              // not SPIR-V, or a size it could not evaluate
};
SpirvNeeds spirv_needs(std::span<const uint32_t> spirv, std::span<const std::pair<uint32_t, uint32_t>> spec = {});

}  // namespace vkstark
