// ZerocheckCosetExtend's CPU body for N = 16 (kernels/zerocheck.hpp: the inverse DFT, the coset's
// shifts, the forward DFT) at each SIMD level: kernels/cpu/zerocheck.cpp runs the portable one,
// zerocheck_avx2.cpp and zerocheck_avx512.cpp the ones compiled for their ISA; all three include
// detail/coset_extend16.inl. Plain data and declarations only (nothing compiled for one ISA is
// shared with another translation unit).
#pragma once

#include <cstdint>

#include "kernels/field/fp.hpp"

namespace vkstark::extend_detail {

// Chunks extended together: the butterflies run over this many lanes.
inline constexpr uint64_t kLanes = 16;

struct Extend16 {
  const Fp* in;        // column-major, H rows per column
  Fp* out;             // column-major, 16 B rows per column
  const Fp* fft;       // ZerocheckCosetExtend's table of 32: omega^j, omega^-j (j < 8), s_j (j < 16)
  uint64_t log_height;
  uint64_t chunks;     // B
  uint64_t first_chunk;
  uint64_t shift;      // 0 local, 1 next
};

// Blocks [begin, end) of kLanes chunks of one column each (block b: column b / ceil(B / kLanes)).
void extend16_avx512(const Extend16& e, uint64_t begin, uint64_t end);
void extend16_avx2(const Extend16& e, uint64_t begin, uint64_t end);

}  // namespace vkstark::extend_detail
