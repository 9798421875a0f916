// One Stockham pass of kernels/ntt.hpp as the CPU bodies run it: kernels/cpu/ntt.cpp prepares it
// once per dispatch and runs its blocks of groups with the body of the current SIMD level
// (kernels/field/simd_level.hpp): ntt_avx512.cpp and ntt_avx2.cpp, compiled for their ISA, or the
// portable one in ntt.cpp. All three include detail/ntt_stockham.inl. This header holds plain data
// and declarations only, so nothing compiled for one ISA can be shared with another translation
// unit. Thread-compatible; a Pass is read-only while blocks run.
#pragma once

#include <cstdint>

#include "kernels/field/fp4.hpp"

namespace vkstark::ntt_detail {

inline constexpr uint32_t kMaxLogRadix = 8;  // kNttMaxSharedLogRadix
// Groups per block of the wide bodies: the butterflies run over kLanes independent lanes.
inline constexpr uint32_t kLanes = 8;

template <class T>  // Fp or Fp4 columns; the twiddles are base-field roots
struct Pass {
  const T* src;
  T* dst;
  uint64_t src_stride, dst_stride;
  uint32_t log_radix;
  uint32_t log_groups;   // log2(n / R)
  uint64_t src_len;      // source entries per column; the rest read as 0
  uint32_t stage;        // s = 2^stage
  uint32_t outer_shift;  // omega_{n/s}^p = omega_N^(p << outer_shift)
  const Fp* tw;          // NttTwiddles table of N = 2^log_tw: N/2 entries
  uint64_t tw_half;      // N/2
  bool inverse;
  Fp first;                          // output k is scaled by first * omega_{n/s}^(p k): n^-1 at the end of an inverse
  Fp inner[1u << kMaxLogRadix];      // inner[h + j] = omega_{2h}^j, the decimation-in-time twiddles of half-size h
  uint32_t rev[1u << kMaxLogRadix];  // bit reversal over log_radix bits
};

// Fp4 columns: blocks [begin, end) of kLanes consecutive groups each, of a pass with at least
// kLanes groups. Fp columns: blocks of packed_lanes_<isa>() groups (the ISA's vector, as
// detail/ntt_packed.inl runs them), of a pass with at least that many.
void stockham_wide_avx512(const Pass<Fp>& pass, uint64_t begin, uint64_t end);
void stockham_wide_avx512(const Pass<Fp4>& pass, uint64_t begin, uint64_t end);
void stockham_wide_avx2(const Pass<Fp>& pass, uint64_t begin, uint64_t end);
void stockham_wide_avx2(const Pass<Fp4>& pass, uint64_t begin, uint64_t end);
uint32_t packed_lanes_avx512();  // 16
uint32_t packed_lanes_avx2();    // 8

}  // namespace vkstark::ntt_detail
