#include "kernels/field/fp.hpp"

#include <fmt/format.h>

#include <ostream>

#include "kernels/field/detail/batch_inverse.hpp"
#include "runtime/error.hpp"

namespace vkstark {

Fp Fp::from_canonical(uint32_t v) {
  if (v >= P) throw InputError(fmt::format("field element {} is not canonical (must be < p = {})", v, P));
  return from_canonical_unchecked(v);
}

Fp Fp::inverse() const {
  if (is_zero()) throw ArithmeticError("inverse of zero in BabyBear");
  return pow(P - 2);
}

std::string to_string(Fp a) { return std::to_string(a.value()); }
std::ostream& operator<<(std::ostream& os, Fp a) { return os << a.value(); }

void encode(Fp a, uint8_t out[4]) {
  uint32_t v = a.value();
  for (int i = 0; i < 4; ++i) out[i] = static_cast<uint8_t>(v >> (8 * i));
}

Fp decode_fp(const uint8_t in[4], const char* what) {
  uint32_t v = uint32_t(in[0]) | uint32_t(in[1]) << 8 | uint32_t(in[2]) << 16 | uint32_t(in[3]) << 24;
  if (v >= Fp::P) throw InputError(fmt::format("{}: value {} is not a canonical field element", what, v));
  return Fp::from_canonical_unchecked(v);
}

Fp two_adic_generator(uint32_t k) {
  if (k > Fp::TWO_ADICITY)
    throw InputError(fmt::format("two_adic_generator({}): BabyBear has no subgroup of order 2^{} (max 2^27)", k, k));
  return Fp::from_canonical_unchecked(TWO_ADIC_GENERATORS[k]);
}

void batch_inverse(std::span<Fp> values) { detail::batch_inverse(values, "BabyBear"); }

}  // namespace vkstark
