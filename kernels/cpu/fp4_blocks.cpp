// The portable bodies of detail/fp4_blocks.hpp (the extension-field arithmetic of Fp4, one element
// at a time) and the dispatch to the bodies compiled per ISA (fp4_blocks_avx2.cpp,
// fp4_blocks_avx512.cpp).
#include "kernels/cpu/detail/fp4_blocks.hpp"

#include "kernels/field/lazy_sum.hpp"

namespace vkstark::fp4_detail {

void fold_pairs_scalar(const FoldPairs& f, uint64_t begin, uint64_t end) {
  for (uint64_t y = begin; y < end; ++y) f.dst[y] = f.src[2 * y] + f.alpha * (f.src[2 * y + 1] - f.src[2 * y]);
}

void kernel_table_scalar(const KernelTable& t, uint64_t begin, uint64_t end) {
  const uint64_t cmask = (uint64_t(1) << t.log_chunks) - 1;
  for (uint64_t i = begin; i < end; ++i) {
    const uint64_t k = i >> t.log_chunks, x = i & cmask;
    t.out[i] = t.coeffs[2 * k] * t.eq[x] + t.coeffs[2 * k + 1] * (t.eq[(x - 1) & cmask] - t.eq[x]);
  }
}

ProductSums product_sums_scalar(const Fp4* f, const Fp4* w, uint64_t begin, uint64_t end) {
  ProductSums r;
  for (uint64_t y = begin; y < end; ++y) {
    const Fp4 f0 = f[2 * y], f1 = f[2 * y + 1], w0 = w[2 * y], w1 = w[2 * y + 1];
    r.s1 += f1 * w1;
    r.s2 += (f1 + f1 - f0) * (w1 + w1 - w0);
  }
  return r;
}

void batch_columns_scalar(const BatchColumns& bc, uint64_t begin, uint64_t end) {
  for (uint64_t b = begin; b < end; ++b) {
    Fp4LazySum s;
    for (uint64_t c = 0; c < bc.width; ++c) s.add(bc.powers[c], bc.matrix[c * bc.col_stride + b]);
    bc.acc[b] += s.value();
  }
}

void fold_pairs(SimdLevel level, const FoldPairs& f, uint64_t begin, uint64_t end) {
  switch (level) {
    case SimdLevel::Avx512:
      return fold_pairs_avx512(f, begin, end);
    case SimdLevel::Avx2:
      return fold_pairs_avx2(f, begin, end);
    case SimdLevel::Scalar:
      return fold_pairs_scalar(f, begin, end);
  }
}

void kernel_table(SimdLevel level, const KernelTable& t, uint64_t begin, uint64_t end) {
  switch (level) {
    case SimdLevel::Avx512:
      return kernel_table_avx512(t, begin, end);
    case SimdLevel::Avx2:
      return kernel_table_avx2(t, begin, end);
    case SimdLevel::Scalar:
      return kernel_table_scalar(t, begin, end);
  }
}

ProductSums product_sums(SimdLevel level, const Fp4* f, const Fp4* w, uint64_t begin, uint64_t end) {
  switch (level) {
    case SimdLevel::Avx512:
      return product_sums_avx512(f, w, begin, end);
    case SimdLevel::Avx2:
      return product_sums_avx2(f, w, begin, end);
    case SimdLevel::Scalar:
      break;
  }
  return product_sums_scalar(f, w, begin, end);  // (after the switch: a value on every path)
}

void batch_columns(SimdLevel level, const BatchColumns& b, uint64_t begin, uint64_t end) {
  switch (level) {
    case SimdLevel::Avx512:
      return batch_columns_avx512(b, begin, end);
    case SimdLevel::Avx2:
      return batch_columns_avx2(b, begin, end);
    case SimdLevel::Scalar:
      return batch_columns_scalar(b, begin, end);
  }
}

}  // namespace vkstark::fp4_detail
