#version 460
#extension GL_GOOGLE_include_directive : require
#include "abi/stacked_round0_weigh.glsl"
#include "fp4.glsl"
// StackedRound0Weigh (kernels/stacked_reduction.hpp): invocation p N + S sums, over the rows
// p, p + P, .., entry S of the row's E sums weighted by weights[2k] and weights[2k+1] and of its D
// sums weighted by weights[2k+1], k = row >> log_parts.

void main() {
  const uint i = vks_index_x();
  if (i >= pc.grid_x) return;
  const uint n = 1u << pc.l_skip, s = i & (n - 1u), p = i >> pc.l_skip;
  const uint parts = pc.partials_len / (3u * n), rows = pc.sums_len / (2u * n);
  uvec4 acc0 = FP4_ZERO, acc1 = FP4_ZERO, acc2 = FP4_ZERO;
  for (uint row = p; row < rows; row += parts) {
    const uint k = row >> pc.log_parts;
    const uvec4 w0 = weights_[pc.weights_off + 2u * k], w1 = weights_[pc.weights_off + 2u * k + 1u];
    const uvec4 se = sums_[pc.sums_off + 2u * row * n + s], sd = sums_[pc.sums_off + (2u * row + 1u) * n + s];
    acc0 = fp4_add(acc0, fp4_mul(w0, se));
    acc1 = fp4_add(acc1, fp4_mul(w1, se));
    acc2 = fp4_add(acc2, fp4_mul(w1, sd));
  }
  const uint base = pc.partials_off + 3u * p * n + s;
  partials_[base] = acc0;
  partials_[base + n] = acc1;
  partials_[base + 2u * n] = acc2;
}
