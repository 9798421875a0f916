#version 460
#extension GL_GOOGLE_include_directive : require
#include "abi/zerocheck_coset_extend.glsl"
#include "fp.glsl"
// ZerocheckCosetExtend (kernels/zerocheck.hpp): invocation (c, x) writes
// out[c N B + k B + x] = sum_{i < N} W[k][i] in[c H + (((first_chunk + x) N + i + shift) mod H)]
// for every k < N (B = 2^log_chunks chunks of the block).
// The products of Montgomery forms (each below p^2 < 2^62) are summed in 64 bits (hi, lo words),
// folded to lo + hi (2^32 mod p) < 2^61 after every third one, and Montgomery-reduced once per
// value: one widening multiply per product instead of a modular product and addition (the
// constraint kernel's lazy fold, stages/air/eval_glsl.cpp). Adjacent invocations read adjacent
// chunks (the chunk's N rows come through the cache line the first k loads) and write adjacent
// entries of each k's row; every invocation reads the same W entries.

void main() {
  const uint o = vks_index_x();
  if (o >= pc.grid_x) return;
  const uint n = 1u << pc.log_n, h = 1u << pc.log_height;
  const uint chunks = 1u << pc.log_chunks;
  const uint c = o >> pc.log_chunks, x = o & (chunks - 1u);
  const uint src = pc.in_off + c * h, first = (pc.first_chunk + x) * n + pc.shift;
  uint dst = pc.out_off + c * (chunks << pc.log_n) + x;
  for (uint k = 0u; k < n; ++k) {
    const uint wrow = pc.weights_off + k * n;
    uint hi = 0u, lo = 0u, ph, pl, cy, since_fold = 0u;
    for (uint i = 0u; i < n; ++i) {
      umulExtended(weights_[wrow + i], in_[src + ((first + i) & (h - 1u))], ph, pl);
      lo = uaddCarry(lo, pl, cy);
      hi += ph + cy;
      if (++since_fold == 3u) {
        umulExtended(hi, FP_ONE, ph, pl);
        lo = uaddCarry(lo, pl, cy);
        hi = ph + cy;
        since_fold = 0u;
      }
    }
    umulExtended(hi, FP_ONE, ph, pl);
    lo = uaddCarry(lo, pl, cy);
    hi = ph + cy;
    // Below 2^61 < p 2^32: the reduction of fp_mul gives the value in [0, p).
    umulExtended(lo * FP_MU, FP_P, ph, pl);
    out_[dst] = hi < ph ? hi - ph + FP_P : hi - ph;
    dst += chunks;
  }
}
