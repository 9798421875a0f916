#version 460
#extension GL_GOOGLE_include_directive : require
#include "abi/sumcheck_product_partials.glsl"
#include "fp4.glsl"
// SumcheckProductPartials (kernels/whir.hpp): partials[2i] = sum f_y(1) w_y(1), partials[2i + 1] =
// sum f_y(2) w_y(2) over y = i, i + grid.x, ... < pairs, with f_y(X) = f[2y] + X (f[2y+1] - f[2y]).
// Invocation i reads pairs y = i, i + grid.x, ...: adjacent invocations read adjacent pairs.
void main() {
  uint i = vks_index_x();
  if (i >= pc.grid_x) return;
  uvec4 s1 = FP4_ZERO, s2 = FP4_ZERO;
  for (uint y = i; y < pc.pairs; y += pc.grid_x) {
    uvec4 f0 = f_[pc.f_off + 2u * y], f1 = f_[pc.f_off + 2u * y + 1u];
    uvec4 w0 = w_[pc.w_off + 2u * y], w1 = w_[pc.w_off + 2u * y + 1u];
    s1 = fp4_add(s1, fp4_mul(f1, w1));
    s2 = fp4_add(s2, fp4_mul(fp4_sub(fp4_add(f1, f1), f0), fp4_sub(fp4_add(w1, w1), w0)));
  }
  partials_[pc.partials_off + 2u * i] = s1;
  partials_[pc.partials_off + 2u * i + 1u] = s2;
}
