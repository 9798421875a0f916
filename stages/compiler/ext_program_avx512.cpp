// The extension-field interpreter's CPU blocks compiled for AVX512 (flags in CMakeLists.txt). Only
// called where cpu_simd_level() allows it (stages/compiler/ext_program.cpp).
#include <immintrin.h>

#include "kernels/field/fp4.hpp"
#include "stages/compiler/detail/ext_cpu_program.hpp"

namespace vkstark::ext_cpu_detail {
namespace {
#include "kernels/field/detail/packed_avx512.inl"
#include "stages/compiler/detail/ext_cpu_blocks.inl"
}  // namespace

void ext_block_avx512(const Body& body, const Points& in, uint32_t* regs, uint64_t first, uint64_t count,
                      uint32_t* acc) {
  ext_block(body, in, regs, first, count, acc);
}

}  // namespace vkstark::ext_cpu_detail
