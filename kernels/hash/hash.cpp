#include "kernels/hash/hash.hpp"

#include <fmt/format.h>

namespace vkstark {

Digest hash_slice(std::span<const Fp> input) {
  Poseidon2State state{};
  size_t i = 0;
  // Every full block is absorbed then permuted; a trailing partial block is absorbed then permuted;
  // nothing is permuted after the last full block.
  while (i < input.size()) {
    size_t n = std::min<size_t>(SPONGE_RATE, input.size() - i);
    for (size_t j = 0; j < n; ++j) state[j] = input[i + j];
    poseidon2_permute_one(state);
    i += n;
  }
  Digest out;
  for (int j = 0; j < DIGEST_SIZE; ++j) out[j] = state[j];
  return out;
}

Digest hash_slice(std::span<const Fp4> input) {
  static_assert(sizeof(Fp4) == 4 * sizeof(Fp));
  return hash_slice(std::span<const Fp>(reinterpret_cast<const Fp*>(input.data()), 4 * input.size()));
}

std::string to_string(const Digest& d) {
  return fmt::format("[{}, {}, {}, {}, {}, {}, {}, {}]", d[0].value(), d[1].value(), d[2].value(), d[3].value(),
                     d[4].value(), d[5].value(), d[6].value(), d[7].value());
}

std::string to_hex(const Digest& d) {
  std::string s;
  for (Fp c : d) s += fmt::format("{:08x}", c.value());
  return s;
}

}  // namespace vkstark
