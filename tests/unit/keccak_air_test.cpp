// Specifies the Keccak-f AIR of protocol.md 15.1: the trace generator computes Keccak-f[1600]
// (checked against the Keccak team's known answer for the zero state and a plain implementation
// written here), pads as the reference does, equals a plain row-by-row generator kept here cell for
// cell, and satisfies the AIR; the AIR has the reference's width, constraint count, degree and DAG
// node counts, its constraints in the reference's order and shapes; the debug checker names the
// constraint a corrupted cell breaks.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "product/airs/keccak.hpp"
#include "runtime/error.hpp"
#include "stages/air/dag.hpp"
#include "stages/air/debug_check.hpp"
#include "stages/air/eval.hpp"

using namespace vkstark;

namespace {

using State = std::array<uint64_t, 25>;
using C = KeccakCols;

// The 24 round constants from the LFSR x^8 + x^6 + x^5 + x^4 + 1 (the Keccak reference's form).
std::array<uint64_t, 24> round_constants() {
  std::array<uint64_t, 24> rc{};
  uint8_t lfsr = 1;
  for (uint64_t& c : rc)
    for (int j = 0; j < 7; ++j) {
      if (lfsr & 1) c ^= uint64_t(1) << ((1 << j) - 1);
      lfsr = (lfsr & 0x80) ? uint8_t((lfsr << 1) ^ 0x71) : uint8_t(lfsr << 1);
    }
  return rc;
}

// A plain Keccak-f[1600] on lanes A[x + 5y], in the form of the Keccak reference code (rho offsets
// along the pi walk, round constants from the LFSR): independent of the generator's tables.
State keccak_f(State a) {
  static constexpr int kRotc[24] = {1,  3,  6,  10, 15, 21, 28, 36, 45, 55, 2,  14,
                                    27, 41, 56, 8,  25, 43, 62, 18, 39, 61, 20, 44};
  static constexpr int kPiln[24] = {10, 7,  11, 17, 18, 3, 5,  16, 8,  21, 24, 4,
                                    15, 23, 19, 13, 12, 2, 20, 14, 22, 9,  6,  1};
  static const std::array<uint64_t, 24> kRc = round_constants();
  for (int round = 0; round < 24; ++round) {
    uint64_t bc[5];
    for (int x = 0; x < 5; ++x) bc[x] = a[x] ^ a[x + 5] ^ a[x + 10] ^ a[x + 15] ^ a[x + 20];
    for (int x = 0; x < 5; ++x) {
      const uint64_t d = bc[(x + 4) % 5] ^ std::rotl(bc[(x + 1) % 5], 1);
      for (int y = 0; y < 25; y += 5) a[y + x] ^= d;
    }
    uint64_t t = a[1];
    for (int i = 0; i < 24; ++i) {
      const int j = kPiln[i];
      const uint64_t next = a[j];
      a[j] = std::rotl(t, kRotc[i]);
      t = next;
    }
    for (int y = 0; y < 25; y += 5) {
      for (int x = 0; x < 5; ++x) bc[x] = a[y + x];
      for (int x = 0; x < 5; ++x) a[y + x] = bc[x] ^ (~bc[(x + 1) % 5] & bc[(x + 2) % 5]);
    }
    a[0] ^= kRc[round];
  }
  return a;
}

// Keccak-f[1600] of the all-zero state (KeccakF-1600-IntermediateValues.txt of the Keccak team).
constexpr State kZeroStateOutput = {
    0xF1258F7940E1DDE7, 0x84D5CCF933C0478A, 0xD598261EA65AA9EE, 0xBD1547306F80494D, 0x8B284E056253D057,
    0xFF97A42D7F8E6FD4, 0x90FEE5A0A44647C4, 0x8C5BDA0CD6192E76, 0xAD30A6F71B19059C, 0x30935AB7D08FFC64,
    0xEB5AA93F2317D635, 0xA9A6E6260D712103, 0x81A57C16DBCF555F, 0x43B831CD0347C826, 0x01F22F1A11A5569F,
    0x05E5635A21D9AE61, 0x64BEFEF28CC970F2, 0x613670957BC46611, 0xB87C5A554FD00ECB, 0x8C3EE88A1CCF32C8,
    0x940C7922AE3A2614, 0x1841F924A2C509E4, 0x16F53526E70465C2, 0x75F644E97F30A13B, 0xEAF1FF7B5CECA249,
};

// The 25 lanes (standard order x + 5y) whose 16-bit limbs a row holds at col(y, x, limb).
template <class Col>
State lanes_at(const TraceMatrix& t, uint32_t row, Col col) {
  State s{};
  for (uint32_t y = 0; y < 5; ++y)
    for (uint32_t x = 0; x < 5; ++x)
      for (uint32_t l = 0; l < C::kLimbs; ++l) {
        const uint32_t v = t.at(row, col(y, x, l)).value();
        EXPECT_LT(v, 1u << 16) << "row " << row << " lane " << x + 5 * y << " limb " << l;
        s[x + 5 * y] |= uint64_t(v) << (16 * l);
      }
  return s;
}

// Permutation p's output: the a''' columns of its last round's row.
State output_of(const TraceMatrix& t, uint32_t p) { return lanes_at(t, 24 * p + 23, C::a_prime_prime_prime); }
State preimage_at(const TraceMatrix& t, uint32_t row) { return lanes_at(t, row, C::preimage); }
State input_at(const TraceMatrix& t, uint32_t row) { return lanes_at(t, row, C::a); }

std::vector<State> random_states(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<State> s(n);
  for (State& st : s)
    for (uint64_t& lane : st) lane = rng();
  return s;
}

// A plain row-by-row trace generator (the generator's former fill order, cell by cell through
// TraceMatrix::at into a zeroed matrix): the reference that keccak_trace must match bit for bit.
TraceMatrix reference_trace(const std::vector<State>& inputs) {
  static constexpr uint64_t kRc[24] = {
      0x0000000000000001, 0x0000000000008082, 0x800000000000808A, 0x8000000080008000, 0x000000000000808B,
      0x0000000080000001, 0x8000000080008081, 0x8000000000008009, 0x000000000000008A, 0x0000000000000088,
      0x0000000080008009, 0x000000008000000A, 0x000000008000808B, 0x800000000000008B, 0x8000000000008089,
      0x8000000000008003, 0x8000000000008002, 0x8000000000000080, 0x000000000000800A, 0x800000008000000A,
      0x8000000080008081, 0x8000000000008080, 0x0000000080000001, 0x8000000080008008,
  };
  const KeccakColumns<uint32_t>& col = keccak_columns();
  const uint32_t height = keccak_trace_height(inputs.size());
  TraceMatrix t(C::kWidth, height);
  uint32_t row = 0;
  auto bits = [&](uint64_t lane, const std::array<uint32_t, 64>& cols) {
    for (uint32_t z = 0; z < 64; ++z) t.at(row, cols[z]) = (lane >> z) & 1 ? Fp::one() : Fp::zero();
  };
  auto limbs = [&](uint64_t lane, const std::array<uint32_t, 4>& cols) {
    for (uint32_t l = 0; l < 4; ++l) t.at(row, cols[l]) = Fp::from_canonical(uint32_t(lane >> (16 * l)) & 0xFFFF);
  };
  for (uint32_t p = 0; 24 * p < height; ++p) {
    uint64_t s[5][5];  // s[x][y]: lane x + 5y
    for (uint32_t x = 0; x < 5; ++x)
      for (uint32_t y = 0; y < 5; ++y) s[x][y] = p < inputs.size() ? inputs[p][x + 5 * y] : 0;
    uint64_t preimage[5][5];
    std::copy(&s[0][0], &s[0][0] + 25, &preimage[0][0]);
    for (uint32_t round = 0; round < 24 && 24 * p + round < height; ++round) {
      row = 24 * p + round;
      t.at(row, col.step_flags[round]) = Fp::one();
      for (uint32_t y = 0; y < 5; ++y)
        for (uint32_t x = 0; x < 5; ++x) {
          limbs(preimage[x][y], col.preimage[y][x]);
          limbs(s[x][y], col.a[y][x]);
        }
      uint64_t c[5], c_prime[5], a_prime[5][5], b[5][5];
      for (uint32_t x = 0; x < 5; ++x) c[x] = s[x][0] ^ s[x][1] ^ s[x][2] ^ s[x][3] ^ s[x][4];
      for (uint32_t x = 0; x < 5; ++x) c_prime[x] = c[x] ^ c[(x + 4) % 5] ^ std::rotl(c[(x + 1) % 5], 1);
      for (uint32_t x = 0; x < 5; ++x) {
        bits(c[x], col.c[x]);
        bits(c_prime[x], col.c_prime[x]);
      }
      for (uint32_t x = 0; x < 5; ++x)
        for (uint32_t y = 0; y < 5; ++y) {
          a_prime[x][y] = s[x][y] ^ c[x] ^ c_prime[x];
          bits(a_prime[x][y], col.a_prime[y][x]);
        }
      for (uint32_t x = 0; x < 5; ++x)
        for (uint32_t y = 0; y < 5; ++y) {
          const uint32_t xs = (x + 3 * y) % 5;
          b[x][y] = std::rotl(a_prime[xs][x], int(kKeccakRho[xs][x]));
        }
      for (uint32_t x = 0; x < 5; ++x)
        for (uint32_t y = 0; y < 5; ++y) {
          s[x][y] = b[x][y] ^ (~b[(x + 1) % 5][y] & b[(x + 2) % 5][y]);
          limbs(s[x][y], col.a_prime_prime[y][x]);
        }
      bits(s[0][0], col.a_prime_prime_0_0_bits);
      s[0][0] ^= kRc[round];
      limbs(s[0][0], col.a_prime_prime_prime_0_0_limbs);
    }
  }
  return t;
}

// Where two traces of one shape first differ ("" when they are equal), naming the cell's column.
std::string first_difference(const TraceMatrix& got, const TraceMatrix& want) {
  if (got.width != want.width || got.height != want.height)
    return "shape " + std::to_string(got.width) + " x " + std::to_string(got.height);
  static const std::vector<std::string> names = KeccakAir{}.column_names()[0];
  for (uint32_t col = 0; col < want.width; ++col)
    for (uint32_t row = 0; row < want.height; ++row)
      if (got.at(row, col) != want.at(row, col))
        return "row " + std::to_string(row) + " column " + names[col] + ": " +
               std::to_string(got.at(row, col).value()) + ", want " + std::to_string(want.at(row, col).value());
  return "";
}

// The bits of a limb recomposition acc = (acc + acc) + bit folded from the constant 0 (checking
// that shape), least significant first.
std::vector<Expr> limb_bits(const Expr& limb) {
  std::vector<Expr> bits;
  const ExprNode* n = limb.id();
  while (n->kind == NodeKind::Add) {
    const ExprNode* doubled = n->left.get();
    EXPECT_EQ(doubled->kind, NodeKind::Add);
    EXPECT_EQ(doubled->left, doubled->right);  // acc + acc of one tree
    bits.push_back(Expr(n->right));
    n = doubled->left.get();
  }
  EXPECT_EQ(n->kind, NodeKind::Constant);
  EXPECT_TRUE(n->constant.is_zero());
  return bits;
}

// Emission index of the first constraint of each block (protocol.md 15.1's order).
constexpr uint32_t kFirstStepPreimage = 48, kPreimageTransition = 148, kExportBool = 248, kTheta = 250,
                   kInputLimbs = 890, kColumnParity = 2590, kChi = 2910, kIotaBits = 3010, kIota = 3078,
                   kNextInput = 3082, kTotal = 3182;

}  // namespace

