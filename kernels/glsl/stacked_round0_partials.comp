#version 460
#extension GL_GOOGLE_include_directive : require
#include "abi/stacked_round0_partials.glsl"
#include "fp4.glsl"
// StackedRound0Partials (kernels/stacked_reduction.hpp): invocation p N + S sums, over the chunks
// g = p, p + P, .. of one class's slices, W_t(g) message[g N + S] for t = 0, 1, 2, where slice
// k = g / C weighs its chunks by weights[2k] E(x), weights[2k+1] E(x), weights[2k+1] D(x). Within a
// slice the chunks are summed with E and D first and weighted once (adjacent invocations read
// adjacent message entries).

void main() {
  const uint i = vks_index_x();
  if (i >= pc.grid_x) return;
  const uint n = 1u << pc.l_skip, s = i & (n - 1u), p = i >> pc.l_skip;
  const uint parts = pc.partials_len / (3u * n);
  const uint chunks = pc.message_len >> pc.l_skip;
  const uint cmask = (1u << pc.log_chunks) - 1u;
  uvec4 acc0 = FP4_ZERO, acc1 = FP4_ZERO, acc2 = FP4_ZERO, ae = FP4_ZERO, ad = FP4_ZERO;
  uint cur = 0xffffffffu;
  for (uint g = p; g < chunks; g += parts) {
    const uint k = g >> pc.log_chunks, x = g & cmask;
    if (k != cur) {
      if (cur != 0xffffffffu) {
        const uvec4 w0 = weights_[pc.weights_off + 2u * cur], w1 = weights_[pc.weights_off + 2u * cur + 1u];
        acc0 = fp4_add(acc0, fp4_mul(w0, ae));
        acc1 = fp4_add(acc1, fp4_mul(w1, ae));
        acc2 = fp4_add(acc2, fp4_mul(w1, ad));
      }
      cur = k;
      ae = FP4_ZERO;
      ad = FP4_ZERO;
    }
    const uvec4 e = eq_[pc.eq_off + x];
    const uvec4 d = fp4_sub(eq_[pc.eq_off + ((x - 1u) & cmask)], e);
    const uint mu = message_[pc.message_off + g * n + s];
    ae = fp4_add(ae, fp4_scale(e, mu));
    ad = fp4_add(ad, fp4_scale(d, mu));
  }
  if (cur != 0xffffffffu) {
    const uvec4 w0 = weights_[pc.weights_off + 2u * cur], w1 = weights_[pc.weights_off + 2u * cur + 1u];
    acc0 = fp4_add(acc0, fp4_mul(w0, ae));
    acc1 = fp4_add(acc1, fp4_mul(w1, ae));
    acc2 = fp4_add(acc2, fp4_mul(w1, ad));
  }
  const uint base = pc.partials_off + 3u * p * n + s;
  partials_[base] = acc0;
  partials_[base + n] = acc1;
  partials_[base + 2u * n] = acc2;
}
