// Internal: arithmetic shared by the kernels' grid() and check() statics (runtime/kernel.hpp).
// Every function here is total: grid() runs before check() has rejected bad Args.
#pragma once

#include <cstdint>
#include <limits>

namespace vkstark::detail {

// The number of columns of `len` entries, `stride` apart, that fill a view of `count` entries
// exactly ((columns - 1) * stride + len == count, columns not overlapping): the batch of a batched
// kernel, its grid.y. 0 when the view is not such a batch.
constexpr uint32_t column_count(uint64_t count, uint64_t len, uint64_t stride) {
  if (len == 0 || count < len) return 0;
  if (count == len) return 1;
  if (stride < len || (count - len) % stride != 0) return 0;
  const uint64_t columns = (count - len) / stride + 1;
  return columns > std::numeric_limits<uint32_t>::max() ? 0 : static_cast<uint32_t>(columns);
}

// 2^k, or 0 where it does not fit 64 bits.
constexpr uint64_t pow2(uint64_t k) { return k < 64 ? uint64_t(1) << k : 0; }

// n as a grid dimension: saturates at 2^32 - 1 (check() reports a count that large).
constexpr uint32_t grid_dim(uint64_t n) {
  return n > std::numeric_limits<uint32_t>::max() ? std::numeric_limits<uint32_t>::max() : static_cast<uint32_t>(n);
}

}  // namespace vkstark::detail
