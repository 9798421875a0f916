// Specifies the polynomial helpers of stages/common/poly.hpp (protocol.md 5, 9.7) by the algebraic
// self-checks of protocol.md 16.3, each against an independent naive computation written here:
// eq_D is the indicator of D and reproduces polynomials of degree < N; eq# interpolates
// eq(xi, bits(k)); kappa_rot is the indicator of the rotation on D x H_n points and gives the
// rotated column's PLE; in_{l,n} is the indicator of the subgroup and has the closed form of
// poly_common.rs; the closed-form selectors are the PLEs of the selector columns (lifted traces
// too); Lagrange interpolation round-trips polynomials of every small degree.
#include "stages/common/poly.hpp"

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "runtime/error.hpp"
#include "stages/whir/verify.hpp"

using namespace vkstark;

namespace {

struct Rng {
  std::mt19937_64 g;
  explicit Rng(uint64_t seed) : g(seed) {}
  Fp fp() { return Fp::reduce(g()); }
  Fp4 ext() { return {fp(), fp(), fp(), fp()}; }
  std::vector<Fp4> exts(size_t n) {
    std::vector<Fp4> v(n);
    for (auto& x : v) x = ext();
    return v;
  }
  std::vector<Fp> fps(size_t n) {
    std::vector<Fp> v(n);
    for (auto& x : v) x = fp();
    return v;
  }
};

Fp4 naive_pow(const Fp4& x, uint64_t e) {
  Fp4 acc = Fp4::one();
  for (uint64_t i = 0; i < e; ++i) acc *= x;
  return acc;
}

Fp inv_n(uint32_t L) { return Fp::reduce(uint64_t(1) << L).inverse(); }

// (1/N)(1 + sum_{j=1}^{N-1} x^j y^(N-j)), term by term.
Fp4 naive_eq_uni(uint32_t L, const Fp4& x, const Fp4& y) {
  const uint64_t n = uint64_t(1) << L;
  Fp4 acc = Fp4::one();
  for (uint64_t j = 1; j < n; ++j) acc += naive_pow(x, j) * naive_pow(y, n - j);
  return acc * inv_n(L);
}

// eq(bits(k), x) coordinate by coordinate.
Fp4 eq_bits(uint64_t k, std::span<const Fp4> x) {
  Fp4 e = Fp4::one();
  for (size_t i = 0; i < x.size(); ++i) e *= ((k >> i) & 1) ? x[i] : Fp4::one() - x[i];
  return e;
}

std::vector<Fp4> bits_point(uint64_t k, uint32_t n) {
  std::vector<Fp4> p(n);
  for (uint32_t i = 0; i < n; ++i) p[i] = ((k >> i) & 1) ? Fp4::one() : Fp4::zero();
  return p;
}

Fp4 omega_pow(uint32_t L, uint64_t j) { return Fp4(two_adic_generator(L).pow(j)); }

Fp4 naive_horner(const std::vector<Fp4>& c, const Fp4& x) {
  Fp4 acc;
  for (size_t i = 0; i < c.size(); ++i) acc += c[i] * naive_pow(x, i);
  return acc;
}

// The PLE from its definition over every row: sum_i f[i] eq_D(omega^(i mod N), r_0) eq(bits(i >> l), r').
Fp4 naive_ple(const std::vector<Fp>& f, uint32_t L, std::span<const Fp4> r) {
  const uint64_t n = uint64_t(1) << L;
  Fp4 acc;
  for (uint64_t i = 0; i < f.size(); ++i)
    acc += naive_eq_uni(L, omega_pow(L, i % n), r[0]) * eq_bits(i >> L, r.subspan(1)) * f[i];
  return acc;
}

}  // namespace

TEST(EqD, IsTheIndicatorOfTheDomain) {
  for (uint32_t L = 0; L <= 5; ++L)
    for (uint64_t i = 0; i < (1u << L); ++i)
      for (uint64_t j = 0; j < (1u << L); ++j)
        ASSERT_EQ(eval_eq_uni(L, omega_pow(L, i), omega_pow(L, j)), i == j ? Fp4::one() : Fp4::zero())
            << "L=" << L << " i=" << i << " j=" << j;
}

TEST(EqD, EqualsItsSumDefinitionAtRandomPoints) {
  Rng rng(1);
  for (uint32_t L = 0; L <= 6; ++L)
    for (int t = 0; t < 3; ++t) {
      const Fp4 x = rng.ext(), y = rng.ext();
      EXPECT_EQ(eval_eq_uni(L, x, y), naive_eq_uni(L, x, y)) << "L=" << L;
      EXPECT_EQ(eval_eq_uni_at_one(L, x), naive_eq_uni(L, x, Fp4::one())) << "L=" << L;
      const std::vector<Fp4> c = eq_uni_poly(L, x);
      ASSERT_EQ(c.size(), size_t(1) << L);
      EXPECT_EQ(naive_horner(c, y), naive_eq_uni(L, x, y)) << "L=" << L;
    }
}

