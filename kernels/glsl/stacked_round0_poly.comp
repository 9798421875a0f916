#version 460
#extension GL_GOOGLE_include_directive : require
#include "abi/stacked_round0_poly.glsl"
#include "stacked_reduction.glsl"
// StackedRound0Poly (kernels/stacked_reduction.hpp): coefficient m of s'_0 =
// (1/N) sum_h sum_a [V_0[a] y^e + V_1[a] (omega_L y)^e + V_2[a] eq_D(omega_l r_0, 1)], e = (a - m) mod 2^L,
// over 0 <= m - a < N, a < N.

void main() {
  const uint m = vks_index_x();
  if (m >= pc.grid_x) return;
  const uint l = pc.l_skip, n = 1u << l;
  const uvec4 r0 = r_[pc.r_off];
  const uvec4 kd = sr_eq_uni_at_one(l, fp4_scale(r0, sr_root(l)));
  const uint a_lo = m >= n ? m - n + 1u : 0u, a_hi = min(m, n - 1u);
  uvec4 acc = FP4_ZERO;
  for (uint h = 0u; h < pc.classes_len; ++h) {
    const uint L = min(classes_[pc.classes_off + h], l), nl = 1u << L;
    const uvec4 y = sr_pow2k(r0, l - L), yr = fp4_scale(y, sr_root(L));
    const uint v = pc.sums_off + 3u * n * h;
    // e goes up by one as a does, wrapping to 0 (power 1) at 2^L.
    uint e = (nl - ((m - a_lo) & (nl - 1u))) & (nl - 1u);
    uvec4 py = fp4_pow(y, e), pyr = fp4_pow(yr, e), d = FP4_ZERO;
    for (uint a = a_lo; a <= a_hi; ++a) {
      acc = fp4_add(acc, fp4_add(fp4_mul(sums_[v + a], py), fp4_mul(sums_[v + n + a], pyr)));
      d = fp4_add(d, sums_[v + 2u * n + a]);
      if (++e == nl) {
        e = 0u;
        py = FP4_ONE;
        pyr = FP4_ONE;
      } else {
        py = fp4_mul(py, y);
        pyr = fp4_mul(pyr, yr);
      }
    }
    acc = fp4_add(acc, fp4_mul(d, kd));
  }
  coeffs_[pc.coeffs_off + m] = sr_halve_k(acc, l);
}
