// The extension-field instruction stream (stages/compiler/ext_program.hpp) as the CPU block bodies
// run it: ext_program.cpp decodes a chunk's program, fills the prologue's slots and runs blocks of
// kPointLanes points with the body of the current SIMD level (kernels/field/simd_level.hpp):
// ext_program_avx512.cpp and ext_program_avx2.cpp, compiled for their ISA, or the portable one in
// ext_program.cpp. All three include detail/ext_cpu_blocks.inl. This header holds plain data and
// declarations only, so nothing compiled for one ISA can be shared with another translation unit.
#pragma once

#include <cstdint>

namespace vkstark::ext_cpu_detail {

// Points per block: every instruction runs over kPointLanes points (a multiple of the widest SIMD
// level's 16 lanes), so decoding it is paid once per block and each Fp4 operation is four
// coordinates' worth of independent vector operations.
inline constexpr uint32_t kPointLanes = 32;

// ExtInstr with its op widened (the same values as ExtOp).
struct Instr {
  uint32_t op = 0;
  uint32_t dst = 0;
  uint32_t a = 0;
  uint32_t b = 0;
};
inline constexpr uint32_t kOpLoad = 0, kOpAdd = 3, kOpSub = 4, kOpMul = 5, kOpNeg = 6, kOpFold = 7;

// The body of a program (the prologue's Const and Public slots are filled by the caller).
struct Body {
  const Instr* code = nullptr;
  uint64_t size = 0;
};

// One dispatch's inputs as Montgomery words (Fp4: 4 words).
struct Points {
  const uint32_t* const* parts = nullptr;  // Fp4 tables: column b of part a at b 2^log_len, two values per y
  uint32_t log_len = 0;                    // log2 of the entries per column (2 per y)
  uint64_t x_first = 0;
  const uint32_t* coeffs = nullptr;  // the chunk's fold coefficients (Fp4), from its first root
};

// Slot s, coordinate t, lane l of a block at regs[(4 s + t) kPointLanes + l] (64-byte aligned).
// Adds the program's sums at points first .. first + count - 1 (count <= kPointLanes; the other
// lanes repeat the last point) to acc[t kPointLanes + l].
void ext_block_avx512(const Body& body, const Points& in, uint32_t* regs, uint64_t first, uint64_t count,
                      uint32_t* acc);
void ext_block_avx2(const Body& body, const Points& in, uint32_t* regs, uint64_t first, uint64_t count, uint32_t* acc);

}  // namespace vkstark::ext_cpu_detail