TEST(EqD, ReproducesPolynomialsOfDegreeBelowN) {
  // sum_{z in D} eq_D(z, y) f(z) = f(y) for deg f < N.
  Rng rng(2);
  for (uint32_t L = 0; L <= 5; ++L) {
    const std::vector<Fp4> f = rng.exts(size_t(1) << L);
    const Fp4 y = rng.ext();
    Fp4 acc;
    for (uint64_t k = 0; k < f.size(); ++k)
      acc += eval_eq_uni(L, omega_pow(L, k), y) * naive_horner(f, omega_pow(L, k));
    EXPECT_EQ(acc, naive_horner(f, y)) << "L=" << L;
  }
}

TEST(EqPrism, IsTheProductOfEqDAndEq) {
  Rng rng(3);
  for (uint32_t L = 0; L <= 3; ++L) {
    const std::vector<Fp4> a = rng.exts(4), b = rng.exts(4);
    EXPECT_EQ(eval_eq_prism(L, a, b), naive_eq_uni(L, a[0], b[0]) * eq_ext(std::span<const Fp4>(a).subspan(1),
                                                                           std::span<const Fp4>(b).subspan(1)));
    // On D x H points it is the indicator.
    std::vector<Fp4> u = bits_point(5, 3), v = bits_point(5, 3);
    u.insert(u.begin(), omega_pow(L, 1));
    v.insert(v.begin(), omega_pow(L, 1));
    EXPECT_EQ(eval_eq_prism(L, u, v), Fp4::one());
    v[2] = Fp4::one() - v[2];
    EXPECT_EQ(eval_eq_prism(L, u, v), Fp4::zero());
  }
  EXPECT_THROW((void)eval_eq_prism(2, std::vector<Fp4>(2), std::vector<Fp4>(3)), InputError);
}

TEST(EqSharp, InterpolatesEqOfTheBitsOnTheDomain) {
  Rng rng(4);
  for (uint32_t l = 0; l <= 5; ++l) {
    const std::vector<Fp4> xi = rng.exts(l);
    for (uint64_t k = 0; k < (1u << l); ++k)
      ASSERT_EQ(eval_eq_sharp_uni(xi, omega_pow(l, k)), eq_bits(k, xi)) << "l=" << l << " k=" << k;
    const std::vector<Fp4> c = eq_sharp_uni_poly(xi);
    ASSERT_EQ(c.size(), size_t(1) << l);
    for (uint64_t k = 0; k < (1u << l); ++k) ASSERT_EQ(naive_horner(c, omega_pow(l, k)), eq_bits(k, xi));
    const Fp4 z = rng.ext();
    EXPECT_EQ(naive_horner(c, z), eval_eq_sharp_uni(xi, z)) << "l=" << l;
  }
}

TEST(InIndicator, IsOneOnTheSubgroupAndZeroOnTheRestOfD) {
  for (uint32_t l = 0; l <= 5; ++l)
    for (int32_t n = -int32_t(l); n <= 1; ++n)
      for (uint64_t j = 0; j < (1u << l); ++j) {
        const bool in = n >= 0 || j % (uint64_t(1) << -n) == 0;
        ASSERT_EQ(eval_in_uni(l, n, omega_pow(l, j)), in ? Fp4::one() : Fp4::zero())
            << "l=" << l << " n=" << n << " j=" << j;
      }
  EXPECT_THROW((void)eval_in_uni(2, -3, Fp4::one()), InputError);
}

TEST(InIndicator, HasTheClosedFormOfPolyCommon) {
  // eval_in_uni(u) = (u^(2^l) - 1) / ((u^(2^(l+n)) - 1) 2^-n) off the subgroup (poly_common.rs).
  Rng rng(5);
  for (uint32_t l = 1; l <= 5; ++l)
    for (int32_t n = -int32_t(l); n < 0; ++n) {
      const Fp4 u = rng.ext();
      const Fp4 num = naive_pow(u, uint64_t(1) << l) - Fp::one();
      const Fp4 den = (naive_pow(u, uint64_t(1) << (l + n)) - Fp::one()) * Fp::reduce(uint64_t(1) << -n);
      EXPECT_EQ(eval_in_uni(l, n, u), num * den.inverse()) << "l=" << l << " n=" << n;
    }
}