TEST(KeccakAir, PlainKeccakFMatchesTheKnownAnswer) { EXPECT_EQ(keccak_f(State{}), kZeroStateOutput); }

TEST(KeccakAir, TraceOfTheZeroStateGivesTheKnownAnswer) {
  const std::vector<State> inputs(1);
  const TraceMatrix t = keccak_trace(inputs);
  ASSERT_EQ(t.width, 2633u);
  ASSERT_EQ(t.height, 32u);  // 24 rows, then 8 rows of a zero-state padding permutation
  EXPECT_EQ(output_of(t, 0), kZeroStateOutput);
  // Within a permutation each round's output is the next round's input; the row after the last
  // round starts the next permutation, so the output lives only in row 23's a''' columns.
  for (uint32_t r = 0; r < 23; ++r) EXPECT_EQ(lanes_at(t, r, C::a_prime_prime_prime), input_at(t, r + 1)) << r;
  EXPECT_EQ(input_at(t, 24), State{});
}

TEST(KeccakAir, TraceOfRandomStatesMatchesThePlainKeccakF) {
  const std::vector<State> inputs = random_states(5, 0x6b656363616b);  // 120 rows -> 128
  const TraceMatrix t = keccak_trace(inputs);
  ASSERT_EQ(t.height, 128u);
  for (uint32_t p = 0; p < inputs.size(); ++p) {
    EXPECT_EQ(output_of(t, p), keccak_f(inputs[p])) << "permutation " << p;
    EXPECT_EQ(input_at(t, 24 * p), inputs[p]);  // lane x + 5y in columns [y][x]
    for (uint32_t r = 0; r < 24; ++r) {
      EXPECT_EQ(preimage_at(t, 24 * p + r), inputs[p]) << "row " << 24 * p + r;
      for (uint32_t f = 0; f < 24; ++f) EXPECT_EQ(t.at(24 * p + r, C::step_flag(f)).value(), f == r ? 1u : 0u);
      EXPECT_TRUE(t.at(24 * p + r, C::export_flag()).is_zero());
    }
  }
}

