#include "kernels/field/dft.hpp"

#include <fmt/format.h>

#include <bit>
#include <utility>

#include "runtime/error.hpp"

namespace vkstark {

namespace {

uint32_t checked_log2(size_t n, const char* what) {
  if (n == 0 || !std::has_single_bit(n)) throw InputError(fmt::format("{}: length {} is not a power of two", what, n));
  return static_cast<uint32_t>(std::countr_zero(n));
}

// The low `bits` bits of i in reverse order (bits >= 1).
size_t reverse_bits(size_t i, uint32_t bits) {
  size_t r = 0;
  for (uint32_t b = 0; b < bits; ++b, i >>= 1) r = (r << 1) | (i & 1);
  return r;
}

template <class T>
std::vector<T> naive_dft_impl(std::span<const T> c) {
  const uint32_t log_n = checked_log2(c.size(), "naive_dft");
  const Fp omega = two_adic_generator(log_n);
  const size_t n = c.size();
  std::vector<T> out(n);
  Fp omega_i = Fp::one();  // omega^i
  for (size_t i = 0; i < n; ++i) {
    T acc{};
    Fp w = Fp::one();  // omega^(i*j)
    for (size_t j = 0; j < n; ++j) {
      acc += c[j] * w;
      w *= omega_i;
    }
    out[i] = acc;
    omega_i *= omega;
  }
  return out;
}

template <class T>
void subset_transform(std::span<T> a, uint32_t bit_lo, uint32_t bit_hi, bool mobius) {
  if (bit_lo > bit_hi || bit_hi > 63 || a.size() % (uint64_t(1) << bit_hi) != 0)
    throw InputError(
        fmt::format("subset transform over bits [{}, {}) of a vector of length {}: the length must be a "
                    "multiple of 2^{}",
                    bit_lo, bit_hi, a.size(), bit_hi));
  for (uint32_t b = bit_lo; b < bit_hi; ++b) {
    const size_t h = size_t(1) << b;
    for (size_t base = 0; base < a.size(); base += 2 * h)
      for (size_t v = base + h; v < base + 2 * h; ++v) {
        if (mobius)
          a[v] -= a[v - h];
        else
          a[v] += a[v - h];
      }
  }
}

}  // namespace

std::vector<Fp> naive_dft(std::span<const Fp> c) { return naive_dft_impl(c); }
std::vector<Fp4> naive_dft(std::span<const Fp4> c) { return naive_dft_impl(c); }

Radix2Dft::Radix2Dft(uint32_t log_n) : log_n_(log_n) {
  if (log_n > Fp::TWO_ADICITY)
    throw InputError(fmt::format("DFT of size 2^{}: BabyBear has roots of unity of order up to 2^27", log_n));
  const size_t half = size() / 2;
  const Fp omega = two_adic_generator(log_n);
  const Fp omega_inv = omega.inverse();
  roots_.resize(half);
  inv_roots_.resize(half);
  Fp w = Fp::one(), wi = Fp::one();
  for (size_t t = 0; t < half; ++t) {
    roots_[t] = w;
    inv_roots_[t] = wi;
    w *= omega;
    wi *= omega_inv;
  }
  // n^-1 = p - (p - 1) / n, since n * (p - 1) / n = -1.
  n_inv_ = Fp::from_canonical_unchecked(Fp::P - ((Fp::P - 1) >> log_n));
}

// Bit-reversal permutation, then iterative decimation in time: natural order out.
template <class T>
void Radix2Dft::transform(std::span<T> a, bool inverse) const {
  if (a.size() != size())
    throw InputError(fmt::format("Radix2Dft of size 2^{} applied to a vector of length {}", log_n_, a.size()));
  const size_t n = a.size();
  if (n == 1) return;
  for (size_t i = 0; i < n; ++i) {
    const size_t r = reverse_bits(i, log_n_);
    if (i < r) std::swap(a[i], a[r]);
  }
  const std::vector<Fp>& roots = inverse ? inv_roots_ : roots_;
  for (uint32_t s = 1; s <= log_n_; ++s) {
    const size_t half = size_t(1) << (s - 1);
    const uint32_t shift = log_n_ - s;  // omega_{2^s}^j = omega_n^(j << shift)
    for (size_t base = 0; base < n; base += 2 * half)
      for (size_t j = 0; j < half; ++j) {
        const T u = a[base + j];
        const T v = a[base + j + half] * roots[j << shift];
        a[base + j] = u + v;
        a[base + j + half] = u - v;
      }
  }
  if (inverse)
    for (T& x : a) x = x * n_inv_;
}

void Radix2Dft::forward(std::span<Fp> a) const { transform(a, false); }
void Radix2Dft::inverse(std::span<Fp> a) const { transform(a, true); }
void Radix2Dft::forward(std::span<Fp4> a) const { transform(a, false); }
void Radix2Dft::inverse(std::span<Fp4> a) const { transform(a, true); }

void dft(std::span<Fp> a) { Radix2Dft(checked_log2(a.size(), "dft")).forward(a); }
void idft(std::span<Fp> a) { Radix2Dft(checked_log2(a.size(), "idft")).inverse(a); }
void dft(std::span<Fp4> a) { Radix2Dft(checked_log2(a.size(), "dft")).forward(a); }
void idft(std::span<Fp4> a) { Radix2Dft(checked_log2(a.size(), "idft")).inverse(a); }

void subset_zeta(std::span<Fp> a, uint32_t bit_lo, uint32_t bit_hi) { subset_transform(a, bit_lo, bit_hi, false); }
void subset_mobius(std::span<Fp> a, uint32_t bit_lo, uint32_t bit_hi) { subset_transform(a, bit_lo, bit_hi, true); }
void subset_zeta(std::span<Fp4> a, uint32_t bit_lo, uint32_t bit_hi) { subset_transform(a, bit_lo, bit_hi, false); }
void subset_mobius(std::span<Fp4> a, uint32_t bit_lo, uint32_t bit_hi) { subset_transform(a, bit_lo, bit_hi, true); }

void rs_message_chunks(std::span<Fp> column, uint32_t l) {
  const Radix2Dft chunk_dft(l);
  const size_t len = chunk_dft.size();
  if (column.size() % len != 0)
    throw InputError(
        fmt::format("RS message: column length {} is not a multiple of the chunk length 2^{}", column.size(), l));
  for (size_t at = 0; at < column.size(); at += len) {
    auto chunk = column.subspan(at, len);
    chunk_dft.inverse(chunk);
    subset_zeta(chunk, 0, l);
  }
}

void rs_message_chunks_inverse(std::span<Fp> message, uint32_t l) {
  const Radix2Dft chunk_dft(l);
  const size_t len = chunk_dft.size();
  if (message.size() % len != 0)
    throw InputError(
        fmt::format("RS message: column length {} is not a multiple of the chunk length 2^{}", message.size(), l));
  for (size_t at = 0; at < message.size(); at += len) {
    auto chunk = message.subspan(at, len);
    subset_mobius(chunk, 0, l);
    chunk_dft.forward(chunk);
  }
}

}  // namespace vkstark
