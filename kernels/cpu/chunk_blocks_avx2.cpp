// The blocks of chunks (ZerocheckCosetExtend for N = 16, PleFoldColumns, NttRsMessage, StackedRound0SliceSums) compiled
// for AVX2 (flags in CMakeLists.txt). Only called where cpu_simd_level() allows it (kernels/cpu/batch_constraint.cpp,
// mle_tables.cpp).
#include <immintrin.h>

#include "kernels/cpu/detail/chunk_blocks.hpp"

namespace vkstark::chunk_detail {
namespace {
#include "kernels/field/detail/packed_avx2.inl"
// after the packed arithmetic it uses
#include "kernels/cpu/detail/chunk_blocks.inl"
}  // namespace

void extend16_avx2(const Extend16& e, uint64_t begin, uint64_t end) { extend16_blocks(e, begin, end); }
void ple_fold_avx2(const PleFold& f, uint64_t begin, uint64_t end) { ple_fold_blocks(f, begin, end); }
void rs_message16_avx2(const RsMessage16& r, uint64_t begin, uint64_t end) { rs_message16_blocks(r, begin, end); }
void slice_sums16_avx2(const SliceSums16& r, uint64_t begin, uint64_t end) { slice_sums16_rows(r, begin, end); }

}  // namespace vkstark::chunk_detail