TEST(KeccakAir, PadsWithZeroStatePermutationsTheLastCutShort) {
  // 1024 inputs (the keccakf example): 24,576 rows -> 32,768; 342 padding permutations, the last
  // with 8 rows (1366 * 24 = 32,784).
  EXPECT_EQ(keccak_trace_height(1024), 32768u);
  EXPECT_EQ((32768u + 23) / 24 - 1024, 342u);
  EXPECT_EQ(32768u - 1365 * 24, 8u);
  EXPECT_EQ(keccak_trace_height(1), 32u);
  EXPECT_EQ(keccak_trace_height(5), 128u);
  EXPECT_EQ(keccak_trace_height(4), 128u);  // 96 rows

  // 3 inputs: 72 rows -> 128, two whole zero-state permutations and one of 8 rows.
  const std::vector<State> inputs = random_states(3, 7);
  const TraceMatrix t = keccak_trace(inputs);
  ASSERT_EQ(t.height, 128u);
  for (uint32_t p = 3; p < 5; ++p) {
    EXPECT_EQ(preimage_at(t, 24 * p), State{});
    EXPECT_EQ(output_of(t, p), kZeroStateOutput);
  }
  for (uint32_t r = 120; r < 128; ++r) {
    EXPECT_EQ(t.at(r, C::step_flag(r - 120)).value(), 1u);
    EXPECT_EQ(preimage_at(t, r), State{});
  }
  // Row 127's output is round 7's of the zero state: the same in a whole padding permutation.
  EXPECT_EQ(lanes_at(t, 127, C::a_prime_prime_prime), lanes_at(t, 24 * 3 + 7, C::a_prime_prime_prime));
}

