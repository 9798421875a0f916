// Specifies kernels/field: BabyBear in Montgomery form with canonical interfaces, the degree-4
// extension, batch inversion and the two-adic generators (protocol.md 1). Field laws are checked
// against a plain 64-bit `mod p` reference on random and edge values.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "kernels/field/fp.hpp"
#include "kernels/field/fp4.hpp"
#include "kernels/field/lazy_sum.hpp"
#include "kernels/known_answers.hpp"
#include "runtime/error.hpp"

using namespace vkstark;

namespace {
__extension__ typedef unsigned __int128 u128;
constexpr uint64_t P = Fp::P;

uint64_t ref_pow(uint64_t b, uint64_t e) {
  uint64_t acc = 1;
  b %= P;
  while (e) {
    if (e & 1) acc = acc * b % P;
    b = b * b % P;
    e >>= 1;
  }
  return acc;
}

// Edge values: 0, 1, p-1, around 2^31 and 2^32 (reduced mod p), around p/2, and Montgomery edges.
std::vector<uint64_t> edge_values() {
  std::vector<uint64_t> v = {0,
                             1,
                             2,
                             P - 1,
                             P - 2,
                             P / 2,
                             P / 2 + 1,
                             (1ull << 31) % P,
                             ((1ull << 31) - 1) % P,
                             ((1ull << 31) + 1) % P,
                             (1ull << 32) % P,
                             ((1ull << 32) - 1) % P,
                             ((1ull << 32) + 1) % P,
                             (1ull << 27),
                             (1ull << 27) + 1,
                             Fp::R_MOD_P,
                             Fp::R2_MOD_P,
                             943718400};
  return v;
}

std::vector<uint64_t> test_values(size_t n_random) {
  std::vector<uint64_t> v = edge_values();
  std::mt19937_64 rng(12345);
  for (size_t i = 0; i < n_random; ++i) v.push_back(rng() % P);
  return v;
}

Fp f(uint64_t x) { return Fp::from_canonical(static_cast<uint32_t>(x)); }

Fp4 random_fp4(std::mt19937_64& rng) {
  return {Fp::reduce(rng()), Fp::reduce(rng()), Fp::reduce(rng()), Fp::reduce(rng())};
}
}  // namespace

TEST(Fp, RoundTripsCanonicalValues) {
  for (uint64_t a : test_values(1000)) EXPECT_EQ(f(a).value(), a);
}

TEST(Fp, StoresMontgomeryFormInside) {
  EXPECT_EQ(Fp::one().mont(), Fp::R_MOD_P);
  EXPECT_EQ(f(5).mont(), (5ull << 32) % P);
}

TEST(Fp, ArithmeticMatchesMod64Reference) {
  auto vals = test_values(300);
  for (uint64_t a : vals) {
    for (uint64_t b : vals) {
      ASSERT_EQ((f(a) + f(b)).value(), (a + b) % P) << a << " + " << b;
      ASSERT_EQ((f(a) - f(b)).value(), (a + P - b) % P) << a << " - " << b;
      ASSERT_EQ((f(a) * f(b)).value(), a * b % P) << a << " * " << b;
    }
    ASSERT_EQ((-f(a)).value(), (P - a) % P);
    ASSERT_EQ(f(a).square().value(), a * a % P);
  }
}

TEST(Fp, PowAndInverseMatchReference) {
  for (uint64_t a : test_values(200)) {
    EXPECT_EQ(f(a).pow(12345).value(), ref_pow(a, 12345));
    EXPECT_EQ(f(a).pow(0), Fp::one());
    if (a != 0) {
      EXPECT_EQ(f(a).inverse().value(), ref_pow(a, P - 2));
      EXPECT_EQ(f(a) * f(a).inverse(), Fp::one());
    }
  }
}

TEST(Fp, ReduceAcceptsAnyInteger) {
  for (uint64_t x : std::vector<uint64_t>{0, P, P + 1, (1ull << 32) - 1, ~0ull, 123456789012345ull})
    EXPECT_EQ(Fp::reduce(x).value(), x % P);
}

TEST(Fp, CheckedConstructorRejectsNonCanonical) {
  EXPECT_NO_THROW(Fp::from_canonical(Fp::P - 1));
  EXPECT_THROW(Fp::from_canonical(Fp::P), InputError);
  EXPECT_THROW(Fp::from_canonical(0xFFFFFFFFu), InputError);
  try {
    Fp::from_canonical(Fp::P + 7);
    FAIL() << "no exception";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("2013265928"), std::string::npos) << e.what();
  }
}