TEST(RotCube, IsTheMleOfTheSuccessor) {
  Rng rng(6);
  for (uint32_t n = 0; n <= 4; ++n) {
    const uint64_t size = uint64_t(1) << n;
    for (uint64_t x = 0; x < size; ++x)
      for (uint64_t y = 0; y < size; ++y)
        ASSERT_EQ(eval_eq_rot_cube(bits_point(x, n), bits_point(y, n)), x == (y + 1) % size ? Fp4::one() : Fp4::zero())
            << "n=" << n << " x=" << x << " y=" << y;
    const std::vector<Fp4> a = rng.exts(n), b = rng.exts(n);
    Fp4 naive;
    for (uint64_t y = 0; y < size; ++y) naive += eq_bits((y + 1) % size, a) * eq_bits(y, b);
    EXPECT_EQ(eval_eq_rot_cube(a, b), naive) << "n=" << n;
  }
}

TEST(KappaRot, IsTheIndicatorOfTheRotationOnPrismPoints) {
  // kappa_rot(u, r) = [u == rot(r)], rot(omega^j, x) = (omega^(j+1), x) for j < N - 1, else (1, x + 1).
  for (uint32_t L = 0; L <= 3; ++L)
    for (uint32_t n = 0; n <= 2; ++n) {
      const uint64_t N = uint64_t(1) << L, cube = uint64_t(1) << n;
      auto point = [&](uint64_t row) {
        std::vector<Fp4> p = bits_point(row / N, n);
        p.insert(p.begin(), omega_pow(L, row % N));
        return p;
      };
      for (uint64_t ur = 0; ur < N * cube; ++ur)
        for (uint64_t rr = 0; rr < N * cube; ++rr) {
          const uint64_t rot = (rr + 1) % (N * cube);
          ASSERT_EQ(eval_rot_kernel_prism(L, point(ur), point(rr)), ur == rot ? Fp4::one() : Fp4::zero())
              << "L=" << L << " n=" << n << " u=" << ur << " r=" << rr;
        }
    }
}

TEST(KappaRot, GivesTheRotatedColumnsPle) {
  // f_rot-hat(r) = sum_u f(u) kappa_rot(u, r), and equals the PLE of the rotated column.
  Rng rng(7);
  for (uint32_t l = 0; l <= 3; ++l)
    for (uint32_t n = 0; n <= 3; ++n) {
      const uint64_t N = uint64_t(1) << l, h = N << n;
      const std::vector<Fp> f = rng.fps(h);
      std::vector<Fp> rotated(h);
      for (uint64_t i = 0; i < h; ++i) rotated[i] = f[(i + 1) % h];
      const std::vector<Fp4> r = rng.exts(n + 1);
      Fp4 acc;
      for (uint64_t i = 0; i < h; ++i) {
        std::vector<Fp4> u = bits_point(i / N, n);
        u.insert(u.begin(), omega_pow(l, i % N));
        acc += eval_rot_kernel_prism(l, u, r) * f[i];
      }
      EXPECT_EQ(acc, naive_ple(rotated, l, r)) << "l=" << l << " n=" << n;
      EXPECT_EQ(eval_ple(rotated, l, r), acc) << "l=" << l << " n=" << n;
    }
}

TEST(Ple, AgreesWithTheColumnOnThePrismAndWithItsDefinition) {
  Rng rng(8);
  for (uint32_t l = 0; l <= 3; ++l)
    for (uint32_t n = 0; n <= 3; ++n) {
      const uint64_t N = uint64_t(1) << l;
      const std::vector<Fp> f = rng.fps(N << n);
      for (uint64_t i = 0; i < f.size(); ++i) {
        std::vector<Fp4> p = bits_point(i / N, n);
        p.insert(p.begin(), omega_pow(l, i % N));
        ASSERT_EQ(eval_ple(f, l, p), Fp4(f[i])) << "l=" << l << " n=" << n << " i=" << i;
      }
      const std::vector<Fp4> r = rng.exts(n + 2);  // one coordinate more than needed: ignored
      EXPECT_EQ(eval_ple(f, l, r), naive_ple(f, l, std::span<const Fp4>(r).subspan(0, n + 1)));
    }
}

