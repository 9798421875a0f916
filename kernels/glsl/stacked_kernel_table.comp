#version 460
#extension GL_GOOGLE_include_directive : require
#include "abi/stacked_kernel_table.glsl"
#include "fp4.glsl"
// StackedKernelTable (kernels/stacked_reduction.hpp): table[k C + x] = coeffs[2k] E(x) + coeffs[2k+1] D(x).

void main() {
  const uint i = vks_index_x();
  if (i >= pc.grid_x) return;
  const uint cmask = (1u << pc.log_chunks) - 1u, k = i >> pc.log_chunks, x = i & cmask;
  const uvec4 e = eq_[pc.eq_off + x], d = fp4_sub(eq_[pc.eq_off + ((x - 1u) & cmask)], e);
  table_[pc.table_off + i] =
      fp4_add(fp4_mul(coeffs_[pc.coeffs_off + 2u * k], e), fp4_mul(coeffs_[pc.coeffs_off + 2u * k + 1u], d));
}