TEST(Fp, InverseOfZeroIsAnError) {
  EXPECT_THROW(Fp::zero().inverse(), ArithmeticError);
  EXPECT_THROW(Fp4::zero().inverse(), ArithmeticError);
}

TEST(Fp, EncodesCanonicalLittleEndianAndRejectsOutOfRange) {
  uint8_t b[4];
  encode(f(0x01020304), b);
  EXPECT_EQ(b[0], 0x04);
  EXPECT_EQ(b[3], 0x01);
  EXPECT_EQ(decode_fp(b).value(), 0x01020304u);
  uint8_t bad[4] = {0x01, 0x00, 0x00, 0x78};  // exactly p
  EXPECT_THROW(decode_fp(bad, "opening"), InputError);
}

TEST(Fp, PrintsCanonicalValue) {
  EXPECT_EQ(to_string(f(P - 1)), "2013265920");
  EXPECT_EQ(to_string(Fp4::from_canonical(1, 2, 3, 4)), "(1, 2, 3, 4)");
}

TEST(TwoAdic, GeneratorsSquareDownTheTable) {
  EXPECT_EQ(two_adic_generator(0), Fp::one());
  EXPECT_EQ(two_adic_generator(27), f(31).pow((P - 1) >> 27));
  for (uint32_t k = 0; k < 27; ++k) EXPECT_EQ(two_adic_generator(k + 1).square(), two_adic_generator(k)) << k;
  for (uint32_t k = 1; k <= 27; ++k) {
    // Exactly of order 2^k: g^(2^(k-1)) = -1.
    EXPECT_EQ(two_adic_generator(k).pow(1ull << (k - 1)), -Fp::one()) << k;
  }
  EXPECT_EQ(two_adic_generator(4).value(), 196396260u);  // omega_D for l_skip = 4
  EXPECT_THROW(two_adic_generator(28), InputError);
}

TEST(Fp, BatchInverseMatchesSingleInverses) {
  std::mt19937_64 rng(7);
  std::vector<Fp> v;
  for (int i = 0; i < 257; ++i) v.push_back(Fp::reduce(rng() % (P - 1) + 1));
  std::vector<Fp> w = v;
  batch_inverse(std::span<Fp>(w));
  for (size_t i = 0; i < v.size(); ++i) EXPECT_EQ(w[i], v[i].inverse());
  std::vector<Fp> empty;
  batch_inverse(std::span<Fp>(empty));
}

TEST(Fp, BatchInverseNamesTheZero) {
  std::vector<Fp> v = {f(3), f(5), Fp::zero(), f(7)};
  try {
    batch_inverse(std::span<Fp>(v));
    FAIL() << "no exception";
  } catch (const ArithmeticError& e) {
    EXPECT_NE(std::string(e.what()).find("element 2"), std::string::npos) << e.what();
  }
}

TEST(Fp4, KnownAnswers) {
  Fp4 a = Fp4::from_canonical(1, 2, 3, 4), b = Fp4::from_canonical(5, 6, 7, 8);
  Fp4 prod = a * b, inv = a.inverse();
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(prod.c[i].value(), kat::EF_PRODUCT[i]);
    EXPECT_EQ(inv.c[i].value(), kat::EF_INVERSE[i]);
  }
}

TEST(Fp4, MulIsCommutativeAssociativeAndDistributive) {
  std::mt19937_64 rng(99);
  for (int i = 0; i < 500; ++i) {
    Fp4 a = random_fp4(rng), b = random_fp4(rng), c = random_fp4(rng);
    ASSERT_EQ(a * b, b * a);
    ASSERT_EQ((a * b) * c, a * (b * c));
    ASSERT_EQ(a * (b + c), a * b + a * c);
    ASSERT_EQ(a - a, Fp4::zero());
    ASSERT_EQ(a * Fp4::one(), a);
    ASSERT_EQ(a.square(), a * a);
    Fp s = Fp::reduce(rng());
    ASSERT_EQ(a * s, a * Fp4(s));
  }
}

