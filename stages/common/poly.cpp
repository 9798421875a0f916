#include "stages/common/poly.hpp"

#include <fmt/format.h>

#include <bit>

#include "kernels/field/dft.hpp"
#include "runtime/error.hpp"

namespace vkstark {

namespace {

// 2^-L.
Fp inv_pow2(uint32_t L) { return Fp::from_canonical_unchecked(2).inverse().pow(L); }

// x^(2^k).
Fp4 pow2k(Fp4 x, uint32_t k) {
  for (uint32_t i = 0; i < k; ++i) x = x.square();
  return x;
}

// eq(bits(k), xi) for every k < 2^xi.size(), by doubling (coordinate i of xi pairs with bit i of k).
std::vector<Fp4> eq_hypercube_table(std::span<const Fp4> xi) {
  std::vector<Fp4> t(size_t(1) << xi.size());
  t[0] = Fp4::one();
  for (size_t i = 0; i < xi.size(); ++i) {
    const size_t h = size_t(1) << i;
    for (size_t k = 0; k < h; ++k) {
      t[k + h] = t[k] * xi[i];
      t[k] = t[k] * (Fp4::one() - xi[i]);
    }
  }
  return t;
}

void require_same_size(std::span<const Fp4> a, std::span<const Fp4> b, const char* what) {
  if (a.size() != b.size() || a.empty())
    throw InputError(
        fmt::format("{}: points of {} and {} coordinates (equal sizes >= 1 expected)", what, a.size(), b.size()));
}

}  // namespace

Fp4 eval_eq_uni(uint32_t L, const Fp4& x, const Fp4& y) {
  Fp4 a = x, b = y, res = Fp4::one();
  for (uint32_t k = 0; k < L; ++k) {
    res = (a + b) * res + (a - Fp::one()) * (b - Fp::one());
    a = a.square();
    b = b.square();
  }
  return res * inv_pow2(L);
}

Fp4 eval_eq_uni_at_one(uint32_t L, const Fp4& x) { return geometric_sum_pow2(L, x) * inv_pow2(L); }

std::vector<Fp4> eq_uni_poly(uint32_t L, const Fp4& x) {
  const uint64_t n = uint64_t(1) << L;
  const Fp inv_n = inv_pow2(L);
  std::vector<Fp4> c(n);
  c[0] = Fp4(inv_n);
  // c_j = x^(N-j) / N: walk j down from N-1, the power of x up from 1.
  Fp4 p = x * inv_n;
  for (uint64_t j = n - 1; j >= 1; --j) {
    c[j] = p;
    p *= x;
  }
  return c;
}

Fp4 eval_eq_prism(uint32_t L, std::span<const Fp4> a, std::span<const Fp4> b) {
  require_same_size(a, b, "eq_prism");
  return eval_eq_uni(L, a[0], b[0]) * eq_ext(a.subspan(1), b.subspan(1));
}

Fp4 eval_eq_sharp_uni(std::span<const Fp4> xi, const Fp4& z) {
  const uint32_t l = static_cast<uint32_t>(xi.size());
  const std::vector<Fp4> eq = eq_hypercube_table(xi);
  const Fp omega = two_adic_generator(l);
  Fp w = Fp::one();
  Fp4 acc;
  for (const Fp4& e : eq) {
    acc += e * eval_eq_uni(l, z, Fp4(w));
    w *= omega;
  }
  return acc;
}

std::vector<Fp4> eq_sharp_uni_poly(std::span<const Fp4> xi) {
  std::vector<Fp4> c = eq_hypercube_table(xi);
  idft(c);
  return c;
}

Fp4 eval_in_uni(uint32_t l, int32_t n, const Fp4& z) {
  if (n >= 0) return Fp4::one();
  if (-int64_t(n) > int64_t(l)) throw InputError(fmt::format("in_(l,n): n = {} is below -l_skip = -{}", n, l));
  const uint32_t shift = static_cast<uint32_t>(-n);
  return eval_eq_uni_at_one(shift, pow2k(z, l - shift));
}

LiftedPoint lifted_point(uint32_t l, int32_t n, std::span<const Fp4> r) {
  if (n < 0 && -int64_t(n) > int64_t(l))
    throw InputError(fmt::format("lifted point: n = {} is below -l_skip = -{}", n, l));
  const size_t need = 1 + (n > 0 ? size_t(n) : 0);
  if (r.size() < need) throw InputError(fmt::format("lifted point: {} coordinates given, {} needed", r.size(), need));
  if (n >= 0) return {l, std::vector<Fp4>(r.begin(), r.begin() + need)};
  const uint32_t shift = static_cast<uint32_t>(-n);
  return {l - shift, {pow2k(r[0], shift)}};
}

Fp4 eval_eq_rot_cube(std::span<const Fp4> x, std::span<const Fp4> y) {
  if (x.size() != y.size())
    throw InputError(fmt::format("rot_cube: points of {} and {} coordinates", x.size(), y.size()));
  Fp4 rot = Fp4::one(), eq = Fp4::one();
  for (size_t i = x.size(); i-- > 0;) {
    const Fp4 nx = Fp4::one() - x[i], ny = Fp4::one() - y[i];
    rot = x[i] * ny * eq + nx * y[i] * rot;
    eq *= x[i] * y[i] + nx * ny;
  }
  return rot;
}

Fp4 eval_rot_kernel_prism(uint32_t L, std::span<const Fp4> u, std::span<const Fp4> r) {
  require_same_size(u, r, "kappa_rot");
  const Fp4 wr = r[0] * two_adic_generator(L);
  const std::span<const Fp4> uc = u.subspan(1), rc = r.subspan(1);
  const Fp4 eq = eq_ext(uc, rc);
  return eval_eq_uni(L, u[0], wr) * eq +
         eval_eq_uni_at_one(L, u[0]) * eval_eq_uni_at_one(L, wr) * (eval_eq_rot_cube(uc, rc) - eq);
}

Fp4 horner(std::span<const Fp4> coeffs, const Fp4& x) {
  Fp4 acc;
  for (size_t i = coeffs.size(); i-- > 0;) acc = acc * x + coeffs[i];
  return acc;
}

Fp4 horner(std::span<const Fp4> coeffs, Fp x) {
  Fp4 acc;
  for (size_t i = coeffs.size(); i-- > 0;) acc = acc * x + coeffs[i];
  return acc;
}

Fp4 sum_over_domain(uint32_t L, std::span<const Fp4> coeffs) {
  const uint64_t n = uint64_t(1) << L;
  Fp4 s;
  for (uint64_t j = 0; j < coeffs.size(); j += n) s += coeffs[j];
  return s * Fp::reduce(n);
}

Fp4 interpolate_quadratic(const Fp4& v0, const Fp4& v1, const Fp4& v2, const Fp4& r) {
  const Fp inv2 = Fp::from_canonical_unchecked(2).inverse();
  const Fp4 r1 = r - Fp::one(), r2 = r - Fp::from_canonical_unchecked(2);
  // l0 = (r-1)(r-2)/2, l1 = -r(r-2), l2 = r(r-1)/2.
  return (v0 * (r1 * r2) + v2 * (r * r1)) * inv2 - v1 * (r * r2);
}

Fp4 interpolate_cubic(const Fp4& v0, const Fp4& v1, const Fp4& v2, const Fp4& v3, const Fp4& r) {
  const Fp inv2 = Fp::from_canonical_unchecked(2).inverse(), inv6 = Fp::from_canonical_unchecked(6).inverse();
  const Fp4 r1 = r - Fp::one(), r2 = r - Fp::from_canonical_unchecked(2), r3 = r - Fp::from_canonical_unchecked(3);
  // l0 = -(r-1)(r-2)(r-3)/6, l1 = r(r-2)(r-3)/2, l2 = -r(r-1)(r-3)/2, l3 = r(r-1)(r-2)/6.
  const Fp4 r_r1 = r * r1, r2_r3 = r2 * r3;
  return (v3 * (r_r1 * r2) - v0 * (r1 * r2_r3)) * inv6 + (v1 * (r * r2_r3) - v2 * (r_r1 * r3)) * inv2;
}

Fp4 geometric_sum_pow2(uint32_t L, const Fp4& m) {
  Fp4 acc = Fp4::one(), p = m;
  for (uint32_t k = 0; k < L; ++k) {
    acc *= p + Fp::one();
    p = p.square();
  }
  return acc;
}

SelectorValues eval_selectors(uint32_t l, int32_t n, std::span<const Fp4> r) {
  const LiftedPoint p = lifted_point(l, n, r);
  const Fp inv = inv_pow2(p.L);
  Fp4 first = geometric_sum_pow2(p.L, p.rs[0]) * inv;
  Fp4 last = geometric_sum_pow2(p.L, p.rs[0] * two_adic_generator(p.L)) * inv;
  for (size_t k = 1; k < p.rs.size(); ++k) {
    first *= Fp4::one() - p.rs[k];
    last *= p.rs[k];
  }
  return {first, last, Fp4::one() - last};
}

Fp4 eval_ple(std::span<const Fp> column, uint32_t l, std::span<const Fp4> r) {
  if (column.empty() || !std::has_single_bit(column.size()))
    throw InputError(fmt::format("PLE: a column of {} values (a power of two expected)", column.size()));
  const int32_t n = int32_t(std::countr_zero(column.size())) - int32_t(l);
  const LiftedPoint p = lifted_point(l, n, r);
  const uint64_t chunk = uint64_t(1) << p.L;
  // Lagrange weights of D^(L) at rs_0: L_j(rs_0) = eq_D(omega^j, rs_0).
  std::vector<Fp4> weights(chunk);
  const Fp omega = two_adic_generator(p.L);
  Fp w = Fp::one();
  for (uint64_t j = 0; j < chunk; ++j, w *= omega) weights[j] = eval_eq_uni(p.L, Fp4(w), p.rs[0]);
  std::vector<Fp4> folded(column.size() / chunk);
  for (uint64_t x = 0; x < folded.size(); ++x)
    for (uint64_t j = 0; j < chunk; ++j) folded[x] += weights[j] * column[x * chunk + j];
  return mle_eval(folded, std::span<const Fp4>(p.rs).subspan(1));
}

Fp4 mobius_eq(std::span<const Fp4> u, std::span<const Fp4> b) {
  Fp4 acc = Fp4::one();
  for (size_t k = 0; k < u.size(); ++k) {
    const Fp4 one = Fp4::one();
    acc *= (one - u[k] - u[k]) * (one - b[k]) + u[k] * b[k];
  }
  return acc;
}

Fp4 eq_ext(std::span<const Fp4> x, std::span<const Fp4> y) {
  Fp4 acc = Fp4::one();
  for (size_t k = 0; k < x.size(); ++k) acc *= x[k] * y[k] + (Fp4::one() - x[k]) * (Fp4::one() - y[k]);
  return acc;
}

Fp4 mle_eval(std::span<const Fp4> table, std::span<const Fp4> x) {
  std::vector<Fp4> t(table.begin(), table.end());
  for (const Fp4& r : x) {  // fold the first (least significant) variable first
    for (size_t y = 0; y < t.size() / 2; ++y) t[y] = t[2 * y] + r * (t[2 * y + 1] - t[2 * y]);
    t.resize(t.size() / 2);
  }
  return t.empty() ? Fp4::zero() : t[0];
}

}  // namespace vkstark
