#version 460
#extension GL_GOOGLE_include_directive : require
#include "runtime.glsl"
#include "fp4.glsl"
// EvalPolyPartials (kernels/whir.hpp): partials[i] = z^(i chunk) sum_{j < chunk, i chunk + j < n}
// coeffs[i chunk + j] z^j, by Horner over the chunk.
layout(set = 0, binding = 0) readonly buffer Coeffs { uvec4 coeffs[]; };
layout(set = 0, binding = 1) readonly buffer Z { uvec4 z[]; };
layout(set = 0, binding = 2) writeonly buffer Partials { uvec4 partials[]; };
VKS_PUSH_BEGIN VKS_VIEW(coeffs) VKS_VIEW(z) VKS_VIEW(partials) uint n; uint chunk; VKS_PUSH_END

void main() {
  uint i = vks_index_x();
  if (i >= pc.grid_x) return;
  // Empty chunks (also those whose start i * chunk would not fit in 32 bits) are zero.
  if (pc.n == 0u || pc.chunk == 0u || i > (pc.n - 1u) / pc.chunk) {
    partials[pc.partials_off + i] = FP4_ZERO;
    return;
  }
  uint start = i * pc.chunk;
  uint end = start + min(pc.chunk, pc.n - start);
  uvec4 x = z[pc.z_off];
  uvec4 h = coeffs[pc.coeffs_off + end - 1u];
  for (uint j = end - 1u; j > start; --j) h = fp4_add(fp4_mul(h, x), coeffs[pc.coeffs_off + j - 1u]);
  partials[pc.partials_off + i] = fp4_mul(h, fp4_pow(x, start));
}
