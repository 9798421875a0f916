#include "kernels/hash/poseidon2_batch.hpp"

#include <algorithm>
#include <array>

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
  size_t lanes = 0;
  size_t (*wide)(Poseidon2State*, size_t) = nullptr;
  switch (cpu_simd_level()) {
    case SimdLevel::Avx512:
      wide = poseidon2_permute_avx512;
      lanes = 16;
      break;
    case SimdLevel::Avx2:
      wide = poseidon2_permute_avx2;
      lanes = 8;
      break;
    case SimdLevel::Scalar:
      break;
  }
  if (!wide) {
    for (Poseidon2State& s : states) poseidon2_permute(s);
    return;
  }
  const size_t done = wide(states.data(), states.size());
  const size_t left = states.size() - done;
  if (left == 1) {
    poseidon2_permute_one(states[done]);
  } else if (left > 1) {  // the rest padded to one more vector of states: cheaper than each alone
    std::array<Poseidon2State, 16> pad{};
    std::copy(states.begin() + std::ptrdiff_t(done), states.end(), pad.begin());
    wide(pad.data(), lanes);
    std::copy(pad.begin(), pad.begin() + std::ptrdiff_t(left), states.begin() + std::ptrdiff_t(done));
  }
}

}  // namespace vkstark
