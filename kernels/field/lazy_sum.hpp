// Lazy reduction for long dot products over the field: raw products of Montgomery forms summed
// in 128 bits, reduced once. Value type; thread-compatible.
#pragma once

#include <cstdint>

#include "kernels/field/fp4.hpp"

namespace vkstark {

// A sum of products (Fp4 x Fp) with one reduction at the end: the raw products of the Montgomery
// forms (each < p^2 < 2^62) are added in 128 bits, and (S mod p) R^-1 is the same canonical
// element as the sum of the Montgomery products. One multiply-add per coefficient and term instead
// of a Montgomery product and a field addition, in the two kernels whose inner loop is a long dot
// product (BatchColumnsExt over the columns, EqPowAccumulate over the points).
class Fp4LazySum {
 public:
  void add(const Fp4& a, Fp b) {
    for (int t = 0; t < 4; ++t) s_[t] += static_cast<u128>(uint64_t(a.c[t].mont()) * b.mont());
  }
  Fp4 value() const {
    Fp4 r;
    for (int t = 0; t < 4; ++t) {
      // (S >> 64) 2^64 + (S mod 2^64) reduced to x = S mod p (up to a multiple of p), x < p^2 + p < p 2^32.
      const uint64_t hi = uint64_t(s_[t] >> 64), lo = uint64_t(s_[t]);
      r.c[t] = Fp::from_mont(Fp::mont_reduce((hi % Fp::P) * kTwo64ModP + lo % Fp::P));
    }
    return r;
  }

 private:
  __extension__ typedef unsigned __int128 u128;
  static constexpr uint64_t kTwo64ModP = uint64_t((static_cast<u128>(1) << 64) % Fp::P);
  u128 s_[4] = {};
};

}  // namespace vkstark
