// CPU bodies over blocks of chunks of a column (chunk x of a column of height H: its rows x N ..
// x N + N - 1, mod H), at each SIMD level: ZerocheckCosetExtend for N = 16 (kernels/batch_constraint.hpp:
// the inverse DFT, the coset's shifts, the forward DFT) and PleFoldColumns
// (kernels/mle_tables.hpp: the chunk's rows weighted by N Fp4 weights). kernels/cpu/chunk_blocks.cpp
// holds the portable bodies and the dispatch by level, chunk_blocks_avx2.cpp and
// chunk_blocks_avx512.cpp the bodies compiled for their ISA; all include detail/chunk_blocks.inl.
// Plain data and declarations only (nothing compiled for one ISA is shared with another
// translation unit).
#pragma once

#include <cstdint>

#include "kernels/field/fp.hpp"
#include "kernels/field/simd_level.hpp"

namespace vkstark::chunk_detail {

// Chunks handled together: the arithmetic runs over this many lanes.
inline constexpr uint64_t kLanes = 16;
// PleFold's N at most (the transposed block lives on the stack).
inline constexpr uint64_t kMaxFoldN = 64;

struct Extend16 {
  const Fp* in;   // column-major, H rows per column
  Fp* out;        // column-major, 16 B rows per column
  const Fp* fft;  // ZerocheckCosetExtend's table of 32: omega^j, omega^-j (j < 8), s_j (j < 16)
  uint64_t log_height;
  uint64_t chunks;  // B
  uint64_t first_chunk;
  uint64_t shift;  // 0 local, 1 next
};

struct PleFold {
  const Fp* in;       // column-major, H rows per column
  uint32_t* out;      // Fp4 words: out[c B + x], 4 words each
  const uint32_t* w;  // N Fp4 weights (Montgomery words)
  uint64_t log_height;
  uint64_t log_n;   // N <= kMaxFoldN
  uint64_t chunks;  // B
  uint64_t first_chunk;
  uint64_t shift;
};

// NttRsMessage for chunks of 16 (kernels/ntt.hpp): per chunk, the inverse DFT then the subset-zeta
// transform over its 4 index bits, or (inverse) the Möbius transform then the forward DFT.
struct RsMessage16 {
  Fp* data;  // column-major, chunks * 16 entries per column at col_stride
  uint64_t col_stride;
  uint64_t chunks;
  const uint32_t* tw;  // 8 roots omega_16^j of the DFT's direction (Montgomery words)
  uint32_t scale;      // 16^-1 for the inverse DFT, 1 for the forward one (Montgomery word)
  bool inverse;        // Möbius then forward DFT
};

// StackedRound0SliceSums for l_skip = 4 (kernels/stacked_reduction.hpp): row r = (k, part) sums
// eq[x] chunk and (eq[x - 1] - eq[x]) chunk over its run of chunks x of slice k, 16 entries each.
struct SliceSums16 {
  const Fp* trace;     // slice k's chunk x at ((k << log_chunks) + x) 16
  const uint32_t* eq;  // Fp4 words, 2^log_chunks entries
  uint32_t* out;       // Fp4 words: row r's 16 sums with eq, then the 16 with the differences
  uint64_t log_chunks;
  uint64_t log_parts;  // rows per slice
};

// Blocks [begin, end) of kLanes chunks of one column each (block b: column b / ceil(B / kLanes)),
// with the body of `level` (kernels/cpu/chunk_blocks.cpp).
void extend16(SimdLevel level, const Extend16& e, uint64_t begin, uint64_t end);
void ple_fold(SimdLevel level, const PleFold& f, uint64_t begin, uint64_t end);
void rs_message16(SimdLevel level, const RsMessage16& r, uint64_t begin, uint64_t end);
void slice_sums16(SimdLevel level, const SliceSums16& r, uint64_t begin, uint64_t end);  // rows
// The bodies compiled for one ISA.
void rs_message16_avx512(const RsMessage16& r, uint64_t begin, uint64_t end);
void rs_message16_avx2(const RsMessage16& r, uint64_t begin, uint64_t end);
void slice_sums16_avx512(const SliceSums16& r, uint64_t begin, uint64_t end);
void slice_sums16_avx2(const SliceSums16& r, uint64_t begin, uint64_t end);
void extend16_avx512(const Extend16& e, uint64_t begin, uint64_t end);
void extend16_avx2(const Extend16& e, uint64_t begin, uint64_t end);
void ple_fold_avx512(const PleFold& f, uint64_t begin, uint64_t end);
void ple_fold_avx2(const PleFold& f, uint64_t begin, uint64_t end);

}  // namespace vkstark::chunk_detail
