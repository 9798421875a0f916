// The wide Stockham blocks of the NTT passes, compiled for AVX-512 (x86-64-v4; flags in
// CMakeLists.txt). Only called where cpu_simd_level() allows it (kernels/cpu/ntt.cpp).
#include <immintrin.h>

#include "kernels/cpu/detail/ntt_pass.hpp"

namespace vkstark::ntt_detail {
namespace {
#include "kernels/field/detail/packed_avx512.inl"
// after the packed arithmetic they use
#include "kernels/cpu/detail/ntt_stockham.inl"
// after the twiddles of ntt_stockham.inl
#include "kernels/cpu/detail/ntt_packed.inl"
}  // namespace

void stockham_wide_avx512(const Pass<Fp>& pass, uint64_t begin, uint64_t end) { stockham_packed(pass, begin, end); }
uint32_t packed_lanes_avx512() { return LANES; }
void stockham_wide_avx512(const Pass<Fp4>& pass, uint64_t begin, uint64_t end) {
  stockham_any_radix<Fp4, kLanes>(pass, begin, end);
}

}  // namespace vkstark::ntt_detail
