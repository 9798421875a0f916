// The instruction stream of the CPU constraint evaluator (stages/compiler/eval_cpu.hpp) as the
// block bodies run it: eval_cpu.cpp compiles the DAG into a Program and runs blocks of rows with
// the body of the current SIMD level (kernels/field/simd_level.hpp): eval_cpu_avx512.cpp and
// eval_cpu_avx2.cpp, compiled for their ISA, or the portable one in eval_cpu.cpp. All three include
// detail/eval_cpu_blocks.inl. This header holds plain data and declarations only, so nothing
// compiled for one ISA can be shared with another translation unit. Thread-compatible; a Program
// and a Dispatch are read-only while blocks run.
#pragma once

#include <cstdint>

namespace vkstark::eval_cpu_detail {

// Rows per block: every instruction runs over one block register of kBlockRows values (a multiple
// of the widest SIMD level's 16 lanes), so decoding it (a mostly unpredictable branch) is paid once
// per kBlockRows rows and an instruction offers kBlockRows / 16 independent vector operations. On
// constraint_eval_bench (Zen 5, one core) 128 rows beat 64 by 10-25% and 256 at AVX2, whose larger
// register file (registers x 1 KiB) no longer fits the cache.
inline constexpr uint32_t kBlockRows = 128;

enum class Op : uint8_t {
  LoadLocal,   // dst = column b of part a, rows r .. r + kBlockRows - 1
  LoadNext,    // dst = column b of part a, rows r + 1 .. (wrapping at the height)
  Add,         // dst = a + b
  Sub,         // dst = a - b
  Neg,         // dst = -a
  Mul,         // dst = a * b
  Fold,        // accumulators += lambda_powers[b] * a
  FoldReduce,  // accumulators reduced below 2^60 + 2^32 (wide_reduce), then as Fold
};

// 16 bytes; registers are numbered in units of one block register (kBlockRows values).
struct Instr {
  Op op = Op::Add;
  uint32_t dst = 0;
  uint32_t a = 0;
  uint32_t b = 0;
};
static_assert(sizeof(Instr) == 16);

// Registers 0, 1, 2 hold the selectors is_first_row, is_last_row, is_transition (NodeKind order);
// then Program::num_fixed registers hold Dispatch::fixed (constants, public values); the others
// are the values' registers.
inline constexpr uint32_t kFirstFixed = 3;

struct Program {
  const Instr* code = nullptr;
  uint64_t code_size = 0;
  uint32_t num_regs = 0;  // block registers in all, the selectors' and fixed ones included
  uint32_t num_fixed = 0;
};

// One dispatch's memory, as Montgomery words.
struct Dispatch {
  const uint32_t* const* parts = nullptr;   // column-major parts in row-view order, width_p << log_height each
  const uint32_t* fixed = nullptr;          // Program::num_fixed values
  const uint32_t* lambda_powers = nullptr;  // 4 words per constraint (Fp4 layout)
  uint32_t* out = nullptr;                  // 4 words per row
  uint32_t log_height = 0;
  bool accumulate = false;  // out[r] += the row's sum; else out[r] = it
};

// The scratch one run of blocks needs: 64-byte aligned, Program::num_regs * kBlockRows words of
// registers and 4 * kBlockRows 64-bit accumulators.
struct Scratch {
  uint32_t* regs = nullptr;
  uint64_t* acc = nullptr;
};

// Blocks [begin, end) (rows begin * kBlockRows ..) of a dispatch, each row's out written.
void eval_blocks_avx512(const Program& program, const Dispatch& d, const Scratch& s, uint64_t begin, uint64_t end);
void eval_blocks_avx2(const Program& program, const Dispatch& d, const Scratch& s, uint64_t begin, uint64_t end);

}  // namespace vkstark::eval_cpu_detail
