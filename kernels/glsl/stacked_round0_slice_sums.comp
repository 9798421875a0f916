#version 460
#extension GL_GOOGLE_include_directive : require
#include "abi/stacked_round0_slice_sums.glsl"
#include "fp4.glsl"
// StackedRound0SliceSums (kernels/stacked_reduction.hpp): invocation row N + S sums E(x) trace[..]
// and D(x) trace[..] over the chunks x of part j = row mod q of slice k = row / q, entry S of each
// (adjacent invocations read adjacent trace entries).

void main() {
  const uint i = vks_index_x();
  if (i >= pc.grid_x) return;
  const uint n = 1u << pc.l_skip, s = i & (n - 1u), row = i >> pc.l_skip;
  const uint log_run = pc.log_chunks - pc.log_parts;
  const uint k = row >> pc.log_parts, x0 = (row & ((1u << pc.log_parts) - 1u)) << log_run;
  const uint cmask = (1u << pc.log_chunks) - 1u;
  uvec4 ae = FP4_ZERO, ad = FP4_ZERO;
  uint at = pc.trace_off + (((k << pc.log_chunks) + x0) << pc.l_skip) + s;
  for (uint x = x0; x < x0 + (1u << log_run); ++x, at += n) {
    const uvec4 e = eq_[pc.eq_off + x];
    const uvec4 d = fp4_sub(eq_[pc.eq_off + ((x - 1u) & cmask)], e);
    const uint mu = trace_[at];
    ae = fp4_add(ae, fp4_scale(e, mu));
    ad = fp4_add(ad, fp4_scale(d, mu));
  }
  const uint base = pc.sums_off + 2u * row * n + s;
  sums_[base] = ae;
  sums_[base + n] = ad;
}
