#version 460
#extension GL_GOOGLE_include_directive : require
#include "abi/eq_pow_accumulate.glsl"
#include "fp4.glsl"
// EqPowAccumulate (kernels/whir.hpp): w[b] += sum_i gamma^(i+1) eq(b, pow(points[i])), with
// pow(z) = (z, z^2, ..., z^(2^(m-1))) and eq(b, x) = prod_k (b_k ? x_k : 1 - x_k). Points in the
// base field (the query points) take a base-field path; the branch is uniform across invocations.
//
// In workgroups of WG = 256 (EqPowAccumulate::workgroup_size) the invocations share b's high bits
// (k >= 8). Per batch of PB points, the first invocations make each point's squares z^(2^k),
// k < 8, and its weighted high factor gamma^(i+1) prod_{k >= 8} into shared memory; every
// invocation then multiplies its eight low factors per point (a base-field point: 8 base products
// and an Fp x Fp4 one, against 2m before). Other workgroup sizes run the whole product per entry.
// The field is commutative, so either order gives the same values.

const uint WG = 256u, LB = 8u, PB = 32u;  // LB = log2(WG); PB points per shared batch
shared uvec4 squares_[PB * LB];           // point j of the batch: z^(2^k) at j LB + k
shared uvec4 high_[PB];                   // gamma^(i+1) prod_{LB <= k < m} (b_k ? z^(2^k) : 1 - z^(2^k))
shared uint base_[PB];                    // 1: the point is in the base field

bool is_base(uvec4 z) { return z.y == 0u && z.z == 0u && z.w == 0u; }

void shared_batches(uint b) {
  const uint lid = gl_LocalInvocationID.x, low = min(pc.m, LB);
  const uvec4 g = gamma_[pc.gamma_off];
  const bool mine = b < pc.grid_x;
  uvec4 acc = mine ? w_[pc.w_off + b] : FP4_ZERO;
  for (uint first = 0u; first < pc.points_len; first += PB) {
    const uint count = min(PB, pc.points_len - first);
    barrier();  // the previous batch is read
    if (lid < count) {
      const uvec4 z = points_[pc.points_off + first + lid];
      uvec4 x = z;
      for (uint k = 0u; k < LB; ++k) {
        squares_[lid * LB + k] = x;
        x = fp4_square(x);
      }
      uvec4 h = fp4_pow(g, first + lid + 1u);
      for (uint k = LB; k < pc.m; ++k) {
        h = fp4_mul(h, ((b >> k) & 1u) != 0u ? x : fp4_sub(FP4_ONE, x));
        x = fp4_square(x);
      }
      high_[lid] = h;
      base_[lid] = is_base(z) ? 1u : 0u;
    }
    barrier();
    if (!mine) continue;
    for (uint j = 0u; j < count; ++j) {
      if (base_[j] != 0u) {
        uint e = FP_ONE;
        for (uint k = 0u; k < low; ++k) {
          const uint x = squares_[j * LB + k].x;
          e = fp_mul(e, ((b >> k) & 1u) != 0u ? x : fp_sub(FP_ONE, x));
        }
        acc = fp4_add(acc, fp4_scale(high_[j], e));
      } else {
        uvec4 e = FP4_ONE;
        for (uint k = 0u; k < low; ++k) {
          const uvec4 x = squares_[j * LB + k];
          e = fp4_mul(e, ((b >> k) & 1u) != 0u ? x : fp4_sub(FP4_ONE, x));
        }
        acc = fp4_add(acc, fp4_mul(high_[j], e));
      }
    }
  }
  if (mine) w_[pc.w_off + b] = acc;
}

void per_entry(uint b) {
  if (b >= pc.grid_x) return;
  uvec4 g = gamma_[pc.gamma_off];
  uvec4 weight = g;  // gamma^(i+1)
  uvec4 acc = w_[pc.w_off + b];
  for (uint i = 0u; i < pc.points_len; ++i) {
    uvec4 z = points_[pc.points_off + i];
    if (is_base(z)) {
      uint x = z.x, e = FP_ONE;
      for (uint k = 0u; k < pc.m; ++k) {
        e = fp_mul(e, ((b >> k) & 1u) != 0u ? x : fp_sub(FP_ONE, x));
        x = fp_square(x);
      }
      acc = fp4_add(acc, fp4_scale(weight, e));
    } else {
      uvec4 x = z, e = FP4_ONE;
      for (uint k = 0u; k < pc.m; ++k) {
        e = fp4_mul(e, ((b >> k) & 1u) != 0u ? x : fp4_sub(FP4_ONE, x));
        x = fp4_square(x);
      }
      acc = fp4_add(acc, fp4_mul(weight, e));
    }
    weight = fp4_mul(weight, g);
  }
  w_[pc.w_off + b] = acc;
}

void main() {
  const uint b = vks_index_x();
  if (gl_WorkGroupSize.x == WG)  // uniform: every invocation reaches the barriers
    shared_batches(b);
  else
    per_entry(b);
}
