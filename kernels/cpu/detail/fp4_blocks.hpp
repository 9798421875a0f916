// CPU bodies over extension-field (Fp4) arrays at each SIMD level: the folds of pairs (FoldPairsFp4,
// FoldPairs2Fp4, StackedFoldPartials), the sumcheck products of pairs (SumcheckProductPartials,
// StackedFoldPartials), StackedKernelTable and BatchColumnsExt. kernels/cpu/fp4_blocks.cpp holds the
// portable bodies and the dispatch by level, fp4_blocks_avx2.cpp and fp4_blocks_avx512.cpp the
// bodies compiled for their ISA (detail/fp4_blocks.inl: the elements stay as stored, 4 words side
// by side, and a vector holds 2 (AVX2) or 4 (AVX-512) of them). Every field operation returns the
// canonical element, so every level gives the same bits. Plain data and declarations only.
#pragma once

#include <cstdint>

#include "kernels/field/fp4.hpp"
#include "kernels/field/simd_level.hpp"

namespace vkstark::fp4_detail {

// dst[y] = src[2y] + alpha (src[2y + 1] - src[2y]) for y in [begin, end).
struct FoldPairs {
  const Fp4* src;
  Fp4* dst;
  Fp4 alpha;
};

// StackedKernelTable: out[i] = c[2k] eq[x] + c[2k + 1] (eq[(x - 1) mod C] - eq[x]) for i in
// [begin, end), k = i >> log_chunks, x = i mod C, C = 2^log_chunks.
struct KernelTable {
  const Fp4* eq;
  const Fp4* coeffs;
  Fp4* out;
  uint64_t log_chunks;
};

// Over pairs y in [begin, end) of f and w (f0 = f[2y], f1 = f[2y + 1]):
//   s1 = sum f1 w1,  s2 = sum (2 f1 - f0) (2 w1 - w0).
struct ProductSums {
  Fp4 s1, s2;
};

// BatchColumnsExt: acc[b] += sum_c powers[c] matrix[c col_stride + b] for b in [begin, end).
struct BatchColumns {
  const Fp* matrix;
  uint64_t col_stride;
  const Fp4* powers;
  uint64_t width;
  Fp4* acc;
};

void fold_pairs(SimdLevel level, const FoldPairs& f, uint64_t begin, uint64_t end);
void kernel_table(SimdLevel level, const KernelTable& t, uint64_t begin, uint64_t end);
ProductSums product_sums(SimdLevel level, const Fp4* f, const Fp4* w, uint64_t begin, uint64_t end);
void batch_columns(SimdLevel level, const BatchColumns& b, uint64_t begin, uint64_t end);

// The portable bodies (kernels/cpu/fp4_blocks.cpp), also the SIMD bodies' tails.
void fold_pairs_scalar(const FoldPairs& f, uint64_t begin, uint64_t end);
void kernel_table_scalar(const KernelTable& t, uint64_t begin, uint64_t end);
ProductSums product_sums_scalar(const Fp4* f, const Fp4* w, uint64_t begin, uint64_t end);
void batch_columns_scalar(const BatchColumns& b, uint64_t begin, uint64_t end);

// The bodies compiled for one ISA.
void fold_pairs_avx512(const FoldPairs& f, uint64_t begin, uint64_t end);
void fold_pairs_avx2(const FoldPairs& f, uint64_t begin, uint64_t end);
void kernel_table_avx512(const KernelTable& t, uint64_t begin, uint64_t end);
void kernel_table_avx2(const KernelTable& t, uint64_t begin, uint64_t end);
ProductSums product_sums_avx512(const Fp4* f, const Fp4* w, uint64_t begin, uint64_t end);
ProductSums product_sums_avx2(const Fp4* f, const Fp4* w, uint64_t begin, uint64_t end);
void batch_columns_avx512(const BatchColumns& b, uint64_t begin, uint64_t end);
void batch_columns_avx2(const BatchColumns& b, uint64_t begin, uint64_t end);

}  // namespace vkstark::fp4_detail
