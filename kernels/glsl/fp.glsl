// BabyBear p = 15 * 2^27 + 1 in Montgomery form (R = 2^32): the GLSL twin of kernels/field/fp.hpp.
// A field element is a uint holding a * 2^32 mod p in [0, p), the same bits as Fp::mont(), so
// buffers move between host and device unchanged. Every function returns the unique representative
// in [0, p), hence the same bits as the C++ operators whatever the instruction sequence.
//
// Only 32-bit integer operations: umulExtended gives the 32x32 -> 64 products (no int64).
#ifndef VKSTARK_FP_GLSL
#define VKSTARK_FP_GLSL

const uint FP_P = 0x78000001u;    // 2013265921
const uint FP_MU = 0x88000001u;   // p^-1 mod 2^32
const uint FP_ONE = 268435454u;   // R mod p: Montgomery form of 1
const uint FP_R2 = 1172168163u;   // R^2 mod p
const uint FP_TWO_ADICITY = 27u;

// a + b. a + b < 2p < 2^32; when a + b < p, a + b - p wraps above 2^31 > a + b, so min picks it.
uint fp_add(uint a, uint b) {
  uint s = a + b;
  return min(s, s - FP_P);
}

// a - b. When a < b, a - b wraps above 2^32 - p > p and a - b + p is the answer, so min picks it.
uint fp_sub(uint a, uint b) {
  uint d = a - b;
  return min(d, d + FP_P);
}

uint fp_neg(uint a) { return a == 0u ? 0u : FP_P - a; }

uint fp_double(uint a) { return fp_add(a, a); }

// Montgomery product a * b * R^-1 mod p for a, b < p: the sequence of Fp::mont_mul. With
// u = lo * p^-1 mod 2^32, the low word of u * p equals lo, so t - u * p = (hi - qh) * 2^32 exactly
// and t < u * p iff hi < qh.
uint fp_mul(uint a, uint b) {
  uint hi, lo;
  umulExtended(a, b, hi, lo);
  uint u = lo * FP_MU;
  uint qh, ql;
  umulExtended(u, FP_P, qh, ql);
  uint r = hi - qh;
  return (hi < qh) ? r + FP_P : r;
}

uint fp_square(uint a) { return fp_mul(a, a); }

// Montgomery reduction of a single word t (t * R^-1 mod p): Fp::mont_reduce(t) for t < 2^32.
uint fp_mont_reduce(uint t) {
  uint u = t * FP_MU;
  uint qh, ql;
  umulExtended(u, FP_P, qh, ql);
  return qh == 0u ? 0u : FP_P - qh;  // 0 - qh, plus p when negative
}

// Montgomery form of the integer v (any v < 2^32 gives v mod p): Fp::from_canonical_unchecked.
uint fp_from_canonical(uint v) { return fp_mul(v, FP_R2); }
// The integer in [0, p) of a Montgomery-form element: Fp::value().
uint fp_to_canonical(uint a) { return fp_mont_reduce(a); }

// a^e by square-and-multiply (the exponent is 32-bit here; Fp::pow takes 64 bits).
uint fp_pow(uint a, uint e) {
  uint acc = FP_ONE;
  uint base = a;
  while (e != 0u) {
    if ((e & 1u) != 0u) acc = fp_mul(acc, base);
    base = fp_square(base);
    e >>= 1;
  }
  return acc;
}

// a^-1 = a^(p-2). Device code cannot throw: the inverse of zero returns 0 (Fp::inverse throws), so
// callers must never invert zero (or must check for it themselves).
uint fp_inv(uint a) { return fp_pow(a, FP_P - 2u); }

// a * 2^-k mod p for 1 <= k <= 27 (k a compile-time constant in practice), without a multiply by a
// full constant. Works equally on Montgomery forms (halving is linear). With m = (-a) mod 2^k,
// a + m is divisible by 2^k, and -2^-k = 15 * 2^(27-k) mod p (since 2^27 * 15 = -1), so
// a * 2^-k = (a + m) / 2^k + m * 15 * 2^(27-k). Both terms are bounded so that the sum is at most
// 15 * 2^27 = p - 1: no correction needed. (Checked exhaustively for k <= 3, every 7th a above.)
uint fp_halve_k(uint a, uint k) {
  uint m = (0u - a) & ((1u << k) - 1u);
  return ((a + m) >> k) + m * (15u << (27u - k));
}
uint fp_halve(uint a) { return fp_halve_k(a, 1u); }

#endif
