// The SIMD level the CPU kernels run at (docs/decisions.md, "CPU SIMD by run-time dispatch"): one
// decision for every CPU kernel that has per-ISA code (batch Poseidon2, the NTT passes). Each level
// above Scalar is an x86-64 micro-architecture level; its translation units are compiled for it
// (CMakeLists.txt) and only run where the processor has all of it. Thread-safe.
#pragma once

#include <string_view>

namespace vkstark {

enum class SimdLevel {
  Scalar,  // portable code only
  Avx2,    // x86-64-v3 (AVX2, FMA, BMI2): 8 lanes of 32 bits
  Avx512,  // x86-64-v4 (AVX-512 F, VL, BW, DQ, CD): 16 lanes of 32 bits
};

// The widest level the processor and the operating system support.
SimdLevel detected_simd_level();

// The level the CPU kernels use: detected_simd_level() capped by VKSTARK_CPU_SIMD=avx2|scalar
// (read at the first call; other values are ignored with a warning), or what set_cpu_simd_level
// chose last.
SimdLevel cpu_simd_level();

// Makes the CPU kernels run at `level` from their next call on (tests compare the levels this way;
// every level gives the same bits). Throws InputError when the processor lacks `level`.
void set_cpu_simd_level(SimdLevel level);

std::string_view to_string(SimdLevel level);  // "scalar" | "avx2" | "avx512"

}  // namespace vkstark
