#include "kernels/field/fp4.hpp"

#include <fmt/format.h>

#include <ostream>

#include "kernels/field/detail/batch_inverse.hpp"
#include "runtime/error.hpp"

namespace vkstark {

Fp4 Fp4::from_canonical(uint32_t a0, uint32_t a1, uint32_t a2, uint32_t a3) {
  return {Fp::from_canonical(a0), Fp::from_canonical(a1), Fp::from_canonical(a2), Fp::from_canonical(a3)};
}

// Tower inverse: with Y = X^2, a = e(Y) + X o(Y). Then a * (e - X o) = e^2 - Y o^2 = b0 + b1 Y lies in
// F[Y]/(Y^2 - 11), whose inverse is (b0 - b1 Y) / (b0^2 - 11 b1^2). One base-field inversion.
// fp4.glsl's fp4_inv performs the same steps.
Fp4 Fp4::inverse() const {
  if (is_zero()) throw ArithmeticError("inverse of zero in the degree-4 extension");
  const Fp w = Fp::from_canonical_unchecked(W);
  const auto& a = c;
  Fp b0 = a[0].square() + w * a[2].square() - w * (a[1] * a[3]).doubled();
  Fp b1 = (a[0] * a[2]).doubled() - a[1].square() - w * a[3].square();
  Fp n_inv = (b0.square() - w * b1.square()).inverse();
  Fp c0 = b0 * n_inv, c1 = -(b1 * n_inv);
  return {a[0] * c0 + w * (a[2] * c1), -(a[1] * c0 + w * (a[3] * c1)), a[0] * c1 + a[2] * c0, -(a[1] * c1 + a[3] * c0)};
}

std::string to_string(const Fp4& a) {
  return fmt::format("({}, {}, {}, {})", a.c[0].value(), a.c[1].value(), a.c[2].value(), a.c[3].value());
}
std::ostream& operator<<(std::ostream& os, const Fp4& a) { return os << to_string(a); }

void batch_inverse(std::span<Fp4> values) { detail::batch_inverse(values, "extension field"); }

}  // namespace vkstark