TEST(Ple, OfAShortColumnIsTheLiftedColumnsPle) {
  // n < 0: f-hat(r_0^(2^-n)) on the small subgroup = the PLE at r_0 of the cyclically repeated column.
  Rng rng(9);
  for (uint32_t l = 1; l <= 4; ++l)
    for (int32_t n = -int32_t(l); n < 0; ++n) {
      const std::vector<Fp> f = rng.fps(uint64_t(1) << (l + n));
      std::vector<Fp> lifted(uint64_t(1) << l);
      for (uint64_t i = 0; i < lifted.size(); ++i) lifted[i] = f[i % f.size()];
      const std::vector<Fp4> r = rng.exts(1);
      EXPECT_EQ(eval_ple(f, l, r), naive_ple(lifted, l, r)) << "l=" << l << " n=" << n;
      const LiftedPoint p = lifted_point(l, n, r);
      EXPECT_EQ(p.L, uint32_t(int32_t(l) + n));
      EXPECT_EQ(eval_ple(f, l, r), naive_ple(f, p.L, p.rs));
    }
  EXPECT_THROW((void)eval_ple(std::vector<Fp>(3), 1, std::vector<Fp4>(1)), InputError);
  EXPECT_THROW((void)eval_ple(std::vector<Fp>(8), 1, std::vector<Fp4>(1)), InputError);  // needs r_0..r_2
}

TEST(Selectors, ClosedFormsAreThePlesOfTheSelectorColumns) {
  Rng rng(10);
  for (uint32_t l = 0; l <= 3; ++l)
    for (int32_t n = -int32_t(l); n <= 3; ++n) {
      const uint64_t h = uint64_t(1) << (int32_t(l) + n);
      std::vector<Fp> first(h), last(h), transition(h, Fp::one());
      first[0] = Fp::one();
      last[h - 1] = Fp::one();
      transition[h - 1] = Fp::zero();
      const std::vector<Fp4> r = rng.exts(4);
      const SelectorValues s = eval_selectors(l, n, r);
      EXPECT_EQ(s.is_first, eval_ple(first, l, r)) << "l=" << l << " n=" << n;
      EXPECT_EQ(s.is_last, eval_ple(last, l, r)) << "l=" << l << " n=" << n;
      EXPECT_EQ(s.is_transition, eval_ple(transition, l, r)) << "l=" << l << " n=" << n;
      if (n < 0) {  // the lifted selectors repeat with period 2^(l+n): the same values at r_0
        std::vector<Fp> lifted_first(uint64_t(1) << l);
        for (uint64_t i = 0; i < lifted_first.size(); ++i) lifted_first[i] = first[i % h];
        EXPECT_EQ(s.is_first, naive_ple(lifted_first, l, std::span<const Fp4>(r).subspan(0, 1)));
      }
    }
}

TEST(GeometricSum, IsTheSumOfPowers) {
  Rng rng(11);
  for (uint32_t L = 0; L <= 6; ++L) {
    const Fp4 m = rng.ext();
    Fp4 naive;
    for (uint64_t j = 0; j < (1u << L); ++j) naive += naive_pow(m, j);
    EXPECT_EQ(geometric_sum_pow2(L, m), naive) << "L=" << L;
  }
}

TEST(Univariate, SumOverTheDomainAndHorner) {
  Rng rng(12);
  for (uint32_t L = 0; L <= 4; ++L)
    for (size_t len : {size_t(1), size_t(1) << L, (size_t(2) << L) - 1, size_t(3) << L}) {
      const std::vector<Fp4> c = rng.exts(len);
      Fp4 naive;
      for (uint64_t k = 0; k < (1u << L); ++k) naive += naive_horner(c, omega_pow(L, k));
      EXPECT_EQ(sum_over_domain(L, c), naive) << "L=" << L << " len=" << len;
      const Fp4 x = rng.ext();
      EXPECT_EQ(horner(c, x), naive_horner(c, x));
    }
  EXPECT_EQ(horner({}, Fp4::one()), Fp4::zero());
}

TEST(Lagrange, RoundTripsPolynomialsOfEveryDegree) {
  Rng rng(13);
  for (size_t d = 0; d <= 7; ++d)
    for (int t = 0; t < 3; ++t) {
      const std::vector<Fp4> c = rng.exts(d + 1);
      std::vector<Fp4> values(d + 1);
      for (size_t i = 0; i <= d; ++i) values[i] = naive_horner(c, Fp4(Fp::reduce(i)));
      const Fp4 r = rng.ext();
      EXPECT_EQ(eval_uniform<Fp4>(values, r), naive_horner(c, r)) << "d=" << d;
      // At the nodes themselves.
      for (size_t i = 0; i <= d; ++i) EXPECT_EQ(eval_uniform<Fp4>(values, Fp4(Fp::reduce(i))), values[i]);
      if (d == 2) {
        EXPECT_EQ(interpolate_quadratic(values[0], values[1], values[2], r), naive_horner(c, r));
      }
      if (d == 3) {
        EXPECT_EQ(interpolate_cubic(values[0], values[1], values[2], values[3], r), naive_horner(c, r));
      }
    }
  EXPECT_THROW((void)eval_uniform<Fp4>({}, Fp4::one()), InputError);
}
