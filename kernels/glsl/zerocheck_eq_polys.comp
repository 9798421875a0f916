#version 460
#extension GL_GOOGLE_include_directive : require
#include "abi/zerocheck_eq_polys.glsl"
#include "fp4.glsl"
// ZerocheckEqPolys (kernels/batch_constraint.hpp): out[a] = 2^-l sum_k omega^(-a k) eq(xi[0..l], bits_l(k))
// (eq#'s coefficients), out[N + a] = 2^-l (a == 0 ? 1 : xi_0^(N - a)) (eq_D(xi_0, .)'s).

uvec4 halve_k(uvec4 a, uint k) {
  return uvec4(fp_halve_k(a.x, k), fp_halve_k(a.y, k), fp_halve_k(a.z, k), fp_halve_k(a.w, k));
}

void main() {
  const uint o = vks_index_x();
  if (o >= pc.grid_x) return;
  const uint n = 1u << pc.log_n;
  if (o >= n) {
    const uint a = o - n;  // xi is read only when l > 0 (then a may be nonzero)
    out_[pc.out_off + o] = halve_k(a == 0u ? FP4_ONE : fp4_pow(xi_[pc.xi_off], n - a), pc.log_n);
    return;
  }
  uvec4 acc = FP4_ZERO;
  for (uint k = 0u; k < n; ++k) {
    uvec4 e = FP4_ONE;
    for (uint t = 0u; t < pc.log_n; ++t) {
      const uvec4 x = xi_[pc.xi_off + t];
      e = fp4_mul(e, ((k >> t) & 1u) != 0u ? x : fp4_sub(FP4_ONE, x));
    }
    acc = fp4_add(acc, fp4_scale(e, inv_roots_[pc.inv_roots_off + ((o * k) & (n - 1u))]));
  }
  out_[pc.out_off + o] = halve_k(acc, pc.log_n);
}
