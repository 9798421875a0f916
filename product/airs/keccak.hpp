// The Keccak-f[1600] AIR of the keccakf example (protocol.md 15.1): Plonky3 p3-keccak-air v0.4.3's
// KeccakAir as a single-part AIR, with its column layout, constraints (3182, in the reference's
// emission order and expression shapes, so the DAG and the vk match), and trace generator.
//
// One row per round, 24 rows per permutation. State conventions are the reference's: lanes are
// indexed [y][x] in the columns (lane x + 5y of the standard state), 64-bit lanes are four 16-bit
// limbs little-endian, bit z of a lane is bit z of the u64.
//
// The columns are typed (stages/air/columns.hpp): KeccakColumns, Plonky3's KeccakCols. eval() reads
// them with read_columns, the trace generator fills them through keccak_columns(), and the debug
// checker names them ("a_prime[1][2][3]", "step_flags[0]'").
//
// Stateless; thread-safe.
#pragma once

#include <array>
#include <cstdint>
#include <span>

#include "stages/air/air.hpp"
#include "stages/air/columns.hpp"

namespace vkstark {

inline constexpr uint32_t kKeccakRounds = 24;  // rows (rounds) per permutation
inline constexpr uint32_t kKeccakLimbs = 4;    // 16-bit limbs per 64-bit lane
inline constexpr uint32_t kKeccakBitsPerLimb = 16;
// Rotation offsets r[x][y] of rho (the reference's R, indexed [x][y]).
inline constexpr uint32_t kKeccakRho[5][5] = {
    {0, 36, 3, 41, 18}, {1, 44, 10, 45, 2}, {62, 6, 43, 15, 61}, {28, 55, 25, 21, 56}, {27, 20, 39, 8, 14}};

template <class T>
using KeccakLanes = std::array<std::array<std::array<T, kKeccakLimbs>, 5>, 5>;  // [y][x][limb]

// One row's columns: Plonky3's KeccakCols, its fields in its repr(C) order, which is the column order
// (the verifying key and the golden proofs depend on it). Lanes are [y][x], limbs little-endian, bits
// z = 0..63 of the u64. Columns are named as the members ("a_prime[1][2][3]": bit 3 of A'[y=1][x=2]),
// except export_flag, named "export" as the reference's field (export is a C++ keyword).
template <class T>
struct KeccakColumns {
  std::array<T, kKeccakRounds> step_flags;                    // step_flags[i]: the row is round i
  T export_flag;                                              // the reference's export flag (0 here: no bus)
  KeccakLanes<T> preimage;                                    // the permutation's input, on each of its rows
  KeccakLanes<T> a;                                           // the round's input A
  std::array<std::array<T, 64>, 5> c;                         // theta: C[x], the xor over y of A[y][x]
  std::array<std::array<T, 64>, 5> c_prime;                   // theta: C'[x] = C[x] ^ C[x-1] ^ rot(C[x+1], 1)
  std::array<std::array<std::array<T, 64>, 5>, 5> a_prime;    // theta's output A' (A = A' ^ C ^ C')
  KeccakLanes<T> a_prime_prime;                               // chi's output A''
  std::array<T, 64> a_prime_prime_0_0_bits;                   // A''[0][0] as bits, for iota
  std::array<T, kKeccakLimbs> a_prime_prime_prime_0_0_limbs;  // iota's output A'''[0][0]

  template <class F>
  void visit(F&& f) {
    f("step_flags", step_flags);
    f("export", export_flag);
    f("preimage", preimage);
    f("a", a);
    f("c", c);
    f("c_prime", c_prime);
    f("a_prime", a_prime);
    f("a_prime_prime", a_prime_prime);
    f("a_prime_prime_0_0_bits", a_prime_prime_0_0_bits);
    f("a_prime_prime_prime_0_0_limbs", a_prime_prime_prime_0_0_limbs);
  }

