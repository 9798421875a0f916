#version 460
#extension GL_GOOGLE_include_directive : require
#include "abi/stacked_slice_coeffs.glsl"
#include "stacked_reduction.glsl"
// StackedSliceCoeffs (kernels/stacked_reduction.hpp): slice i's kernel after round 0,
// coeffs[2i] = in(u_0) (w[2i] eq_D^(L)(u_0, y) + w[2i+1] eq_D^(L)(u_0, omega_L y)) and
// coeffs[2i+1] = w[2i+1] eq_D(u_0, 1) eq_D(omega_l r_0, 1) for n >= 1 (else 0).

void main() {
  const uint i = vks_index_x();
  if (i >= pc.grid_x) return;
  const uint l = pc.l_skip, h = log_heights_[pc.log_heights_off + i], L = min(h, l);
  const uvec4 r0 = r_[pc.r_off], u0 = u_[pc.u_off];
  const uvec4 w0 = weights_[pc.weights_off + 2u * i], w1 = weights_[pc.weights_off + 2u * i + 1u];
  const uvec4 y = sr_pow2k(r0, l - L);
  const uvec4 alpha = sr_eq_uni(L, u0, y), beta = sr_eq_uni(L, u0, fp4_scale(y, sr_root(L)));
  const uvec4 in_u = h < l ? sr_eq_uni_at_one(l - h, sr_pow2k(u0, L)) : FP4_ONE;
  coeffs_[pc.coeffs_off + 2u * i] = fp4_mul(in_u, fp4_add(fp4_mul(w0, alpha), fp4_mul(w1, beta)));
  uvec4 b = FP4_ZERO;
  if (h > l) {
    const uvec4 gamma = fp4_mul(sr_eq_uni_at_one(l, u0), sr_eq_uni_at_one(l, fp4_scale(r0, sr_root(l))));
    b = fp4_mul(w1, gamma);
  }
  coeffs_[pc.coeffs_off + 2u * i + 1u] = b;
}
