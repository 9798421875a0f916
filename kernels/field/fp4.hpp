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
  // The 16 products of Montgomery forms summed lazily in 64 bits: the three sums that X^4 = W
  // multiplies are reduced first (to (sum) R mod p, then times W's Montgomery form), each
  // coefficient's sum of at most four products (below 4 p^2 < 2^64) is folded below p 2^32 and
  // Montgomery-reduced once: 7 reductions instead of 19. Canonical coefficients, as every product.
  constexpr Fp4 operator*(const Fp4& o) const {
    const uint64_t a0 = c[0].mont(), a1 = c[1].mont(), a2 = c[2].mont(), a3 = c[3].mont();
    const uint64_t b0 = o.c[0].mont(), b1 = o.c[1].mont(), b2 = o.c[2].mont(), b3 = o.c[3].mont();
    constexpr uint64_t w = Fp::from_canonical_unchecked(W).mont();
    const uint64_t t0 = Fp::mont_reduce(fold(a1 * b3 + a2 * b2 + a3 * b1));  // 3 p^2 < 2^64
    const uint64_t t1 = Fp::mont_reduce(a2 * b3 + a3 * b2);                  // 2 p^2 < p 2^32
    const uint64_t t2 = Fp::mont_reduce(a3 * b3);
    return {Fp::from_mont(Fp::mont_reduce(a0 * b0 + t0 * w)),
            Fp::from_mont(Fp::mont_reduce(fold(a0 * b1 + a1 * b0 + t1 * w))),
            Fp::from_mont(Fp::mont_reduce(fold(a0 * b2 + a1 * b1 + a2 * b0 + t2 * w))),
            Fp::from_mont(Fp::mont_reduce(fold(a0 * b3 + a1 * b2 + a2 * b1 + a3 * b0)))};
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

 private:
  // s mod p up to a multiple of p, below 2^61 < p 2^32 (for Fp::mont_reduce): lo + hi (2^32 mod p).
  static constexpr uint64_t fold(uint64_t s) { return (s & 0xFFFFFFFFu) + (s >> 32) * uint64_t(Fp::R_MOD_P); }
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
