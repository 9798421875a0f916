#include "product/airs/keccak.hpp"

#include <algorithm>
#include <bit>
#include <memory>
#include <mutex>
#include <vector>

#include <fmt/format.h>
#include <tbb/blocked_range.h>
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

// The trace is written in two passes. First the Keccak words of every permutation (every round's
// lanes the columns come from), kept along the rows; then the trace column by column, each column
// whole: its 4 * height bytes in one run of stores, no cell written twice. Whole columns matter:
// runs of a few KB per column (blocks of permutations) stored at about half the speed.
constexpr uint32_t kLanes = 25;
constexpr uint32_t kBlockPerms = 16;  // permutations per block of the words pass
// The words written as bits, per round: C[x], C'[x], A'[y][x] (word kAPrime + 5y + x), A''[0][0].
constexpr uint32_t kC = 0, kCPrime = 5, kAPrime = 10, kAPrimePrime00 = 35, kBitWords = 36;
constexpr uint32_t kStates = kRounds + 1;  // a permutation's states: each round's input, then the output

// The words of `perms` permutations, row r being round r % 24 of permutation r / 24, in one
// allocation of 32-bit words (about 24 MB for 2^15 rows; left uninitialised: every word that is
// read has been written). Field elements are kept as their Montgomery bits (Fp::mont()).
// Permutation p's words start at row 24 p of each row array and at p * 25 of each state array, so
// that the words of consecutive permutations are contiguous (copy_words).
class Words {
 public:
  explicit Words(uint32_t perms)
      : perms_(perms),
        // A row's 76 words are stored together: a stride of an odd number of cache lines spreads them
        // over the cache sets (with 4 KB strides they fell on a few L1 sets, missed L1, and the words
        // pass took half as long again).
        stride_(((perms * kRounds + 15) / 16 | 1) * 16),
        data_(std::make_unique_for_overwrite<uint32_t[]>(states_at(kLanes, 0, 0))) {}

  uint32_t perms() const { return perms_; }
  // Half h (bits 32h..32h + 31) of bit word `word`, per row.
  uint32_t* bits(uint32_t word, uint32_t h) { return data_.get() + bits_at(word, h); }
  const uint32_t* bits(uint32_t word, uint32_t h) const { return data_.get() + bits_at(word, h); }
  // A''[0][0]'s limb `limb` (before iota), per row.
  uint32_t* a_prime_prime_0_0(uint32_t limb) { return data_.get() + bits_at(kBitWords, limb); }
  const uint32_t* a_prime_prime_0_0(uint32_t limb) const { return data_.get() + bits_at(kBitWords, limb); }
  // The limb `limb` of lane x + 5y of permutation p's states 0..24: A is state i on row i, A'''
  // state i + 1 (iota changes only lane 0, whose A'' is above), the preimage state 0.
  uint32_t* states(uint32_t lane, uint32_t limb, uint32_t p) { return data_.get() + states_at(lane, limb, p); }
  const uint32_t* states(uint32_t lane, uint32_t limb, uint32_t p) const {
    return data_.get() + states_at(lane, limb, p);
  }

 private:
  // Rows: the bit words' halves, then A''[0][0]'s limbs (as if halves of word 36); then the states.
  size_t bits_at(uint32_t word, uint32_t h) const { return size_t(2 * word + h) * stride_; }
  size_t states_at(uint32_t lane, uint32_t limb, uint32_t p) const {
    return bits_at(kBitWords, kKeccakLimbs) + (size_t(lane * kKeccakLimbs + limb) * perms_ + p) * kStates;
  }

  uint32_t perms_, stride_;
  std::unique_ptr<uint32_t[]> data_;
};

// Montgomery forms of the bytes b and b * 256: a 16-bit limb's is the sum of its bytes', two loads
// and an addition in place of a multiplication and a reduction (2,600 of them per permutation).
struct ByteMonts {
  std::array<uint32_t, 256> low{}, high{};
};
constexpr ByteMonts kByteMonts = [] {
  ByteMonts m;
  for (uint32_t b = 0; b < 256; ++b) {
    m.low[b] = Fp::from_canonical_unchecked(b).mont();
    m.high[b] = Fp::from_canonical_unchecked(b << 8).mont();
  }
  return m;
}();

