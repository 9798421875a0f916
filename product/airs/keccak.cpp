#include "product/airs/keccak.hpp"

#include <algorithm>
#include <bit>
#include <vector>

#include <fmt/format.h>
#include <tbb/parallel_for.h>

#include "runtime/error.hpp"

namespace vkstark {

namespace {

using Cols = KeccakColumns<Expr>;
constexpr uint32_t kRounds = kKeccakRounds;
constexpr uint32_t kWidth = KeccakCols::kWidth;

// Keccak-f[1600] round constants (iota), round 0 first.
constexpr uint64_t kRoundConstants[kRounds] = {
    0x0000000000000001, 0x0000000000008082, 0x800000000000808A, 0x8000000080008000, 0x000000000000808B,
    0x0000000080000001, 0x8000000080008081, 0x8000000000008009, 0x000000000000008A, 0x0000000000000088,
    0x0000000080008009, 0x000000008000000A, 0x000000008000808B, 0x800000000000008B, 0x8000000000008089,
    0x8000000000008003, 0x8000000000008002, 0x8000000000000080, 0x000000000000800A, 0x800000008000000A,
    0x8000000080008081, 0x8000000000008080, 0x0000000080000001, 0x8000000080008008,
};

// 16 bits of a lane, most significant first, folded as acc = 2 acc + bit from Expr(0): the
// reference's limb recomposition, whose exact shape fixes the DAG.
template <class Bit>
Expr recompose_limb(uint32_t limb, Bit bit) {
  Expr acc;
  for (uint32_t t = kKeccakBitsPerLimb; t-- > 0;) {
    const uint32_t z = limb * kKeccakBitsPerLimb + t;
    acc = (acc + acc) + bit(z);
  }
  return acc;
}

// The first row starts the round schedule; each row's flag i moves to flag i + 1 on the next row.
void eval_round_flags(AirBuilder& b, const Cols& local, const Cols& next) {
  b.when_first_row().assert_one(local.step_flags[0]);
  for (uint32_t i = 1; i < kRounds; ++i) b.when_first_row().assert_zero(local.step_flags[i]);
  for (uint32_t i = 0; i < kRounds; ++i)
    b.when_transition().assert_zero(local.step_flags[i] - next.step_flags[(i + 1) % kRounds]);
}

}  // namespace

const KeccakColumns<uint32_t>& keccak_columns() {
  static const KeccakColumns<uint32_t> columns = column_indices<KeccakColumns>();
  return columns;
}

AirShape KeccakAir::shape() const {
  static const uint32_t width = column_count<KeccakColumns>();
  return {.common_width = width};
}

std::vector<std::vector<std::string>> KeccakAir::column_names() const {
  static const std::vector<std::string> names = column_names_of<KeccakColumns>();
  return {names};
}

// Emission order and shapes follow Plonky3's KeccakAir::eval (protocol.md 15.1); lambda^i goes to
// the i-th constraint emitted here.
void KeccakAir::eval(AirBuilder& b) const {
  const Cols local = read_columns<KeccakColumns>(b.main(), 0), next = read_columns<KeccakColumns>(b.main(), 1);
  eval_round_flags(b, local, next);

  const Expr first_step = local.step_flags[0];
  const Expr not_final_step = Expr(1) - local.step_flags[kRounds - 1];

  for (uint32_t y = 0; y < 5; ++y)
    for (uint32_t x = 0; x < 5; ++x)
      for (uint32_t l = 0; l < kKeccakLimbs; ++l)
        b.when(first_step).assert_eq(local.preimage[y][x][l], local.a[y][x][l]);

  // The preimage is constant through a permutation's rows.
  for (uint32_t y = 0; y < 5; ++y)
    for (uint32_t x = 0; x < 5; ++x)
      for (uint32_t l = 0; l < kKeccakLimbs; ++l)
        b.when(not_final_step).when(b.is_transition()).assert_eq(local.preimage[y][x][l], next.preimage[y][x][l]);

  b.assert_bool(local.export_flag);
  b.when(not_final_step).assert_zero(local.export_flag);

  // theta: C'[x] = C[x] ^ C[x-1] ^ rot(C[x+1], 1); with C boolean, xor3 keeps C' boolean too.
  for (uint32_t x = 0; x < 5; ++x) {
    for (uint32_t z = 0; z < 64; ++z) b.assert_bool(local.c[x][z]);
    for (uint32_t z = 0; z < 64; ++z)
      b.assert_eq(local.c_prime[x][z],
                  xor3(local.c[x][z], local.c[(x + 4) % 5][z], local.c[(x + 1) % 5][(z + 63) % 64]));
  }

  // A = A' ^ D with D[x] = C[x] ^ C'[x]: the input limbs from A' bits (which range-checks A).
  for (uint32_t y = 0; y < 5; ++y) {
    for (uint32_t x = 0; x < 5; ++x) {
      for (uint32_t z = 0; z < 64; ++z) b.assert_bool(local.a_prime[y][x][z]);
      for (uint32_t l = 0; l < kKeccakLimbs; ++l) {
        const Expr limb = recompose_limb(
            l, [&](uint32_t z) { return xor3(local.a_prime[y][x][z], local.c[x][z], local.c_prime[x][z]); });
        b.assert_eq(limb, local.a[y][x][l]);
      }
    }
  }

  // C'[x] = xor over y of A'[y][x]: the sum minus C' is 0, 2 or 4 for boolean bits.
  for (uint32_t x = 0; x < 5; ++x) {
    const Expr four = Expr(2) + Expr(2);
    for (uint32_t z = 0; z < 64; ++z) {
      Expr sum = local.a_prime[0][x][z];
      for (uint32_t y = 1; y < 5; ++y) sum = sum + local.a_prime[y][x][z];
      const Expr diff = sum - local.c_prime[x][z];
      b.assert_zero(diff * (diff - Expr(2)) * (diff - four));
    }
  }

  // chi: A''[x][y] = B[x][y] ^ (~B[x+1][y] & B[x+2][y]); B is a rotation of A', so A'' is range-checked.
  for (uint32_t y = 0; y < 5; ++y) {
    for (uint32_t x = 0; x < 5; ++x) {
      auto bit = [&](uint32_t z) {
        return xor2(andn(local.b((x + 1) % 5, y, z), local.b((x + 2) % 5, y, z)), local.b(x, y, z));
      };
      for (uint32_t l = 0; l < kKeccakLimbs; ++l) b.assert_eq(recompose_limb(l, bit), local.a_prime_prime[y][x][l]);
    }
  }

  // iota on lane (0, 0): its A'' bits, then A''' = A'' ^ RC[round] with the round's constant bit
  // selected by the step flags.
  for (uint32_t z = 0; z < 64; ++z) b.assert_bool(local.a_prime_prime_0_0_bits[z]);
  for (uint32_t l = 0; l < kKeccakLimbs; ++l)
    b.assert_eq(recompose_limb(l, [&](uint32_t z) { return local.a_prime_prime_0_0_bits[z]; }),
                local.a_prime_prime[0][0][l]);
  auto xored_bit = [&](uint32_t z) {
    Expr rc_bit;  // 0 + flag_0 * bit_z(RC[0]) + ...: the constants fold away in the DAG
    for (uint32_t r = 0; r < kRounds; ++r) rc_bit = rc_bit + local.step_flags[r] * Expr((kRoundConstants[r] >> z) & 1);
    return xor2(rc_bit, local.a_prime_prime_0_0_bits[z]);
  };
  for (uint32_t l = 0; l < kKeccakLimbs; ++l)
    b.assert_eq(recompose_limb(l, xored_bit), local.a_prime_prime_prime_0_0_limbs[l]);

  // A round's output is the next round's input. The reference loops x outer, y inner here.
  for (uint32_t x = 0; x < 5; ++x)
    for (uint32_t y = 0; y < 5; ++y)
      for (uint32_t l = 0; l < kKeccakLimbs; ++l)
        b.when_transition().when(not_final_step).assert_eq(local.a_prime_prime_prime(y, x, l), next.a[y][x][l]);
}

namespace {

// One permutation's rows, row-major (rows x kWidth), written into the trace afterwards column by
// column so that the column-major stores are contiguous.
class PermRows {
 public:
  // The rows live in a buffer kept per thread: a fresh 250 KB buffer per permutation would be an
  // mmap, page faults and an munmap each (the allocator's threshold is 128 KB), which serialises
  // the threads on the process's memory map. Zeroed here: fill_permutation leaves the step flags
  // of other rounds and the export flag at zero.
  explicit PermRows(uint32_t rows) : rows_(rows), v_(buffer()) { v_.assign(size_t(rows) * kWidth, Fp()); }
  uint32_t rows() const { return rows_; }
  Fp& at(uint32_t row, uint32_t col) { return v_[size_t(row) * kWidth + col]; }
  // The lane's 64 bits into the columns cols[z].
  void bits(uint32_t row, uint64_t lane, const std::array<uint32_t, 64>& cols) {
    for (uint32_t z = 0; z < 64; ++z) at(row, cols[z]) = (lane >> z) & 1 ? Fp::one() : Fp::zero();
  }
  // The lane's 16-bit limbs into the columns cols[l].
  void limbs(uint32_t row, uint64_t lane, const std::array<uint32_t, kKeccakLimbs>& cols) {
    for (uint32_t l = 0; l < kKeccakLimbs; ++l)
      at(row, cols[l]) = Fp::from_canonical_unchecked(uint32_t(lane >> (kKeccakBitsPerLimb * l)) & 0xFFFF);
  }
  void store(TraceMatrix& t, uint32_t first_row) const {
    for (uint32_t col = 0; col < kWidth; ++col)
      for (uint32_t r = 0; r < rows_; ++r) t.at(first_row + r, col) = v_[size_t(r) * kWidth + col];
  }