TEST(KeccakAir, ATraceWrittenIntoUsedStorageEqualsAFreshOne) {
  const std::vector<State> inputs = random_states(3, 11);  // 72 rows -> 128, padding cut short
  const TraceMatrix fresh = keccak_trace(inputs);
  // Storage of the right size full of garbage: every cell is written.
  TraceMatrix used(fresh.width, fresh.height);
  for (size_t i = 0; i < used.values.size(); ++i) used.values[i] = Fp::reduce(0x9e3779b97f4a7c15ull * (i + 1));
  const Fp* memory = used.values.data();
  const TraceMatrix reused = keccak_trace(inputs, std::move(used));
  EXPECT_EQ(reused, fresh);
  EXPECT_EQ(reused.values.data(), memory) << "the storage was not reused";
  // Storage of another size is not used.
  EXPECT_EQ(keccak_trace(inputs, TraceMatrix(3, 5)), fresh);
}

TEST(KeccakAir, TraceEqualsAPlainRowByRowGeneratorCellForCell) {
  // 4 inputs: 96 rows -> 128, the padding permutation cut short at 32 rows (8 of them); 43: 1032
  // rows -> 2048, with many padding permutations; 1024: the keccakf example's 2^15 rows.
  for (const size_t n : {1, 4, 5, 43, 1024}) {
    const std::vector<State> inputs = random_states(n, 0x6b65636361 + n);
    const TraceMatrix want = reference_trace(inputs);
    TraceMatrix got = keccak_trace(inputs);
    EXPECT_EQ(first_difference(got, want), "") << n << " permutations";
    // Again into its own storage full of garbage: every cell is written.
    for (size_t i = 0; i < got.values.size(); ++i) got.values[i] = Fp::reduce(0x9e3779b97f4a7c15ull * (i + 1));
    EXPECT_EQ(first_difference(keccak_trace(inputs, std::move(got)), want), "") << n << " permutations, reused";
  }
}

