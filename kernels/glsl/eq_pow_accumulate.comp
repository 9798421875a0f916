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
// k < 8, and its weighted high factor gamma^(i+1) prod_{k >= 8} into shared memory (in the base
// field for a base-field point, then scaled by its weight); then 16 invocations per point make two
// tables of it: lo[t], the product over bits 0..3 for t = b mod 16, and hi[t], the high factor
// times the product over bits 4..7 for t = (b >> 4) mod 16. Each entry
// adds lo[b mod 16] hi[(b >> 4) mod 16] per point: for a base-field point (the query points) an
// Fp x Fp4 product, 4 base products (it was 8 factors and an Fp x Fp4 product, 12; before that 2m).
// Other workgroup sizes run the whole product per entry. The field is commutative, so any order
// gives the same values.

// WG and LB = log2(WG) come from the kernel's constants (kernels/whir.hpp). Two tables of 2^HB
// cover the LB = 8 bits of a workgroup of 256; PB points per shared batch.
const uint HB = 4u, PB = 16u;
shared uvec4 squares_[PB * LB];                     // point j of the batch: z^(2^k) at j LB + k
shared uvec4 high_[PB];                             // gamma^(i+1) prod_{LB <= k < m} (b_k ? z^(2^k) : 1 - z^(2^k))
shared uint base_[PB];                              // 1: the point is in the base field
shared uvec4 lo_[PB * 16u];                         // point j: lo[t] at 16 j + t
shared uvec4 hi_[PB * 16u];                         // point j: hi[t] at 16 j + t

bool is_base(uvec4 z) { return z.y == 0u && z.z == 0u && z.w == 0u; }

// prod over bits k in [from, from + 4) below m of (t_(k - from) ? x_k : 1 - x_k), x_k = z^(2^k) of
// batch point j; quarter_base for a base-field point.
uvec4 quarter_product(uint j, uint t, uint from) {
  uvec4 e = FP4_ONE;
  for (uint k = from; k < from + HB && k < pc.m; ++k) {
    const uvec4 x = squares_[j * LB + k];
    e = fp4_mul(e, ((t >> (k - from)) & 1u) != 0u ? x : fp4_sub(FP4_ONE, x));
  }
  return e;
}
uint quarter_base(uint j, uint t, uint from) {
  uint e = FP_ONE;
  for (uint k = from; k < from + HB && k < pc.m; ++k) {
    const uint x = squares_[j * LB + k].x;
    e = fp_mul(e, ((t >> (k - from)) & 1u) != 0u ? x : fp_sub(FP_ONE, x));
  }
  return e;
}

void shared_batches(uint b) {
  const uint lid = gl_LocalInvocationID.x;
  const uvec4 g = gamma_[pc.gamma_off];
  const bool mine = b < pc.grid_x;
  uvec4 acc = mine ? w_[pc.w_off + b] : FP4_ZERO;
  const uint lo = b & 15u, hi = (b >> HB) & 15u;
  // Point first + lid weighs gamma^(first + lid + 1) = gamma^first gamma^(lid + 1): the second
  // factor made once, the first advanced by gamma^PB a batch (invocations below PB).
  const uvec4 g_lid = lid < PB ? fp4_pow(g, lid + 1u) : FP4_ONE, g_pb = lid < PB ? fp4_pow(g, PB) : FP4_ONE;
  uvec4 g_first = FP4_ONE;
  for (uint first = 0u; first < pc.points_len; first += PB) {
    const uint count = min(PB, pc.points_len - first);
    barrier();  // the previous batch is read
    if (lid < count) {
      const uvec4 z = points_[pc.points_off + first + lid], weight = fp4_mul(g_first, g_lid);
      if (is_base(z)) {  // the query points: squares and high factor in the base field
        uint x = z.x, h = FP_ONE;
        for (uint k = 0u; k < LB; ++k) {
          squares_[lid * LB + k] = uvec4(x, 0u, 0u, 0u);
          x = fp_square(x);
        }
        for (uint k = LB; k < pc.m; ++k) {
          h = fp_mul(h, ((b >> k) & 1u) != 0u ? x : fp_sub(FP_ONE, x));
          x = fp_square(x);
        }
        high_[lid] = fp4_scale(weight, h);
        base_[lid] = 1u;
      } else {
        uvec4 x = z, h = weight;
        for (uint k = 0u; k < LB; ++k) {
          squares_[lid * LB + k] = x;
          x = fp4_square(x);
        }
        for (uint k = LB; k < pc.m; ++k) {
          h = fp4_mul(h, ((b >> k) & 1u) != 0u ? x : fp4_sub(FP4_ONE, x));
          x = fp4_square(x);
        }
        high_[lid] = h;
        base_[lid] = 0u;
      }
    }
    if (lid < PB) g_first = fp4_mul(g_first, g_pb);
    barrier();
    {
      const uint j = lid >> 4, t = lid & 15u;
      if (j < count) {
        if (base_[j] != 0u) {
          lo_[lid] = uvec4(quarter_base(j, t, 0u), 0u, 0u, 0u);
          hi_[lid] = fp4_scale(high_[j], quarter_base(j, t, HB));
        } else {
          lo_[lid] = quarter_product(j, t, 0u);
          hi_[lid] = fp4_mul(high_[j], quarter_product(j, t, HB));
        }
      }
    }
    barrier();
    if (!mine) continue;
    for (uint j = 0u; j < count; ++j) {
      const uvec4 h = hi_[16u * j + hi], l = lo_[16u * j + lo];
      acc = fp4_add(acc, base_[j] != 0u ? fp4_scale(h, l.x) : fp4_mul(h, l));
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
