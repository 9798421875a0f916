#include "kernels/hash/poseidon2_batch.hpp"

#include "kernels/field/simd_level.hpp"

namespace vkstark {

// Defined in poseidon2_avx512.cpp / poseidon2_avx2.cpp, compiled with their ISA flags. Each permutes
// the first n - n % lanes states and returns how many it did.
size_t poseidon2_permute_avx512(Poseidon2State* states, size_t n);
size_t poseidon2_permute_avx2(Poseidon2State* states, size_t n);
void poseidon2_permute_one_avx2(Poseidon2State& state);

void poseidon2_permute_one(Poseidon2State& state) {
  switch (cpu_simd_level()) {
    case SimdLevel::Avx512:  // the AVX2 body: faster than one 512-bit vector (decisions.md)
    case SimdLevel::Avx2:
      return poseidon2_permute_one_avx2(state);
    case SimdLevel::Scalar:
      return poseidon2_permute(state);
  }
}

std::string_view poseidon2_batch_isa() { return to_string(cpu_simd_level()); }

void poseidon2_permute_batch(std::span<Poseidon2State> states) {
  size_t done = 0;
  switch (cpu_simd_level()) {
    case SimdLevel::Avx512:
      done = poseidon2_permute_avx512(states.data(), states.size());
      break;
    case SimdLevel::Avx2:
      done = poseidon2_permute_avx2(states.data(), states.size());
      break;
    case SimdLevel::Scalar:
      break;
  }
  for (size_t i = done; i < states.size(); ++i) poseidon2_permute(states[i]);
}

}  // namespace vkstark