TEST(KeccakAir, RejectsNoInputsNamingTheAir) {
  try {
    keccak_trace(std::vector<State>{});
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("AIR keccak"), std::string::npos) << e.what();
  }
  EXPECT_THROW(keccak_trace_height(size_t(1) << 40), InputError);
}

TEST(KeccakAir, ColumnLayoutIsTheReferences) {
  EXPECT_EQ(C::export_flag(), 24u);
  EXPECT_EQ(C::preimage(0, 0, 0), 25u);
  EXPECT_EQ(C::preimage(4, 4, 3), 124u);
  EXPECT_EQ(C::a(0, 0, 0), 125u);
  EXPECT_EQ(C::c(0, 0), 225u);
  EXPECT_EQ(C::c_prime(0, 0), 545u);
  EXPECT_EQ(C::a_prime(0, 0, 0), 865u);
  EXPECT_EQ(C::a_prime(4, 4, 63), 2464u);
  EXPECT_EQ(C::a_prime_prime(0, 0, 0), 2465u);
  EXPECT_EQ(C::a_prime_prime_0_0_bits(0), 2565u);
  EXPECT_EQ(C::a_prime_prime_prime_0_0_limbs(3), 2632u);
  EXPECT_EQ(C::a_prime_prime_prime(0, 0, 1), 2630u);
  EXPECT_EQ(C::a_prime_prime_prime(0, 1, 1), C::a_prime_prime(0, 1, 1));
  // B[1][0] = rot(A'[x'=1][y'=1], r[1][1] = 44): bit 44 of B is bit 0 of A'[1][1] (columns [y][x]).
  EXPECT_EQ(C::b(1, 0, 44), C::a_prime(1, 1, 0));
  EXPECT_EQ(C::b(0, 0, 5), C::a_prime(0, 0, 5));  // r[0][0] = 0
}

TEST(KeccakAir, HasTheReferencesShapeAndDag) {
  const SymbolicAir s = symbolic_air(KeccakAir{});
  EXPECT_EQ(s.shape.common_width, 2633u);
  EXPECT_EQ(s.shape.preprocessed_width, 0u);
  EXPECT_EQ(s.shape.num_cached(), 0u);
  EXPECT_EQ(s.shape.num_public_values, 0u);
  EXPECT_TRUE(s.interactions.empty());
  ASSERT_EQ(s.constraints.size(), kTotal);
  EXPECT_EQ(max_constraint_degree(s), 3u);

  std::vector<uint32_t> roots;
  const SymbolicDag dag = build_dag(s, &roots);
  EXPECT_TRUE(dag.need_rot());
  EXPECT_EQ(dag.num_constraints(), kTotal);  // no constraint deduplicated
  // Node order equals emission order, so lambda^i goes to the i-th emitted constraint.
  for (uint32_t i = 1; i < roots.size(); ++i) ASSERT_LT(roots[i - 1], roots[i]) << "constraint " << i;
  EXPECT_EQ(dag.constraint_idx, roots);

  // protocol.md 15.1's node counts (from a model of the reference's DAG builder).
  const std::vector<uint32_t> by_kind = dag.count_by_kind();
  EXPECT_EQ(dag.nodes.size(), 39273u);
  EXPECT_EQ(by_kind[size_t(NodeKind::Add)], 15343u);
  EXPECT_EQ(by_kind[size_t(NodeKind::Sub)], 10846u);
  EXPECT_EQ(by_kind[size_t(NodeKind::Mul)], 10221u);
  EXPECT_EQ(by_kind[size_t(NodeKind::Variable)], 2857u);
  EXPECT_EQ(by_kind[size_t(NodeKind::Constant)], 4u);
  EXPECT_EQ(by_kind[size_t(NodeKind::IsFirstRow)], 1u);
  EXPECT_EQ(by_kind[size_t(NodeKind::IsTransition)], 1u);
  EXPECT_EQ(by_kind[size_t(NodeKind::IsLastRow)], 0u);
  EXPECT_EQ(by_kind[size_t(NodeKind::Neg)], 0u);
  uint32_t local = 0, next = 0;
  std::vector<uint32_t> constants;
  for (const DagNode& n : dag.nodes) {
    if (n.kind == NodeKind::Variable) {
      EXPECT_EQ(n.var.entry, EntryKind::Main);
      (n.var.offset == 0 ? local : next) += 1;
      // Only the step flags, the preimage and a are read on the next row.
      if (n.var.offset == 1) {
        EXPECT_TRUE(n.var.index < 24 || (n.var.index >= 25 && n.var.index < 225)) << n.var.index;
      }
    }
    if (n.kind == NodeKind::Constant) constants.push_back(n.constant.value());
  }
  EXPECT_EQ(local, 2633u);
  EXPECT_EQ(next, 224u);
  std::sort(constants.begin(), constants.end());
  EXPECT_EQ(constants, (std::vector<uint32_t>{0, 1, 2, 4}));
}

