// ZerocheckCosetExtend's N = 16 blocks compiled for AVX512 (flags in CMakeLists.txt). Only called
// where cpu_simd_level() allows it (kernels/cpu/zerocheck.cpp).
#include <immintrin.h>

#include "kernels/cpu/detail/coset_extend.hpp"

namespace vkstark::extend_detail {
namespace {
#include "kernels/field/detail/packed_avx512.inl"
#include "kernels/cpu/detail/coset_extend16.inl"
}  // namespace

void extend16_avx512(const Extend16& e, uint64_t begin, uint64_t end) { extend16_blocks(e, begin, end); }

}  // namespace vkstark::extend_detail
