// Host reference transforms (protocol.md 1.2, 6.3, 11.2): the DFT over BabyBear and its extension
// with base-field roots of unity, the subset-zeta / Möbius transforms over hypercube index bits and
// the RS message of stacked PLE columns. Used by the unit and parity tests, by the host verifier
// and by CPU kernel bodies (one chunk at a time). Pure functions; thread-safe.
//
// Conventions (protocol.md 1.2): omega_n = two_adic_generator(log2 n);
//   DFT(c)[i] = sum_j c_j omega_n^(ij), natural order in and out; iDFT is its inverse, 1/n included.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "kernels/field/fp.hpp"
#include "kernels/field/fp4.hpp"

namespace vkstark {

// The definition, O(n^2): the oracle the fast transforms are tested against. n a power of two.
[[nodiscard]] std::vector<Fp> naive_dft(std::span<const Fp> c);
[[nodiscard]] std::vector<Fp4> naive_dft(std::span<const Fp4> c);

// A radix-2 transform of one size 2^log_n with its roots precomputed, for many calls of the same
// size (e.g. every 2^l chunk of a column). In place, natural order in and out. Immutable after
// construction; thread-safe.
class Radix2Dft {
 public:
  // InputError when log_n > 27.
  explicit Radix2Dft(uint32_t log_n);
  uint32_t log_n() const { return log_n_; }
  uint64_t size() const { return uint64_t(1) << log_n_; }

  // a.size() must be size() (InputError otherwise).
  void forward(std::span<Fp> a) const;
  void inverse(std::span<Fp> a) const;  // includes the factor 1/n
  void forward(std::span<Fp4> a) const;
  void inverse(std::span<Fp4> a) const;

 private:
  template <class T>
  void transform(std::span<T> a, bool inverse) const;
  uint32_t log_n_;
  std::vector<Fp> roots_;      // omega_n^t, t < n/2
  std::vector<Fp> inv_roots_;  // omega_n^-t, t < n/2
  Fp n_inv_;
};

// In place DFT / iDFT of a power-of-two-long vector (InputError otherwise).
void dft(std::span<Fp> a);
void idft(std::span<Fp> a);
void dft(std::span<Fp4> a);
void idft(std::span<Fp4> a);

// Subset-zeta transform over the index bits [bit_lo, bit_hi) (coefficients -> hypercube
// evaluations): for each such bit b and every index v with bit b set, a[v] += a[v - 2^b]. The
// Möbius transform is its inverse (a[v] -= a[v - 2^b]). a.size() must be a multiple of 2^bit_hi.
void subset_zeta(std::span<Fp> a, uint32_t bit_lo, uint32_t bit_hi);
void subset_mobius(std::span<Fp> a, uint32_t bit_lo, uint32_t bit_hi);
void subset_zeta(std::span<Fp4> a, uint32_t bit_lo, uint32_t bit_hi);
void subset_mobius(std::span<Fp4> a, uint32_t bit_lo, uint32_t bit_hi);

// RS message of a stacked column (protocol.md 6.3 step 1, eval_to_coeff_rs_message), in place: for
// every chunk of 2^l consecutive entries, iDFT_{2^l} then subset-zeta over the l index bits.
// column.size() must be a multiple of 2^l.
void rs_message_chunks(std::span<Fp> column, uint32_t l);
// Its inverse: per chunk, subset-Möbius over the l bits then DFT_{2^l}.
void rs_message_chunks_inverse(std::span<Fp> message, uint32_t l);

}  // namespace vkstark
