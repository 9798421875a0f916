// AVX-512 packed Poseidon2 (16 states per vector). Compiled with -mavx512f; only called after a
// run-time CPU check (poseidon2_batch.cpp).
#include <immintrin.h>

#include "kernels/hash/poseidon2_batch.hpp"

namespace vkstark {
namespace {
#include "kernels/field/detail/packed_avx512.inl"
// after the packed arithmetic it uses
#include "kernels/hash/poseidon2_simd.inl"
}  // namespace

size_t poseidon2_permute_avx512(Poseidon2State* states, size_t n) { return permute_all(states, n); }

}  // namespace vkstark