// Limb `limb` (16 bits) of a lane as a field element's Montgomery bits (Fp::from_canonical_unchecked's).
uint32_t limb_of(uint64_t lane, uint32_t limb) {
  const uint32_t v = uint32_t(lane >> (kKeccakBitsPerLimb * limb));
  return (Fp::from_mont(kByteMonts.low[v & 0xFF]) + Fp::from_mont(kByteMonts.high[(v >> 8) & 0xFF])).mont();
}

// The state as lanes s[x][y] (standard indexing: lane x + 5y), as the reference's generator keeps it.
using State = std::array<std::array<uint64_t, 5>, 5>;

// Permutation p's words: Keccak-f on `input`, as Plonky3's generate_trace_row_for_round.
void compute_words(Words& w, uint32_t p, const std::array<uint64_t, 25>& input) {
  State s;
  for (uint32_t x = 0; x < 5; ++x)
    for (uint32_t y = 0; y < 5; ++y) s[x][y] = input[x + 5 * y];
  auto put_state = [&](uint32_t i) {
    for (uint32_t x = 0; x < 5; ++x)
      for (uint32_t y = 0; y < 5; ++y)
        for (uint32_t l = 0; l < kKeccakLimbs; ++l) w.states(x + 5 * y, l, p)[i] = limb_of(s[x][y], l);
  };
  put_state(0);
  for (uint32_t round = 0; round < kRounds; ++round) {
    const uint32_t row = p * kRounds + round;
    auto put_bits = [&](uint32_t word, uint64_t v) {
      w.bits(word, 0)[row] = uint32_t(v);
      w.bits(word, 1)[row] = uint32_t(v >> 32);
    };
    std::array<uint64_t, 5> c{}, c_prime{};
    for (uint32_t x = 0; x < 5; ++x) c[x] = s[x][0] ^ s[x][1] ^ s[x][2] ^ s[x][3] ^ s[x][4];
    for (uint32_t x = 0; x < 5; ++x) c_prime[x] = c[x] ^ c[(x + 4) % 5] ^ std::rotl(c[(x + 1) % 5], 1);
    for (uint32_t x = 0; x < 5; ++x) {
      put_bits(kC + x, c[x]);
      put_bits(kCPrime + x, c_prime[x]);
    }

    State a_prime;  // theta: A ^ D with D[x] = C[x] ^ C'[x]
    for (uint32_t x = 0; x < 5; ++x)
      for (uint32_t y = 0; y < 5; ++y) {
        a_prime[x][y] = s[x][y] ^ c[x] ^ c_prime[x];
        put_bits(kAPrime + 5 * y + x, a_prime[x][y]);
      }

    State bb;  // rho and pi
    for (uint32_t x = 0; x < 5; ++x)
      for (uint32_t y = 0; y < 5; ++y) {
        const uint32_t xs = (x + 3 * y) % 5;
        bb[x][y] = std::rotl(a_prime[xs][x], int(kKeccakRho[xs][x]));
      }
    for (uint32_t x = 0; x < 5; ++x)  // chi
      for (uint32_t y = 0; y < 5; ++y) s[x][y] = bb[x][y] ^ (~bb[(x + 1) % 5][y] & bb[(x + 2) % 5][y]);
    put_bits(kAPrimePrime00, s[0][0]);
    for (uint32_t l = 0; l < kKeccakLimbs; ++l) w.a_prime_prime_0_0(l)[row] = limb_of(s[0][0], l);

    s[0][0] ^= kRoundConstants[round];  // iota
    put_state(round + 1);
  }
}

// The words of the all-zero state (every padding permutation), computed once.
const Words& zero_state_words() {
  static const Words words = [] {
    Words w(1);
    compute_words(w, 0, {});
    return w;
  }();
  return words;
}

