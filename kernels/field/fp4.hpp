// The degree-4 extension EF = F[X]/(X^4 - 11) (protocol.md 1.3). Value type; thread-compatible.
// Stored as 4 Fp coefficients [a0, a1, a2, a3] (a = a0 + a1 X + a2 X^2 + a3 X^3), the same layout
// the GLSL kernels use (kernels/glsl/fp4.glsl).
#pragma once

#include <array>
#include <cstdint>
#include <iosfwd>
#include <span>
#include <string>

#include "kernels/field/fp.hpp"

namespace vkstark {

class Fp4 {
 public:
  static constexpr uint32_t W = 11;  // X^4 = W
  std::array<Fp, 4> c{};

  constexpr Fp4() = default;
  constexpr explicit Fp4(Fp a0) : c{a0, Fp(), Fp(), Fp()} {}
  constexpr Fp4(Fp a0, Fp a1, Fp a2, Fp a3) : c{a0, a1, a2, a3} {}
  // Checked: throws InputError if any coefficient is >= p.
  static Fp4 from_canonical(uint32_t a0, uint32_t a1, uint32_t a2, uint32_t a3);

  static constexpr Fp4 zero() { return Fp4(); }
  static constexpr Fp4 one() { return Fp4(Fp::one()); }

  constexpr bool is_zero() const { return c[0].is_zero() && c[1].is_zero() && c[2].is_zero() && c[3].is_zero(); }

  constexpr Fp4 operator+(const Fp4& o) const { return {c[0] + o.c[0], c[1] + o.c[1], c[2] + o.c[2], c[3] + o.c[3]}; }
  constexpr Fp4 operator-(const Fp4& o) const { return {c[0] - o.c[0], c[1] - o.c[1], c[2] - o.c[2], c[3] - o.c[3]}; }
  constexpr Fp4 operator-() const { return {-c[0], -c[1], -c[2], -c[3]}; }
  constexpr Fp4 operator*(Fp s) const { return {c[0] * s, c[1] * s, c[2] * s, c[3] * s}; }
  constexpr Fp4 operator+(Fp s) const { return {c[0] + s, c[1], c[2], c[3]}; }
  constexpr Fp4 operator-(Fp s) const { return {c[0] - s, c[1], c[2], c[3]}; }
  constexpr Fp4 operator*(const Fp4& o) const {
    const auto& a = c;
    const auto& b = o.c;
    const Fp w = Fp::from_canonical_unchecked(W);
    return {a[0] * b[0] + w * (a[1] * b[3] + a[2] * b[2] + a[3] * b[1]),
            a[0] * b[1] + a[1] * b[0] + w * (a[2] * b[3] + a[3] * b[2]),
            a[0] * b[2] + a[1] * b[1] + a[2] * b[0] + w * (a[3] * b[3]),
            a[0] * b[3] + a[1] * b[2] + a[2] * b[1] + a[3] * b[0]};
  }
  constexpr Fp4& operator+=(const Fp4& o) { return *this = *this + o; }
  constexpr Fp4& operator-=(const Fp4& o) { return *this = *this - o; }
  constexpr Fp4& operator*=(const Fp4& o) { return *this = *this * o; }
  constexpr Fp4& operator*=(Fp s) { return *this = *this * s; }

  constexpr Fp4 square() const { return *this * *this; }
  constexpr Fp4 pow(uint64_t e) const {
    Fp4 base = *this, acc = one();
    while (e != 0) {
      if (e & 1) acc *= base;
      base = base.square();
      e >>= 1;
    }
    return acc;
  }
  // Multiplicative inverse; throws ArithmeticError for zero.
  Fp4 inverse() const;

  constexpr bool operator==(const Fp4&) const = default;
};

constexpr Fp4 operator*(Fp s, const Fp4& a) { return a * s; }
constexpr Fp4 operator+(Fp s, const Fp4& a) { return a + s; }
constexpr Fp4 operator-(Fp s, const Fp4& a) { return -a + s; }

static_assert(sizeof(Fp4) == 16 && alignof(Fp4) == 4);

std::string to_string(const Fp4& a);
std::ostream& operator<<(std::ostream& os, const Fp4& a);

// Replaces every element by its inverse with one inversion. Throws ArithmeticError naming the first zero.
void batch_inverse(std::span<Fp4> values);

}  // namespace vkstark
