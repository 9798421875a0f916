// The built-in AIRs on typed columns (stages/air/columns.hpp): the Keccak-f AIR's KeccakColumns and
// the Fibonacci AIR's FibonacciCols keep the column order the golden proofs and verifying keys were
// made with (checked here against the index arithmetic the AIRs had before), name their columns as
// Plonky3's KeccakCols and the reference's FibonacciAir do, and the debug checker names a broken
// column by that name.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "product/airs/fibonacci.hpp"
#include "product/airs/keccak.hpp"
#include "product/airs/test_airs.hpp"
#include "stages/air/columns.hpp"
#include "stages/air/debug_check.hpp"

using namespace vkstark;

namespace {

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// The debug checker's report for one AIR's traces.
DebugReport check(const AirWithTraces& t) {
  const SymbolicAir s = symbolic_air(*t.air);
  std::optional<TraceMatrix> preprocessed;
  const std::vector<DebugAirInput> in{
      {.air = &s, .parts = t.row_view_part_refs(preprocessed), .public_values = t.public_values}};
  return debug_check(in);
}

}  // namespace

TEST(TypedAirColumns, KeccakColumnsKeepTheReferenceLayout) {
  // The layout as index arithmetic (Plonky3's KeccakCols flattened row-major), written out here.
  auto lane_limb = [](uint32_t y, uint32_t x, uint32_t l) { return 4 * (5 * y + x) + l; };
  const KeccakColumns<uint32_t>& col = keccak_columns();
  for (uint32_t i = 0; i < 24; ++i) EXPECT_EQ(col.step_flags[i], i);
  EXPECT_EQ(col.export_flag, 24u);
  for (uint32_t y = 0; y < 5; ++y)
    for (uint32_t x = 0; x < 5; ++x) {
      for (uint32_t l = 0; l < 4; ++l) {
        EXPECT_EQ(col.preimage[y][x][l], 25 + lane_limb(y, x, l));
        EXPECT_EQ(col.a[y][x][l], 125 + lane_limb(y, x, l));
        EXPECT_EQ(col.a_prime_prime[y][x][l], 2465 + lane_limb(y, x, l));
      }
      for (uint32_t z = 0; z < 64; ++z) EXPECT_EQ(col.a_prime[y][x][z], 865 + 64 * (5 * y + x) + z);
    }
  for (uint32_t x = 0; x < 5; ++x)
    for (uint32_t z = 0; z < 64; ++z) {
      EXPECT_EQ(col.c[x][z], 225 + 64 * x + z);
      EXPECT_EQ(col.c_prime[x][z], 545 + 64 * x + z);
    }
  for (uint32_t z = 0; z < 64; ++z) EXPECT_EQ(col.a_prime_prime_0_0_bits[z], 2565 + z);
  for (uint32_t l = 0; l < 4; ++l) EXPECT_EQ(col.a_prime_prime_prime_0_0_limbs[l], 2629 + l);
  EXPECT_EQ(col.a_prime_prime_prime(0, 0, 2), 2631u);
  EXPECT_EQ(col.a_prime_prime_prime(3, 1, 2), col.a_prime_prime[3][1][2]);
  EXPECT_EQ(col.b(1, 0, 15), col.a_prime[1][1][35]);  // B[1][0] = rot(A'[y=1][x=1], 44)
  EXPECT_EQ(column_count<KeccakColumns>(), 2633u);
  EXPECT_EQ(KeccakCols::kWidth, 2633u);
  EXPECT_EQ(KeccakAir().shape().common_width, 2633u);
}

TEST(TypedAirColumns, KeccakColumnsHaveTheReferenceNames) {
  const std::vector<std::vector<std::string>> names = KeccakAir().column_names();
  ASSERT_EQ(names.size(), 1u);  // one part: the common main
  const std::vector<std::string>& n = names[0];
  ASSERT_EQ(n.size(), 2633u);
  EXPECT_EQ(n[0], "step_flags[0]");
  EXPECT_EQ(n[23], "step_flags[23]");
  EXPECT_EQ(n[24], "export");
  EXPECT_EQ(n[25], "preimage[0][0][0]");
  EXPECT_EQ(n[25 + 4 * (5 * 4 + 4) + 3], "preimage[4][4][3]");
  EXPECT_EQ(n[125 + 4 * (5 * 1 + 4) + 2], "a[1][4][2]");
  EXPECT_EQ(n[225 + 64 * 4], "c[4][0]");
  EXPECT_EQ(n[545 + 63], "c_prime[0][63]");
  EXPECT_EQ(n[865 + 64 * (5 * 1 + 2) + 3], "a_prime[1][2][3]");  // bit 3 of A'[y=1][x=2]
  EXPECT_EQ(n[2464], "a_prime[4][4][63]");
  EXPECT_EQ(n[2465], "a_prime_prime[0][0][0]");
  EXPECT_EQ(n[2565 + 17], "a_prime_prime_0_0_bits[17]");
  EXPECT_EQ(n[2632], "a_prime_prime_prime_0_0_limbs[3]");
}

TEST(TypedAirColumns, FibonacciColumnsAreLeftAndRight) {
  EXPECT_EQ(FibonacciAir().column_names(), (std::vector<std::vector<std::string>>{{"left", "right"}}));
  const FibonacciCols<uint32_t> col = column_indices<FibonacciCols>();
  EXPECT_EQ(col.left, 0u);
  EXPECT_EQ(col.right, 1u);
  EXPECT_EQ(FibonacciAir().shape().common_width, 2u);
}

TEST(TypedAirColumns, TheDebugCheckerNamesABrokenKeccakColumn) {
  std::vector<AirWithTraces> airs = keccak_fixture(1, 5);
  ASSERT_TRUE(check(airs[0]).ok());
  // Bit 3 of A'[y=1][x=2] on row 5 set to 2: its booleanity (the first constraint that reads it)
  // fails on that row.
  airs[0].common.at(5, keccak_columns().a_prime[1][2][3]) = Fp::from_canonical(2);
  const DebugReport r = check(airs[0]);
  ASSERT_FALSE(r.ok());
  ASSERT_FALSE(r.problems.empty());
  const std::string& p = r.problems[0];
  EXPECT_TRUE(has(p, "AIR keccak: constraint ")) << p;
  EXPECT_TRUE(has(p, " fails at row 5 ")) << p;
  EXPECT_TRUE(has(p, "a_prime[1][2][3] * (a_prime[1][2][3] - 1)")) << p;
  EXPECT_TRUE(has(p, "reads a_prime[1][2][3] = 2")) << p;
  EXPECT_FALSE(has(p, "main[0]")) << p;
}

TEST(TypedAirColumns, TheDebugCheckerNamesABrokenFibonacciColumn) {
  std::vector<AirWithTraces> airs = fib_fixture(Fp::from_canonical(1), Fp::from_canonical(1), 64);
  airs[0].common.at(5, column_indices<FibonacciCols>().right) += Fp::one();
  const DebugReport r = check(airs[0]);
  ASSERT_FALSE(r.ok());
  const std::string& p = r.problems[0];
  EXPECT_TRUE(has(p, "AIR fibonacci: constraint 3 fails at row 4")) << p;
  EXPECT_TRUE(has(p, "(left + right) - right'")) << p;
  EXPECT_TRUE(has(p, "left = 5, right = 8, right' = 14 (row 5)")) << p;
}
