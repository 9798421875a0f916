// Where vkstark keeps its on-disk caches: the Vulkan pipeline cache (executors/vulkan/pipelines.hpp)
// and the SPIR-V of kernels compiled at run time (kernels/glsl/compiler.hpp). One directory and one
// switch for both, read from the environment at each call:
//   $XDG_CACHE_HOME/vkstark, else $HOME/.cache/vkstark; VKSTARK_PIPELINE_CACHE=0 turns both off.
// A cache is an optimisation: a file that cannot be read or written is not an error.
//
// Thread-safe (reads the environment only).
#pragma once

#include <filesystem>

namespace vkstark {

// The cache directory (not created here), or an empty path when the caches are off or neither
// XDG_CACHE_HOME nor HOME is set.
std::filesystem::path disk_cache_dir();

}  // namespace vkstark
