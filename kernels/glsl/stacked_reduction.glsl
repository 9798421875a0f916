// Univariate helpers of the stacked-reduction kernels (kernels/stacked_reduction.hpp), the twins of
// the C++ ones in kernels/cpu/stacked_reduction.cpp: eq_D^(L) (protocol.md 5.1), its value at 1,
// two-adic roots and repeated squaring. L <= 27.
#ifndef VKSTARK_STACKED_REDUCTION_GLSL
#define VKSTARK_STACKED_REDUCTION_GLSL

#include "fp4.glsl"

// two_adic_generator(L) in Montgomery form: two_adic_generator(27) = 440564289 squared 27 - L times.
uint sr_root(uint L) {
  uint w = fp_from_canonical(440564289u);
  for (uint k = L; k < 27u; ++k) w = fp_square(w);
  return w;
}

// x^(2^k).
uvec4 sr_pow2k(uvec4 x, uint k) {
  for (uint i = 0u; i < k; ++i) x = fp4_square(x);
  return x;
}

// a 2^-k (k <= 27).
uvec4 sr_halve_k(uvec4 a, uint k) {
  if (k == 0u) return a;
  return uvec4(fp_halve_k(a.x, k), fp_halve_k(a.y, k), fp_halve_k(a.z, k), fp_halve_k(a.w, k));
}

// eq_D^(L)(x, y).
uvec4 sr_eq_uni(uint L, uvec4 x, uvec4 y) {
  uvec4 res = FP4_ONE;
  for (uint k = 0u; k < L; ++k) {
    res = fp4_add(fp4_mul(fp4_add(x, y), res), fp4_mul(fp4_sub(x, FP4_ONE), fp4_sub(y, FP4_ONE)));
    x = fp4_square(x);
    y = fp4_square(y);
  }
  return sr_halve_k(res, L);
}

// eq_D^(L)(x, 1).
uvec4 sr_eq_uni_at_one(uint L, uvec4 x) {
  uvec4 res = FP4_ONE;
  for (uint k = 0u; k < L; ++k) {
    res = fp4_mul(res, fp4_add(x, FP4_ONE));
    x = fp4_square(x);
  }
  return sr_halve_k(res, L);
}

#endif
