// The degree-4 extension EF = F[X]/(X^4 - 11): the GLSL twin of kernels/field/fp4.hpp.
// An element is a uvec4 of Montgomery-form coefficients (a0, a1, a2, a3) = a0 + a1 X + a2 X^2 + a3 X^3,
// the layout of Fp4 in device buffers (declare Fp4 buffers as std430 uvec4 arrays).
#ifndef VKSTARK_FP4_GLSL
#define VKSTARK_FP4_GLSL

#include "fp.glsl"

const uint FP4_W = 939524073u;  // Montgomery form of W = 11 (X^4 = W)
const uvec4 FP4_ONE = uvec4(FP_ONE, 0u, 0u, 0u);
const uvec4 FP4_ZERO = uvec4(0u);

uvec4 fp4_add(uvec4 a, uvec4 b) { return uvec4(fp_add(a.x, b.x), fp_add(a.y, b.y), fp_add(a.z, b.z), fp_add(a.w, b.w)); }
uvec4 fp4_sub(uvec4 a, uvec4 b) { return uvec4(fp_sub(a.x, b.x), fp_sub(a.y, b.y), fp_sub(a.z, b.z), fp_sub(a.w, b.w)); }
uvec4 fp4_neg(uvec4 a) { return uvec4(fp_neg(a.x), fp_neg(a.y), fp_neg(a.z), fp_neg(a.w)); }
// a * s for a base-field s.
uvec4 fp4_scale(uvec4 a, uint s) { return uvec4(fp_mul(a.x, s), fp_mul(a.y, s), fp_mul(a.z, s), fp_mul(a.w, s)); }
// a + s for a base-field s.
uvec4 fp4_add_base(uvec4 a, uint s) { return uvec4(fp_add(a.x, s), a.y, a.z, a.w); }

// Schoolbook product reduced with X^4 = 11 (Fp4::operator*).
uvec4 fp4_mul(uvec4 a, uvec4 b) {
  uint c0 = fp_add(fp_mul(a.x, b.x),
                   fp_mul(FP4_W, fp_add(fp_add(fp_mul(a.y, b.w), fp_mul(a.z, b.z)), fp_mul(a.w, b.y))));
  uint c1 = fp_add(fp_add(fp_mul(a.x, b.y), fp_mul(a.y, b.x)),
                   fp_mul(FP4_W, fp_add(fp_mul(a.z, b.w), fp_mul(a.w, b.z))));
  uint c2 = fp_add(fp_add(fp_add(fp_mul(a.x, b.z), fp_mul(a.y, b.y)), fp_mul(a.z, b.x)),
                   fp_mul(FP4_W, fp_mul(a.w, b.w)));
  uint c3 = fp_add(fp_add(fp_add(fp_mul(a.x, b.w), fp_mul(a.y, b.z)), fp_mul(a.z, b.y)), fp_mul(a.w, b.x));
  return uvec4(c0, c1, c2, c3);
}

uvec4 fp4_square(uvec4 a) { return fp4_mul(a, a); }

// a^e by square-and-multiply (32-bit exponent; Fp4::pow takes 64 bits).
uvec4 fp4_pow(uvec4 a, uint e) {
  uvec4 acc = FP4_ONE;
  uvec4 base = a;
  while (e != 0u) {
    if ((e & 1u) != 0u) acc = fp4_mul(acc, base);
    base = fp4_square(base);
    e >>= 1;
  }
  return acc;
}

// Tower inverse, the steps of Fp4::inverse: with Y = X^2, a = e(Y) + X o(Y); a * (e - X o) =
// b0 + b1 Y, inverted in F[Y]/(Y^2 - 11) with one base-field inversion. Device code cannot throw:
// the inverse of zero returns zero (Fp4::inverse throws), so callers must never invert zero.
uvec4 fp4_inv(uvec4 a) {
  uint b0 = fp_sub(fp_add(fp_square(a.x), fp_mul(FP4_W, fp_square(a.z))), fp_mul(FP4_W, fp_double(fp_mul(a.y, a.w))));
  uint b1 = fp_sub(fp_sub(fp_double(fp_mul(a.x, a.z)), fp_square(a.y)), fp_mul(FP4_W, fp_square(a.w)));
  uint n_inv = fp_inv(fp_sub(fp_square(b0), fp_mul(FP4_W, fp_square(b1))));
  uint c0 = fp_mul(b0, n_inv);
  uint c1 = fp_neg(fp_mul(b1, n_inv));
  return uvec4(fp_add(fp_mul(a.x, c0), fp_mul(FP4_W, fp_mul(a.z, c1))),
               fp_neg(fp_add(fp_mul(a.y, c0), fp_mul(FP4_W, fp_mul(a.w, c1)))),
               fp_add(fp_mul(a.x, c1), fp_mul(a.z, c0)),
               fp_neg(fp_add(fp_mul(a.y, c1), fp_mul(a.w, c0))));
}

#endif
