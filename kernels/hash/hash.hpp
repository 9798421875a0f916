// Leaf hash and 2-to-1 compression built on Poseidon2 (protocol.md 2.2, 2.3). Pure functions.
#pragma once

#include <array>
#include <span>
#include <string>

#include "kernels/field/fp.hpp"
#include "kernels/field/fp4.hpp"
#include "kernels/hash/poseidon2_batch.hpp"

namespace vkstark {

inline constexpr int DIGEST_SIZE = 8;
inline constexpr int SPONGE_RATE = 8;
using Digest = std::array<Fp, DIGEST_SIZE>;

// Padding-free overwrite sponge, rate 8, capacity 8, output 8: the empty input gives the zero
// digest without a permutation; a partial last block overwrites only its first positions.
Digest hash_slice(std::span<const Fp> input);
// Extension-field values are hashed as their base coefficients [a0, a1, a2, a3] flattened.
Digest hash_slice(std::span<const Fp4> input);

// Truncated permutation: Perm(left || right)[0..8].
inline Digest compress(const Digest& left, const Digest& right) {
  Poseidon2State s;
  for (int i = 0; i < DIGEST_SIZE; ++i) {
    s[i] = left[i];
    s[DIGEST_SIZE + i] = right[i];
  }
  poseidon2_permute_one(s);
  Digest out;
  for (int i = 0; i < DIGEST_SIZE; ++i) out[i] = s[i];
  return out;
}

std::string to_string(const Digest& d);
// The eight elements as 8-digit hex words, concatenated (how the vkstark command prints a key's pre-hash).
std::string to_hex(const Digest& d);

}  // namespace vkstark
