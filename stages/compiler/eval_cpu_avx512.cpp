// The CPU constraint evaluator's blocks compiled for AVX-512 (x86-64-v4; flags in CMakeLists.txt):
// 16 rows per vector. Only called where cpu_simd_level() allows it (stages/compiler/eval_cpu.cpp).
#include <immintrin.h>

#include "kernels/field/fp.hpp"
#include "stages/compiler/detail/eval_cpu_program.hpp"

namespace vkstark::eval_cpu_detail {
namespace {
#include "kernels/field/detail/packed_avx512.inl"
#include "stages/compiler/detail/eval_cpu_blocks.inl"
}  // namespace

void eval_blocks_avx512(const Program& program, const Dispatch& d, const Scratch& s, uint64_t begin, uint64_t end) {
  run_blocks(program, d, s, begin, end);
}

}  // namespace vkstark::eval_cpu_detail
