#version 460
#extension GL_GOOGLE_include_directive : require
#include "abi/eval_poly_partials.glsl"
#include "fp4.glsl"
// EvalPolyPartials (kernels/whir.hpp): partials[i] = z^(i chunk) sum_{j < chunk, i chunk + j < n}
// coeffs[i chunk + j] z^j, by Horner over the chunk.

void main() {
  uint i = vks_index_x();
  if (i >= pc.grid_x) return;
  // Empty chunks (also those whose start i * chunk would not fit in 32 bits) are zero.
  if (pc.n == 0u || pc.chunk == 0u || i > (pc.n - 1u) / pc.chunk) {
    partials_[pc.partials_off + i] = FP4_ZERO;
    return;
  }
  uint start = i * pc.chunk;
  uint end = start + min(pc.chunk, pc.n - start);
  uvec4 x = z_[pc.z_off];
  uvec4 h = coeffs_[pc.coeffs_off + end - 1u];
  for (uint j = end - 1u; j > start; --j) h = fp4_add(fp4_mul(h, x), coeffs_[pc.coeffs_off + j - 1u]);
  partials_[pc.partials_off + i] = fp4_mul(h, fp4_pow(x, start));
}
