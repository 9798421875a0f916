// The wide Stockham blocks of the NTT passes, compiled for AVX-512 (x86-64-v4; flags in
// CMakeLists.txt). Only called where cpu_simd_level() allows it (kernels/cpu/ntt.cpp).
#include "kernels/cpu/detail/ntt_pass.hpp"

namespace vkstark::ntt_detail {
namespace {
#include "kernels/cpu/detail/ntt_stockham.inl"
}  // namespace

void stockham_wide_avx512(const Pass<Fp>& pass, uint64_t begin, uint64_t end) {
  stockham_any_radix<Fp, kLanes>(pass, begin, end);
}
void stockham_wide_avx512(const Pass<Fp4>& pass, uint64_t begin, uint64_t end) {
  stockham_any_radix<Fp4, kLanes>(pass, begin, end);
}

}  // namespace vkstark::ntt_detail