TEST(KeccakAir, EmitsTheReferencesExpressionShapesInOrder) {
  const SymbolicAir s = symbolic_air(KeccakAir{});
  auto text = [&](uint32_t i) { return to_string(s.constraints[i], 2000); };
  EXPECT_EQ(text(0), "is_first_row * (main[0][0] - 1)");
  EXPECT_EQ(text(1), "is_first_row * main[0][1]");
  EXPECT_EQ(text(24), "is_transition * (main[0][0] - main[0].next[1])");
  EXPECT_EQ(text(47), "is_transition * (main[0][23] - main[0].next[0])");
  EXPECT_EQ(text(kFirstStepPreimage), "main[0][0] * (main[0][25] - main[0][125])");
  EXPECT_EQ(text(kPreimageTransition), "(1 - main[0][23]) * (is_transition * (main[0][25] - main[0].next[25]))");
  EXPECT_EQ(text(kExportBool), "main[0][24] * (main[0][24] - 1)");
  EXPECT_EQ(text(kExportBool + 1), "(1 - main[0][23]) * main[0][24]");
  EXPECT_EQ(text(kTheta), "main[0][225] * (main[0][225] - 1)");
  // c'[0][0] = xor3(c[0][0], c[4][0], c[1][63])
  EXPECT_EQ(text(kTheta + 64),
            "main[0][545] - ((((main[0][225] + main[0][481]) - (main[0][225] * (main[0][481] + main[0][481]))) + "
            "main[0][352]) - (((main[0][225] + main[0][481]) - (main[0][225] * (main[0][481] + main[0][481]))) * "
            "(main[0][352] + main[0][352])))");
  EXPECT_EQ(text(kInputLimbs), "main[0][865] * (main[0][865] - 1)");
  // a[0][0] limb 0 from the bits xor3(a'[0][0][z], c[0][z], c'[0][z]), z = 0..15.
  const Expr& limb = s.constraints[kInputLimbs + 64];
  ASSERT_EQ(limb.kind(), NodeKind::Sub);
  EXPECT_EQ(to_string(Expr(limb.node().right)), "main[0][125]");
  const std::vector<Expr> bits = limb_bits(Expr(limb.node().left));
  ASSERT_EQ(bits.size(), 16u);
  for (uint32_t z = 0; z < 16; ++z) {
    const std::string a_prime = "main[0][" + std::to_string(C::a_prime(0, 0, z)) + "]";
    EXPECT_EQ(to_string(bits[z]).rfind("(((" + a_prime + " + main[0][" + std::to_string(C::c(0, z)) + "])", 0), 0u)
        << to_string(bits[z]);
  }
  // diff (diff - 2) (diff - (2 + 2)), diff = a'[0][0][0] + ... + a'[4][0][0] - c'[0][0]
  const std::string d =
      "((((main[0][865] + main[0][1185]) + main[0][1505]) + main[0][1825]) + main[0][2145]) - main[0][545]";
  EXPECT_EQ(text(kColumnParity), "((" + d + ") * ((" + d + ") - 2)) * ((" + d + ") - (2 + 2))");
  // chi bit 15 of A''[0][0] = xor(andn(B[1][0], B[2][0]), B[0][0]) with B[1][0][15] = A'[y=1][x=1][35]
  // (r[1][1] = 44), B[2][0][15] = A'[2][2][36] (r[2][2] = 43), B[0][0][15] = A'[0][0][15].
  const std::vector<Expr> chi_bits = limb_bits(Expr(s.constraints[kChi].node().left));
  ASSERT_EQ(chi_bits.size(), 16u);
  const std::string andn = "((1 - main[0][" + std::to_string(C::a_prime(1, 1, 35)) + "]) * main[0][" +
                           std::to_string(C::a_prime(2, 2, 36)) + "])";
  const std::string b00 = "main[0][" + std::to_string(C::a_prime(0, 0, 15)) + "]";
  EXPECT_EQ(to_string(chi_bits[15]), "(" + andn + " + " + b00 + ") - (" + andn + " * (" + b00 + " + " + b00 + "))");
  EXPECT_EQ(to_string(Expr(s.constraints[kChi].node().right)), "main[0][2465]");
  EXPECT_EQ(text(kIotaBits), "main[0][2565] * (main[0][2565] - 1)");
  // rc bit 15 = 0 + flag_0 * bit_15(RC[0]) + ... + flag_23 * bit_15(RC[23])
  const std::vector<Expr> iota_bits = limb_bits(Expr(s.constraints[kIota].node().left));
  ASSERT_EQ(iota_bits.size(), 16u);
  std::string rc15 = std::string(24, '(') + "0";
  for (uint32_t r = 0; r < 24; ++r)
    rc15 += " + (main[0][" + std::to_string(r) + "] * " + std::to_string((round_constants()[r] >> 15) & 1) + "))";
  // xor(rc, a''[0][0] bit 15), in this order
  EXPECT_EQ(to_string(iota_bits[15], 4000).rfind("(" + rc15 + " + main[0][2580]) - (" + rc15, 0), 0u)
      << to_string(iota_bits[15]);
  EXPECT_EQ(to_string(Expr(s.constraints[kIota].node().right)), "main[0][2629]");
  EXPECT_EQ(text(kNextInput), "is_transition * ((1 - main[0][23]) * (main[0][2629] - main[0].next[125]))");
  // The last block loops x outer, y inner: its second lane is (y, x) = (1, 0).
  EXPECT_EQ(text(kNextInput + 4), "is_transition * ((1 - main[0][23]) * (main[0][2485] - main[0].next[145]))");
  EXPECT_EQ(text(kTotal - 1), "is_transition * ((1 - main[0][23]) * (main[0][2564] - main[0].next[224]))");
}