 private:
  static std::vector<Fp>& buffer() {
    thread_local std::vector<Fp> b;
    return b;
  }
  uint32_t rows_;
  std::vector<Fp>& v_;
};

// The state as lanes s[x][y] (standard indexing: lane x + 5y), as the reference's generator keeps it.
using State = std::array<std::array<uint64_t, 5>, 5>;

// Fills row `round` from the round's input state s and advances s to the round's output, column by
// column as Plonky3's generate_trace_row_for_round (export stays 0).
void fill_round(PermRows& rows, uint32_t round, State& s, const KeccakColumns<uint32_t>& col) {
  rows.at(round, col.step_flags[round]) = Fp::one();
  for (uint32_t y = 0; y < 5; ++y)
    for (uint32_t x = 0; x < 5; ++x) rows.limbs(round, s[x][y], col.a[y][x]);

  std::array<uint64_t, 5> c{}, c_prime{};
  for (uint32_t x = 0; x < 5; ++x) c[x] = s[x][0] ^ s[x][1] ^ s[x][2] ^ s[x][3] ^ s[x][4];
  for (uint32_t x = 0; x < 5; ++x) c_prime[x] = c[x] ^ c[(x + 4) % 5] ^ std::rotl(c[(x + 1) % 5], 1);
  for (uint32_t x = 0; x < 5; ++x) {
    rows.bits(round, c[x], col.c[x]);
    rows.bits(round, c_prime[x], col.c_prime[x]);
  }

  State a_prime;  // theta: A ^ D with D[x] = C[x] ^ C'[x]
  for (uint32_t x = 0; x < 5; ++x)
    for (uint32_t y = 0; y < 5; ++y) {
      a_prime[x][y] = s[x][y] ^ c[x] ^ c_prime[x];
      rows.bits(round, a_prime[x][y], col.a_prime[y][x]);
    }

  State bb;  // rho and pi
  for (uint32_t x = 0; x < 5; ++x)
    for (uint32_t y = 0; y < 5; ++y) {
      const uint32_t xs = (x + 3 * y) % 5;
      bb[x][y] = std::rotl(a_prime[xs][x], int(kKeccakRho[xs][x]));
    }

  for (uint32_t x = 0; x < 5; ++x)  // chi
    for (uint32_t y = 0; y < 5; ++y) {
      s[x][y] = bb[x][y] ^ (~bb[(x + 1) % 5][y] & bb[(x + 2) % 5][y]);
      rows.limbs(round, s[x][y], col.a_prime_prime[y][x]);
    }
  rows.bits(round, s[0][0], col.a_prime_prime_0_0_bits);

  s[0][0] ^= kRoundConstants[round];  // iota
  rows.limbs(round, s[0][0], col.a_prime_prime_prime_0_0_limbs);
}

// The rows of one permutation (24, or fewer for the last padding permutation).
void fill_permutation(PermRows& rows, const std::array<uint64_t, 25>& input) {
  const KeccakColumns<uint32_t>& col = keccak_columns();
  State s;
  for (uint32_t x = 0; x < 5; ++x)
    for (uint32_t y = 0; y < 5; ++y) s[x][y] = input[x + 5 * y];
  for (uint32_t r = 0; r < rows.rows(); ++r)
    for (uint32_t y = 0; y < 5; ++y)
      for (uint32_t x = 0; x < 5; ++x) rows.limbs(r, s[x][y], col.preimage[y][x]);
  for (uint32_t r = 0; r < rows.rows(); ++r) fill_round(rows, r, s, col);
}

}  // namespace

uint32_t keccak_trace_height(size_t num_permutations) {
  if (num_permutations == 0) throw InputError("AIR keccak: the trace needs at least one permutation input");
  constexpr uint64_t kMaxHeight = uint64_t(1) << 31;
  if (num_permutations > kMaxHeight / kRounds)
    throw InputError(fmt::format("AIR keccak: {} permutations need {} rows, past the largest trace height 2^31",
                                 num_permutations, uint64_t(num_permutations) * kRounds));
  return static_cast<uint32_t>(std::bit_ceil(uint64_t(num_permutations) * kRounds));
}

TraceMatrix keccak_trace(std::span<const std::array<uint64_t, 25>> inputs) {
  return keccak_trace(inputs, TraceMatrix());
}

TraceMatrix keccak_trace(std::span<const std::array<uint64_t, 25>> inputs, TraceMatrix&& storage) {
  const uint32_t height = keccak_trace_height(inputs.size());
  // Padding: permutations of the all-zero state fill the rows up to the height, the last one cut short.
  const uint32_t num_perms = (height + kRounds - 1) / kRounds;
  TraceMatrix t;
  if (storage.values.size() == size_t(kWidth) * height) {
    t.values = std::move(storage.values);
    t.width = kWidth;
    t.height = height;
  } else {
    t = TraceMatrix(kWidth, height);
  }
  tbb::parallel_for(uint32_t{0}, num_perms, [&](uint32_t p) {
    static const std::array<uint64_t, 25> kZeroState{};
    const uint32_t first_row = p * kRounds;
    PermRows rows(std::min(kRounds, height - first_row));
    fill_permutation(rows, p < inputs.size() ? inputs[p] : kZeroState);
    rows.store(t, first_row);
  });
  return t;
}

}  // namespace vkstark
