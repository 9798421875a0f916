#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "abi/zerocheck_weighted_sums.glsl"
#include "fp4.glsl"
// ZerocheckWeightedSums (kernels/zerocheck.hpp): workgroup w = (j 3 + f) N + k of 64 invocations
// writes partials[w] = sum eq[x] values[(f S + s) M + k X + x] over s < S = slices and x = 64 (j + t J) + lane < X (J =
// partials.count / (3N)); the 64 lane sums are added by a tree in shared memory. A functional whose
// bit of `present` is clear is not read (its partials are 0).

const uint LANES = 64u;  // kZerocheckLanes
shared uvec4 sh[LANES];

void main() {
  if (gl_WorkGroupSize.x != LANES) return;  // the partition of the x assumes 64 (kernels/zerocheck.hpp)
  const uint i = vks_index_x(), lane = gl_LocalInvocationID.x, w = i / LANES;
  const uint n = pc.n, chunks = pc.eq_len, groups = pc.partials_len / (3u * n);
  uvec4 s = FP4_ZERO;
  // grid.x = 64 partials.count: whole workgroups, so every invocation reaches the barriers below.
  if (i < pc.grid_x) {
    const uint k = w % n, f = (w / n) % 3u, j = w / (3u * n);
    if (((pc.present >> f) & 1u) != 0u) {
      if (groups == 1u) {
        // One row of partials: the lanes take the (slice, x) pairs in turn, so that few x (the
        // last MLE rounds: X = 1, 2, ...) still keep every lane busy over the slices.
        for (uint q = lane; q < pc.slices * chunks; q += LANES) {
          const uint sl = q / chunks, x = q - sl * chunks;
          s = fp4_add(s, fp4_mul(eq_[pc.eq_off + x],
                                 values_[pc.values_off + (f * pc.slices + sl) * (chunks * n) + k * chunks + x]));
        }
      } else {
        for (uint sl = 0u; sl < pc.slices; ++sl) {
          const uint base = pc.values_off + (f * pc.slices + sl) * (chunks * n) + k * chunks;
          for (uint x = j * LANES + lane; x < chunks; x += LANES * groups) {
            s = fp4_add(s, fp4_mul(eq_[pc.eq_off + x], values_[base + x]));
          }
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