// The lazily reduced product is the schoolbook one (19 reduced products), on random values and on
// coefficients at the top of the range, where the 64-bit sums are largest.
TEST(Fp4, MulIsTheSchoolbookProduct) {
  const auto schoolbook = [](const Fp4& x, const Fp4& y) {
    const auto& a = x.c;
    const auto& b = y.c;
    const Fp w = Fp::from_canonical_unchecked(Fp4::W);
    return Fp4(a[0] * b[0] + w * (a[1] * b[3] + a[2] * b[2] + a[3] * b[1]),
               a[0] * b[1] + a[1] * b[0] + w * (a[2] * b[3] + a[3] * b[2]),
               a[0] * b[2] + a[1] * b[1] + a[2] * b[0] + w * (a[3] * b[3]),
               a[0] * b[3] + a[1] * b[2] + a[2] * b[1] + a[3] * b[0]);
  };
  std::mt19937_64 rng(7);
  std::vector<Fp> edge;
  for (uint32_t v : {0u, 1u, 2u, Fp::P - 1, Fp::P - 2, Fp::P / 2}) edge.push_back(Fp::from_canonical(v));
  // Montgomery forms near p - 1 and near 0 (the product sums' extremes are in these bits).
  for (uint32_t m : {Fp::P - 1, Fp::P - 2, 1u, 2u}) edge.push_back(Fp::from_mont(m));
  for (const Fp& e : edge) {
    const Fp4 top(e, e, e, e);
    for (int i = 0; i < 50; ++i) {
      const Fp4 r = random_fp4(rng);
      ASSERT_EQ(top * top, schoolbook(top, top)) << e;
      ASSERT_EQ(top * r, schoolbook(top, r)) << e;
      ASSERT_EQ(r * top, schoolbook(r, top)) << e;
    }
  }
  for (int i = 0; i < 20000; ++i) {
    const Fp4 a = random_fp4(rng), b = random_fp4(rng);
    ASSERT_EQ(a * b, schoolbook(a, b));
  }
  static_assert(
      Fp4(Fp::from_mont(Fp::P - 1), Fp::from_mont(Fp::P - 1), Fp::from_mont(Fp::P - 1), Fp::from_mont(Fp::P - 1)) *
          Fp4::one() ==
      Fp4(Fp::from_mont(Fp::P - 1), Fp::from_mont(Fp::P - 1), Fp::from_mont(Fp::P - 1), Fp::from_mont(Fp::P - 1)));
}

TEST(Fp4, MulReducesWithXToTheFourEqualEleven) {
  Fp4 x(Fp::zero(), Fp::one(), Fp::zero(), Fp::zero());
  EXPECT_EQ(x.pow(4), Fp4(f(11)));
}

TEST(Fp4, InverseOnRandomAndEdgeValues) {
  std::mt19937_64 rng(5);
  std::vector<Fp4> vals = {Fp4::one(), Fp4(f(P - 1)), Fp4(Fp::zero(), Fp::one(), Fp::zero(), Fp::zero()),
                           Fp4(Fp::zero(), Fp::zero(), Fp::zero(), f(P - 1)), Fp4(f(1), f(P - 1), f(1), f(P - 1))};
  for (int i = 0; i < 500; ++i) vals.push_back(random_fp4(rng));
  for (const Fp4& a : vals) {
    ASSERT_EQ(a * a.inverse(), Fp4::one()) << to_string(a);
    // Inverse by Fermat in the extension: a^(p^4 - 2).
    if (&a - vals.data() < 20) {
      u128 e = u128(P) * P * P * P - 2;
      Fp4 acc = Fp4::one(), base = a;
      while (e) {
        if (e & 1) acc *= base;
        base = base.square();
        e >>= 1;
      }
      ASSERT_EQ(acc, a.inverse());
    }
  }
}

TEST(Fp4, BatchInverse) {
  std::mt19937_64 rng(11);
  std::vector<Fp4> v;
  for (int i = 0; i < 100; ++i) v.push_back(random_fp4(rng));
  std::vector<Fp4> w = v;
  batch_inverse(std::span<Fp4>(w));
  for (size_t i = 0; i < v.size(); ++i) EXPECT_EQ(w[i] * v[i], Fp4::one());
  v[42] = Fp4::zero();
  EXPECT_THROW(batch_inverse(std::span<Fp4>(v)), ArithmeticError);
}

TEST(Fp4, CheckedConstructorRejectsNonCanonical) { EXPECT_THROW(Fp4::from_canonical(1, 2, Fp::P, 4), InputError); }

TEST(Fp4LazySum, EqualsTheReducedSumForManyLargeTerms) {
  std::mt19937_64 rng(21);
  Fp4LazySum lazy;
  Fp4 plain;
  const Fp4 big = Fp4(f(P - 1), f(P - 1), f(P - 2), f(P - 1));
  for (int i = 0; i < 200000; ++i) {  // p-1 edge terms push the 128-bit accumulator far above 2^64
    Fp4 a = (i % 3 == 0) ? big : random_fp4(rng);
    Fp b = (i % 5 == 0) ? f(P - 1) : Fp::reduce(rng());
    lazy.add(a, b);
    plain += a * b;
  }
  EXPECT_EQ(lazy.value(), plain);
  EXPECT_EQ(Fp4LazySum().value(), Fp4::zero());
}