// The words of earlier traces, for the next ones of the same height: batches make trace after
// trace, several at once, and a fresh 24 MB buffer each time would be an mmap, an munmap and
// thousands of page faults, serialised on the process's memory map.
class WordsPool {
 public:
  std::unique_ptr<Words> take(uint32_t perms) {
    {
      std::lock_guard lock(mutex_);
      for (auto it = free_.begin(); it != free_.end(); ++it)
        if ((*it)->perms() == perms) {
          std::unique_ptr<Words> w = std::move(*it);
          free_.erase(it);
          return w;
        }
    }
    return std::make_unique<Words>(perms);
  }
  void give_back(std::unique_ptr<Words> w) {
    std::lock_guard lock(mutex_);
    if (free_.size() >= kKept) free_.erase(free_.begin());  // the oldest
    free_.push_back(std::move(w));
  }

 private:
  static constexpr size_t kKept = 4;
  std::mutex mutex_;
  std::vector<std::unique_ptr<Words>> free_;
};

WordsPool& words_pool() {
  static WordsPool pool;
  return pool;
}

// Copies the words of permutations [from_p, from_p + count) of `from` to those from to_p on of `to`.
void copy_words(const Words& from, uint32_t from_p, Words& to, uint32_t to_p, uint32_t count) {
  for (uint32_t k = 0; k < kBitWords; ++k)
    for (uint32_t h = 0; h < 2; ++h)
      std::copy_n(from.bits(k, h) + from_p * kRounds, count * kRounds, to.bits(k, h) + to_p * kRounds);
  for (uint32_t l = 0; l < kKeccakLimbs; ++l)
    std::copy_n(from.a_prime_prime_0_0(l) + from_p * kRounds, count * kRounds,
                to.a_prime_prime_0_0(l) + to_p * kRounds);
  for (uint32_t lane = 0; lane < kLanes; ++lane)
    for (uint32_t l = 0; l < kKeccakLimbs; ++l)
      std::copy_n(from.states(lane, l, from_p), count * kStates, to.states(lane, l, to_p));
}

// Where a column's values come from.
struct ColumnSource {
  enum Kind : uint8_t {
    kStepFlag,       // 1 on each permutation's round `a`
    kZero,           // the export flag
    kState,          // limb b of lane a of the states, state `shift` on each permutation's rows
    kStateOfRound,   // the same, state round + `shift` on the round's row
    kBit,            // bit `shift` of half b of bit word a
    kAPrimePrime00,  // limb b of A''[0][0]
  } kind;
  uint8_t a = 0, b = 0, shift = 0;
};

// Every column's source, in column order, computed once.
const std::array<ColumnSource, kWidth>& column_sources() {
  static const std::array<ColumnSource, kWidth> sources = [] {
    std::array<ColumnSource, kWidth> s{};
    const KeccakColumns<uint32_t>& col = keccak_columns();
    auto set = [&](uint32_t c, ColumnSource::Kind kind, uint32_t a, uint32_t b, uint32_t shift) {
      s[c] = {kind, uint8_t(a), uint8_t(b), uint8_t(shift)};
    };
    auto bits = [&](uint32_t word, const std::array<uint32_t, 64>& cols) {
      for (uint32_t z = 0; z < 64; ++z) set(cols[z], ColumnSource::kBit, word, z / 32, z % 32);
    };
    for (uint32_t i = 0; i < kRounds; ++i) set(col.step_flags[i], ColumnSource::kStepFlag, i, 0, 0);
    set(col.export_flag, ColumnSource::kZero, 0, 0, 0);
    for (uint32_t y = 0; y < 5; ++y)
      for (uint32_t x = 0; x < 5; ++x)
        for (uint32_t l = 0; l < kKeccakLimbs; ++l) {
          set(col.preimage[y][x][l], ColumnSource::kState, x + 5 * y, l, 0);
          set(col.a[y][x][l], ColumnSource::kStateOfRound, x + 5 * y, l, 0);
          if (y == 0 && x == 0)
            set(col.a_prime_prime[0][0][l], ColumnSource::kAPrimePrime00, 0, l, 0);
          else  // off lane (0, 0), chi's output is the round's output
            set(col.a_prime_prime[y][x][l], ColumnSource::kStateOfRound, x + 5 * y, l, 1);
        }
    for (uint32_t x = 0; x < 5; ++x) bits(kC + x, col.c[x]);
    for (uint32_t x = 0; x < 5; ++x) bits(kCPrime + x, col.c_prime[x]);
    for (uint32_t y = 0; y < 5; ++y)
      for (uint32_t x = 0; x < 5; ++x) bits(kAPrime + 5 * y + x, col.a_prime[y][x]);
    bits(kAPrimePrime00, col.a_prime_prime_0_0_bits);
    for (uint32_t l = 0; l < kKeccakLimbs; ++l)
      set(col.a_prime_prime_prime_0_0_limbs[l], ColumnSource::kStateOfRound, 0, l, 1);
    return s;
  }();
  return sources;
}