TEST(KeccakAir, CheckerAcceptsAValidTraceAndNamesACorruptedConstraint) {
  const SymbolicAir s = symbolic_air(KeccakAir{});
  const std::vector<State> inputs = random_states(3, 11);
  const std::vector<TraceMatrix> valid{keccak_trace(inputs)};
  ASSERT_EQ(valid[0].height, 128u);
  const auto check = [&](const TraceMatrix& m) {
    const DebugAirInput in{.air = &s, .parts = {&m}, .public_values = {}};
    return debug_check(std::span<const DebugAirInput>(&in, 1));
  };
  EXPECT_TRUE(check(valid[0]).ok());

  struct Case {
    uint32_t row, col;
    Fp value;
    uint32_t constraint, violated_row;
  };
  const uint32_t k = 5 * 2 + 3;  // lane (y, x) = (2, 3)
  const Fp bit = valid[0].at(30, C::a_prime(2, 3, 17));
  const Case cases[] = {
      // a' = 2 breaks its booleanity (row 30 reads it only as a local value).
      {30, C::a_prime(2, 3, 17), Fp::from_canonical(2), kInputLimbs + 68 * k + 17, 30},
      // A flipped a' bit keeps booleanity but breaks the recomposition of a's limb 1.
      {30, C::a_prime(2, 3, 17), Fp::one() - bit, kInputLimbs + 68 * k + 64 + 1, 30},
      // a is read on the next row by the row before: there the round-output check (x = 4, y = 1) fails.
      {50, C::a(1, 4, 2), valid[0].at(50, C::a(1, 4, 2)) + Fp::one(), kNextInput + (4 * 5 + 1) * 4 + 2, 49},
      // A step flag of the first row.
      {0, C::step_flag(3), Fp::one(), 3, 0},
      // export must be 0 off the final step.
      {5, C::export_flag(), Fp::one(), kExportBool + 1, 5},
  };
  for (const Case& c : cases) {
    std::vector<TraceMatrix> bad = valid;
    bad[0].at(c.row, c.col) = c.value;
    const DebugReport r = check(bad[0]);
    ASSERT_EQ(r.constraint_failures.size(), 1u) << "row " << c.row << " col " << c.col;
    const ConstraintFailure& v = r.constraint_failures[0];
    EXPECT_EQ(v.air, "keccak");
    EXPECT_EQ(v.constraint, c.constraint) << r.message();
    EXPECT_EQ(v.row, c.violated_row) << r.message();
  }
}
