#include "kernels/hash/poseidon2_batch.hpp"

#include <cstdlib>
#include <cstring>

namespace vkstark {

// Defined in poseidon2_avx512.cpp / poseidon2_avx2.cpp, compiled with their ISA flags. Each permutes
// the first n - n % lanes states and returns how many it did.
size_t poseidon2_permute_avx512(Poseidon2State* states, size_t n);
size_t poseidon2_permute_avx2(Poseidon2State* states, size_t n);

namespace {
enum class Isa { Scalar, Avx2, Avx512 };

Isa detect() {
  __builtin_cpu_init();
  Isa best = __builtin_cpu_supports("avx512f") ? Isa::Avx512 : __builtin_cpu_supports("avx2") ? Isa::Avx2 : Isa::Scalar;
  if (const char* cap = std::getenv("VKSTARK_CPU_SIMD")) {
    if (std::strcmp(cap, "scalar") == 0) best = Isa::Scalar;
    if (std::strcmp(cap, "avx2") == 0 && best == Isa::Avx512) best = Isa::Avx2;
  }
  return best;
}

Isa isa() {
  static const Isa value = detect();
  return value;
}
}  // namespace

std::string_view poseidon2_batch_isa() {
  switch (isa()) {
    case Isa::Avx512:
      return "avx512";
    case Isa::Avx2:
      return "avx2";
    default:
      return "scalar";
  }
}

void poseidon2_permute_batch(std::span<Poseidon2State> states) {
  size_t done = 0;
  switch (isa()) {
    case Isa::Avx512:
      done = poseidon2_permute_avx512(states.data(), states.size());
      break;
    case Isa::Avx2:
      done = poseidon2_permute_avx2(states.data(), states.size());
      break;
    default:
      break;
  }
  for (size_t i = done; i < states.size(); ++i) poseidon2_permute(states[i]);
}

}  // namespace vkstark
