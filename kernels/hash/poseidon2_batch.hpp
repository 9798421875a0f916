// Batch Poseidon2 on the CPU: permutes many independent states with the widest SIMD unit the
// processor has (AVX-512: 16 states at a time, AVX2: 8, otherwise the scalar permutation), as
// cpu_simd_level() (kernels/field/simd_level.hpp) allows; every path gives the same bits as
// poseidon2_permute. Thread-safe (no shared state).
#pragma once

#include <span>
#include <string_view>

#include "kernels/hash/poseidon2.hpp"

namespace vkstark {

void poseidon2_permute_batch(std::span<Poseidon2State> states);

// One state on the fastest single-state path (AVX2 and AVX-512: the state in two 256-bit
// vectors; otherwise the scalar permutation): the transcript's permutations, each waiting for the last.
void poseidon2_permute_one(Poseidon2State& state);

// "avx512", "avx2" or "scalar": the path poseidon2_permute_batch takes now (cpu_simd_level()).
std::string_view poseidon2_batch_isa();

}  // namespace vkstark
