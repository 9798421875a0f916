// The Keccak-f[1600] AIR of the keccakf example (protocol.md 15.1): Plonky3 p3-keccak-air v0.4.3's
// KeccakAir as a single-part AIR, with its column layout, constraints (3182, in the reference's
// emission order and expression shapes, so the DAG and the vk match), and trace generator.
//
// One row per round, 24 rows per permutation. State conventions are the reference's: lanes are
// indexed [y][x] in the columns (lane x + 5y of the standard state), 64-bit lanes are four 16-bit
// limbs little-endian, bit z of a lane is bit z of the u64.
//
// Stateless; thread-safe.
#pragma once

#include <array>
#include <cstdint>
#include <span>

#include "stages/air/air.hpp"

namespace vkstark {

// Column indices of Plonky3's KeccakCols (its repr(C) field order flattened row-major).
struct KeccakCols {
  static constexpr uint32_t kNumRounds = 24;
  static constexpr uint32_t kLimbs = 4;  // 16-bit limbs per 64-bit lane
  static constexpr uint32_t kBitsPerLimb = 16;
  static constexpr uint32_t kWidth = 2633;

  // Rotation offsets r[x][y] of rho (the reference's R, indexed [x][y]).
  static constexpr uint32_t kRho[5][5] = {
      {0, 36, 3, 41, 18}, {1, 44, 10, 45, 2}, {62, 6, 43, 15, 61}, {28, 55, 25, 21, 56}, {27, 20, 39, 8, 14}};

  static constexpr uint32_t step_flag(uint32_t round) { return round; }
  static constexpr uint32_t export_flag() { return 24; }
  static constexpr uint32_t preimage(uint32_t y, uint32_t x, uint32_t limb) { return 25 + lane_limb(y, x, limb); }
  static constexpr uint32_t a(uint32_t y, uint32_t x, uint32_t limb) { return 125 + lane_limb(y, x, limb); }
  static constexpr uint32_t c(uint32_t x, uint32_t z) { return 225 + 64 * x + z; }
  static constexpr uint32_t c_prime(uint32_t x, uint32_t z) { return 545 + 64 * x + z; }
  static constexpr uint32_t a_prime(uint32_t y, uint32_t x, uint32_t z) { return 865 + 64 * (5 * y + x) + z; }
  static constexpr uint32_t a_prime_prime(uint32_t y, uint32_t x, uint32_t limb) {
    return 2465 + lane_limb(y, x, limb);
  }
  static constexpr uint32_t a_prime_prime_0_0_bits(uint32_t z) { return 2565 + z; }
  static constexpr uint32_t a_prime_prime_prime_0_0_limbs(uint32_t limb) { return 2629 + limb; }

  // The round's output lane (y, x): iota changes only lane (0, 0), the others are chi's output.
  static constexpr uint32_t a_prime_prime_prime(uint32_t y, uint32_t x, uint32_t limb) {
    return y == 0 && x == 0 ? a_prime_prime_prime_0_0_limbs(limb) : a_prime_prime(y, x, limb);
  }
  // B = pi(rho(A')), not stored: B[x][y] is A'[x' = (x + 3y) mod 5][y' = x] rotated left by r[x'][x],
  // so bit z of B[x][y] is bit z - r[x'][x] of that A' lane (columns are [y][x]).
  static constexpr uint32_t b(uint32_t x, uint32_t y, uint32_t z) {
    const uint32_t xs = (x + 3 * y) % 5;
    return a_prime(x, xs, (z + 64 - kRho[xs][x]) % 64);
  }

 private:
  static constexpr uint32_t lane_limb(uint32_t y, uint32_t x, uint32_t limb) { return 4 * (5 * y + x) + limb; }
};

static_assert(KeccakCols::a_prime_prime_prime_0_0_limbs(3) + 1 == KeccakCols::kWidth);

class KeccakAir final : public Air {
 public:
  std::string name() const override { return "keccak"; }
  AirShape shape() const override { return {.common_width = KeccakCols::kWidth}; }
  void eval(AirBuilder& b) const override;
};

// The trace height for `num_permutations` inputs: 24 rows each, rounded up to a power of two.
// InputError for none or a height past 2^31.
uint32_t keccak_trace_height(size_t num_permutations);

// The trace of Keccak-f over `inputs` (standard lane order: lane x + 5y), column-major: 24 rows per
// permutation, padded to the next power of two with permutations of the all-zero state, the last of
// them cut short when 24 does not divide the height (as the reference's generate_trace_rows).
// Permutation p's output is in row 24p + 23's a''' columns (KeccakCols::a_prime_prime_prime); row
// 24p + 24 holds the next input. Runs the permutations in parallel (TBB).
TraceMatrix keccak_trace(std::span<const std::array<uint64_t, 25>> inputs);
// The same, written into `storage` when it holds exactly the trace's number of cells (every cell is
// written: its old contents do not matter), which saves allocating and zeroing a large matrix per
// trace (batches reuse their traces' memory); else into a new matrix.
TraceMatrix keccak_trace(std::span<const std::array<uint64_t, 25>> inputs, TraceMatrix&& storage);

}  // namespace vkstark
