// The portable blocks of chunks (detail/chunk_blocks.hpp) and the dispatch to the body of a SIMD
// level: the bodies of every level compiled once each, here and in chunk_blocks_avx2.cpp /
// chunk_blocks_avx512.cpp.
#include "kernels/cpu/detail/chunk_blocks.hpp"

namespace vkstark::chunk_detail {
namespace {
#include "kernels/field/detail/packed_scalar.inl"
// after the packed arithmetic it uses
#include "kernels/cpu/detail/chunk_blocks.inl"
}  // namespace

void extend16(SimdLevel level, const Extend16& e, uint64_t begin, uint64_t end) {
  switch (level) {
    case SimdLevel::Avx512:
      return extend16_avx512(e, begin, end);
    case SimdLevel::Avx2:
      return extend16_avx2(e, begin, end);
    case SimdLevel::Scalar:
      return extend16_blocks(e, begin, end);
  }
}

void ple_fold(SimdLevel level, const PleFold& f, uint64_t begin, uint64_t end) {
  switch (level) {
    case SimdLevel::Avx512:
      return ple_fold_avx512(f, begin, end);
    case SimdLevel::Avx2:
      return ple_fold_avx2(f, begin, end);
    case SimdLevel::Scalar:
      return ple_fold_blocks(f, begin, end);
  }
}

void rs_message16(SimdLevel level, const RsMessage16& r, uint64_t begin, uint64_t end) {
  switch (level) {
    case SimdLevel::Avx512:
      return rs_message16_avx512(r, begin, end);
    case SimdLevel::Avx2:
      return rs_message16_avx2(r, begin, end);
    case SimdLevel::Scalar:
      return rs_message16_blocks(r, begin, end);
  }
}

void slice_sums16(SimdLevel level, const SliceSums16& r, uint64_t begin, uint64_t end) {
  switch (level) {
    case SimdLevel::Avx512:
      return slice_sums16_avx512(r, begin, end);
    case SimdLevel::Avx2:
      return slice_sums16_avx2(r, begin, end);
    case SimdLevel::Scalar:
      return slice_sums16_rows(r, begin, end);
  }
}

}  // namespace vkstark::chunk_detail
