// The CPU constraint evaluator's blocks compiled for AVX2 (x86-64-v3; flags in CMakeLists.txt):
// 8 rows per vector. Only called where cpu_simd_level() allows it (stages/compiler/eval_cpu.cpp).
#include <immintrin.h>

#include "kernels/field/fp.hpp"
#include "stages/compiler/detail/eval_cpu_program.hpp"

namespace vkstark::eval_cpu_detail {
namespace {
#include "kernels/field/detail/packed_avx2.inl"
#include "stages/compiler/detail/eval_cpu_blocks.inl"
}  // namespace

void eval_blocks_avx2(const Program& program, const Dispatch& d, const Scratch& s, uint64_t begin, uint64_t end) {
  run_blocks(program, d, s, begin, end);
}

}  // namespace vkstark::eval_cpu_detail
