// BabyBear, p = 2^31 - 2^27 + 1 (protocol.md 1.1). Value type; thread-compatible.
//
// Inside, an element is kept in Montgomery form a*R mod p with R = 2^32, exactly the bits the GLSL
// kernels (kernels/glsl/fp.glsl) and device buffers hold, so buffers of Fp move between host and
// device without conversion. Every interface is canonical: construction, printing, serialization
// and comparison with integers all use the integer in [0, p).
#pragma once

#include <array>
#include <compare>
#include <cstdint>
#include <iosfwd>
#include <span>
#include <string>

namespace vkstark {

class Fp {
 public:
  static constexpr uint32_t P = 0x78000001u;         // 2013265921
  static constexpr uint32_t MONTY_MU = 0x88000001u;  // p^-1 mod 2^32
  static constexpr uint32_t R_MOD_P = 268435454u;    // 2^32 mod p
  static constexpr uint32_t R2_MOD_P = 1172168163u;  // 2^64 mod p
  static constexpr uint32_t TWO_ADICITY = 27;
  static constexpr uint32_t GENERATOR = 31;  // generator of F^*

  constexpr Fp() = default;

  // Checked constructor from a canonical integer: throws InputError when v >= p.
  static Fp from_canonical(uint32_t v);
  // Reduces any 32- or 64-bit integer mod p (never fails).
  static constexpr Fp reduce(uint64_t v) { return from_canonical_unchecked(static_cast<uint32_t>(v % P)); }
  // For values known to be < p (constants, loop counters); behaviour for v >= p is a wrong element.
  static constexpr Fp from_canonical_unchecked(uint32_t v) { return from_mont(mont_mul(v, R2_MOD_P)); }
  // Raw Montgomery bits, as stored in device buffers.
  static constexpr Fp from_mont(uint32_t m) {
    Fp r;
    r.mont_ = m;
    return r;
  }

  static constexpr Fp zero() { return Fp(); }
  static constexpr Fp one() { return from_mont(R_MOD_P); }

  constexpr uint32_t value() const { return mont_reduce(mont_); }  // canonical integer
  constexpr uint32_t mont() const { return mont_; }
  constexpr bool is_zero() const { return mont_ == 0; }

  constexpr Fp operator+(Fp o) const {
    uint32_t s = mont_ + o.mont_;
    return from_mont(s >= P ? s - P : s);
  }
  constexpr Fp operator-(Fp o) const {
    uint32_t d = mont_ - o.mont_;
    return from_mont(mont_ < o.mont_ ? d + P : d);
  }
  constexpr Fp operator-() const { return from_mont(mont_ == 0 ? 0 : P - mont_); }
  constexpr Fp operator*(Fp o) const { return from_mont(mont_mul(mont_, o.mont_)); }
  constexpr Fp& operator+=(Fp o) { return *this = *this + o; }
  constexpr Fp& operator-=(Fp o) { return *this = *this - o; }
  constexpr Fp& operator*=(Fp o) { return *this = *this * o; }

  constexpr Fp square() const { return *this * *this; }
  constexpr Fp doubled() const { return *this + *this; }
  constexpr Fp pow(uint64_t e) const {
    Fp base = *this, acc = one();
    while (e != 0) {
      if (e & 1) acc *= base;
      base = base.square();
      e >>= 1;
    }
    return acc;
  }
  // Multiplicative inverse; throws ArithmeticError for zero.
  Fp inverse() const;

  constexpr bool operator==(const Fp&) const = default;

  // Montgomery product: a*b*R^-1 mod p for a, b < p. The same sequence as fp_mul in fp.glsl.
  static constexpr uint32_t mont_mul(uint32_t a, uint32_t b) { return mont_reduce(uint64_t(a) * b); }
  // t * R^-1 mod p for t < p * 2^32.
  static constexpr uint32_t mont_reduce(uint64_t t) {
    uint32_t u = static_cast<uint32_t>(t) * MONTY_MU;
    uint64_t up = uint64_t(u) * P;
    uint32_t hi = static_cast<uint32_t>((t - up) >> 32);
    return t < up ? hi + P : hi;
  }

 private:
  uint32_t mont_ = 0;
};

static_assert(sizeof(Fp) == 4 && alignof(Fp) == 4);
static_assert(Fp::mont_reduce(uint64_t(Fp::R2_MOD_P)) == Fp::R_MOD_P, "R2 is R^2 mod p");
static_assert(Fp::from_canonical_unchecked(1) == Fp::one());

std::string to_string(Fp a);
std::ostream& operator<<(std::ostream& os, Fp a);

// Canonical little-endian u32 encoding (protocol.md 12.2).
void encode(Fp a, uint8_t out[4]);
// Throws InputError naming `what` when the 4 bytes encode an integer >= p.
Fp decode_fp(const uint8_t in[4], const char* what = "field element");

// two_adic_generator(k): the element of order 2^k of protocol.md 1.2 (k <= 27; throws InputError otherwise).
Fp two_adic_generator(uint32_t k);
inline constexpr std::array<uint32_t, 28> TWO_ADIC_GENERATORS = {
    1,          2013265920, 1728404513, 1592366214, 196396260,  760005850,  1721589904,
    397765732,  1732600167, 1753498361, 341742893,  1340477990, 1282623253, 298008106,
    1657000625, 2009781145, 1421947380, 1286330022, 1559589183, 1049899240, 195061667,
    414040701,  570250684,  1267047229, 1003846038, 1149491290, 975630072,  440564289};

// Replaces every element by its inverse with one inversion (Montgomery's trick). Throws
// ArithmeticError naming the first zero's index.
void batch_inverse(std::span<Fp> values);

}  // namespace vkstark