  // The round's output lane (y, x), A''': iota changes only lane (0, 0), the others are chi's output.
  const T& a_prime_prime_prime(uint32_t y, uint32_t x, uint32_t limb) const {
    return y == 0 && x == 0 ? a_prime_prime_prime_0_0_limbs[limb] : a_prime_prime[y][x][limb];
  }
  // B = pi(rho(A')), not stored: B[x][y] is A'[x' = (x + 3y) mod 5][y' = x] rotated left by r[x'][x],
  // so bit z of B[x][y] is bit z - r[x'][x] of that A' lane (columns are [y][x]).
  const T& b(uint32_t x, uint32_t y, uint32_t z) const {
    const uint32_t xs = (x + 3 * y) % 5;
    return a_prime[x][xs][(z + 64 - kKeccakRho[xs][x]) % 64];
  }
};

// Every column's index (column_indices<KeccakColumns>()), computed once.
const KeccakColumns<uint32_t>& keccak_columns();

// The column indices as functions, for existing callers: keccak_columns(), by name.
struct KeccakCols {
  static constexpr uint32_t kNumRounds = kKeccakRounds;
  static constexpr uint32_t kLimbs = kKeccakLimbs;
  static constexpr uint32_t kBitsPerLimb = kKeccakBitsPerLimb;
  static constexpr uint32_t kWidth = 2633;  // column_count<KeccakColumns>()

  static uint32_t step_flag(uint32_t round) { return keccak_columns().step_flags[round]; }
  static uint32_t export_flag() { return keccak_columns().export_flag; }
  static uint32_t preimage(uint32_t y, uint32_t x, uint32_t limb) { return keccak_columns().preimage[y][x][limb]; }
  static uint32_t a(uint32_t y, uint32_t x, uint32_t limb) { return keccak_columns().a[y][x][limb]; }
  static uint32_t c(uint32_t x, uint32_t z) { return keccak_columns().c[x][z]; }
  static uint32_t c_prime(uint32_t x, uint32_t z) { return keccak_columns().c_prime[x][z]; }
  static uint32_t a_prime(uint32_t y, uint32_t x, uint32_t z) { return keccak_columns().a_prime[y][x][z]; }
  static uint32_t a_prime_prime(uint32_t y, uint32_t x, uint32_t limb) {
    return keccak_columns().a_prime_prime[y][x][limb];
  }
  static uint32_t a_prime_prime_0_0_bits(uint32_t z) { return keccak_columns().a_prime_prime_0_0_bits[z]; }
  static uint32_t a_prime_prime_prime_0_0_limbs(uint32_t limb) {
    return keccak_columns().a_prime_prime_prime_0_0_limbs[limb];
  }
  static uint32_t a_prime_prime_prime(uint32_t y, uint32_t x, uint32_t limb) {
    return keccak_columns().a_prime_prime_prime(y, x, limb);
  }
  static uint32_t b(uint32_t x, uint32_t y, uint32_t z) { return keccak_columns().b(x, y, z); }
};
// Every member is a column (all of them uint32_t here, so no padding): kWidth counts them.
static_assert(sizeof(KeccakColumns<uint32_t>) == KeccakCols::kWidth * sizeof(uint32_t));

class KeccakAir final : public Air {
 public:
  std::string name() const override { return "keccak"; }
  AirShape shape() const override;                                      // common_width: column_count<KeccakColumns>()
  std::vector<std::vector<std::string>> column_names() const override;  // column_names_of<KeccakColumns>()
  void eval(AirBuilder& b) const override;
};

// The trace height for `num_permutations` inputs: 24 rows each, rounded up to a power of two.
// InputError for none or a height past 2^31.
uint32_t keccak_trace_height(size_t num_permutations);

// The trace of Keccak-f over `inputs` (standard lane order: lane x + 5y), column-major: 24 rows per
// permutation, padded to the next power of two with permutations of the all-zero state, the last of
// them cut short when 24 does not divide the height (as the reference's generate_trace_rows).
// Permutation p's output is in row 24p + 23's a''' columns (KeccakColumns::a_prime_prime_prime); row
// 24p + 24 holds the next input. Runs in parallel (TBB): the permutations' Keccak words first (a
// temporary buffer of about 7 % of the trace), then the columns, each written whole.
TraceMatrix keccak_trace(std::span<const std::array<uint64_t, 25>> inputs);
// The same, written into `storage` when it holds exactly the trace's number of cells (every cell is
// written: its old contents do not matter), which saves allocating and zeroing a large matrix per
// trace (batches reuse their traces' memory); else into a new matrix.
TraceMatrix keccak_trace(std::span<const std::array<uint64_t, 25>> inputs, TraceMatrix&& storage);

}  // namespace vkstark