// Writes column c's `height` rows to `out` from the words.
void write_column(Fp* out, uint32_t height, uint32_t c, const Words& w) {
  const ColumnSource src = column_sources()[c];
  // The rows from value(p, round), permutation by permutation: 24 rows each (a count the compiler
  // unrolls), but the last one's may be fewer.
  auto per_perm = [&](auto value) {
    for (uint32_t p = 0, first = 0; first < height; ++p, first += kRounds) {
      Fp* o = out + first;
      if (height - first >= kRounds)
        for (uint32_t r = 0; r < kRounds; ++r) o[r] = value(p, r);
      else
        for (uint32_t r = 0; r < height - first; ++r) o[r] = value(p, r);
    }
  };
  switch (src.kind) {
    case ColumnSource::kStepFlag:
      per_perm([i = src.a](uint32_t, uint32_t r) { return r == i ? Fp::one() : Fp::zero(); });
      break;
    case ColumnSource::kZero:
      std::fill_n(out, height, Fp::zero());
      break;
    case ColumnSource::kState:
      per_perm([&](uint32_t p, uint32_t) { return Fp::from_mont(w.states(src.a, src.b, p)[src.shift]); });
      break;
    case ColumnSource::kStateOfRound:
      per_perm([&](uint32_t p, uint32_t r) { return Fp::from_mont(w.states(src.a, src.b, p)[r + src.shift]); });
      break;
    case ColumnSource::kBit: {
      // Fp::one() (Montgomery form R mod p) for 1, zero for 0.
      static_assert(Fp::one().mont() == Fp::R_MOD_P && Fp::zero().mont() == 0);
      const uint32_t* half = w.bits(src.a, src.b);
      const uint32_t shift = src.shift;
      for (uint32_t r = 0; r < height; ++r) out[r] = Fp::from_mont((0u - ((half[r] >> shift) & 1)) & Fp::R_MOD_P);
      break;
    }
    case ColumnSource::kAPrimePrime00: {
      const uint32_t* limbs = w.a_prime_prime_0_0(src.b);
      for (uint32_t r = 0; r < height; ++r) out[r] = Fp::from_mont(limbs[r]);
      break;
    }
  }
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
  // The words of every permutation, a block of them at a time: computed into a block kept per thread
  // (in L2), then copied whole (Keccak's stores straight into the 24 MB, to 176 arrays at once, did
  // not speed up with a second thread); the padding permutations' words are the zero state's.
  std::unique_ptr<Words> held = words_pool().take(num_perms);
  Words& words = *held;
  tbb::parallel_for(uint32_t{0}, (num_perms + kBlockPerms - 1) / kBlockPerms, [&](uint32_t b) {
    thread_local const std::unique_ptr<Words> block = std::make_unique<Words>(kBlockPerms);
    const uint32_t first = b * kBlockPerms, count = std::min(kBlockPerms, num_perms - first);
    for (uint32_t i = 0; i < count; ++i) {
      if (first + i < inputs.size())
        compute_words(*block, i, inputs[first + i]);
      else
        copy_words(zero_state_words(), 0, *block, i, 1);
    }
    copy_words(*block, 0, words, first, count);
  });
  // Then every column whole, in parallel.
  Fp* const values = t.values.data();
  tbb::parallel_for(tbb::blocked_range<uint32_t>(0, kWidth), [&](const tbb::blocked_range<uint32_t>& cols) {
    for (uint32_t c = cols.begin(); c < cols.end(); ++c) write_column(values + size_t(c) * height, height, c, words);
  });
  words_pool().give_back(std::move(held));
  return t;
}

}  // namespace vkstark
