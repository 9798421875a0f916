// The extension-field bodies of detail/fp4_blocks.hpp compiled for AVX2 (flags in CMakeLists.txt).
// Only called where cpu_simd_level() allows it (kernels/cpu/fp4_blocks.cpp).
#include <immintrin.h>

#include "kernels/cpu/detail/fp4_blocks.hpp"

namespace vkstark::fp4_detail {
namespace {
#include "kernels/field/detail/packed_avx2.inl"
// after the packed arithmetic it uses
#include "kernels/cpu/detail/fp4_blocks.inl"
}  // namespace

void fold_pairs_avx2(const FoldPairs& f, uint64_t begin, uint64_t end) { fold_pairs_body(f, begin, end); }
void kernel_table_avx2(const KernelTable& t, uint64_t begin, uint64_t end) { kernel_table_body(t, begin, end); }
ProductSums product_sums_avx2(const Fp4* f, const Fp4* w, uint64_t begin, uint64_t end) {
  return product_sums_body(f, w, begin, end);
}
void batch_columns_avx2(const BatchColumns& b, uint64_t begin, uint64_t end) { batch_columns_body(b, begin, end); }

}  // namespace vkstark::fp4_detail
