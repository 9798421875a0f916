#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "abi/zerocheck_weighted_sums.glsl"
#include "fp4.glsl"
// ZerocheckWeightedSums (kernels/batch_constraint.hpp): workgroup w = (j 3 + f) N + k of 64 invocations
// writes partials[w] = sum eq[x] values[(f S + s) M + k X + x] over s < S = slices and x in S_j
// (kernels/batch_constraint.hpp; J = partials.count / (3N)); the 64 lane sums are added by a tree in shared
// memory. A functional whose bit of `present` is clear is not read (its partials are 0).

shared uvec4 sh[LANES];

void main() {
  if (gl_WorkGroupSize.x != LANES) return;  // the partition of the x assumes 64 (kernels/batch_constraint.hpp)
  const uint i = vks_index_x(), lane = gl_LocalInvocationID.x, w = i / LANES;
  const uint n = pc.n, chunks = pc.eq_len, groups = pc.partials_len / (3u * n);
  uvec4 s = FP4_ZERO;
  // grid.x = 64 partials.count: whole workgroups, so every invocation reaches the barriers below.
  if (i < pc.grid_x) {
    const uint k = w % n, f = (w / n) % 3u, j = w / (3u * n);
    if (((pc.present >> f) & 1u) != 0u) {
      // sum_s eq[x] v_s = eq[x] sum_s v_s: each invocation adds up the slices of its x first (four
      // independent loads and sums at a time), then makes one product. Wide (X >= 64 or several
      // rows of partials): the invocations of row j take the x in blocks of 64 at 64 (j + t J), all
      // slices each. Narrow (X < 64, one row): 64 / X invocations per x share its slices, so that
      // the last MLE rounds (X = 1, 2, ...) keep the lanes busy. (H100, keccakf 2^15, MLE round 1,
      // 256 slices: 173 us with a product per slice and one load at a time, 41 us so.)
      const uint stride = chunks * n;  // from one slice to the next
      const bool wide = chunks >= LANES || groups > 1u;
      const uint per_x = wide ? 1u : LANES / chunks;
      if (wide || lane < per_x * chunks) {
        const uint x_step = wide ? LANES * groups : chunks, s_first = wide ? 0u : lane / chunks;
        const uint step = per_x * stride;
        for (uint x = wide ? j * LANES + lane : lane % chunks; x < chunks; x += x_step) {
          uint at = pc.values_off + (f * pc.slices + s_first) * stride + k * chunks + x;
          uvec4 a0 = FP4_ZERO, a1 = FP4_ZERO, a2 = FP4_ZERO, a3 = FP4_ZERO;
          uint sl = s_first;
          for (; sl + 3u * per_x < pc.slices; sl += 4u * per_x, at += 4u * step) {
            a0 = fp4_add(a0, values_[at]);
            a1 = fp4_add(a1, values_[at + step]);
            a2 = fp4_add(a2, values_[at + 2u * step]);
            a3 = fp4_add(a3, values_[at + 3u * step]);
          }
          for (; sl < pc.slices; sl += per_x, at += step) a0 = fp4_add(a0, values_[at]);
          s = fp4_add(s, fp4_mul(eq_[pc.eq_off + x], fp4_add(fp4_add(a0, a1), fp4_add(a2, a3))));
        }
      }
    }
  }
  sh[lane] = s;
  barrier();
  [[unroll]] for (uint half_ = LANES / 2u; half_ > 0u; half_ >>= 1u) {
    if (lane < half_) sh[lane] = fp4_add(sh[lane], sh[lane + half_]);
    barrier();
  }
  if (lane == 0u && i < pc.grid_x) partials_[pc.partials_off + w] = sh[0];
}
