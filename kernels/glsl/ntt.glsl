// Shared code of the NTT kernels (kernels/ntt.hpp): roots of unity and helpers, then the bodies
// shared by the Fp and Fp4 variants. A kernel defines NTT_T (uint or uvec4) with NTT_ZERO,
// NTT_ADD, NTT_SUB, NTT_SCALE (element times a base-field uint) after including its generated
// interface (abi/<kernel>.glsl), and includes this file with one of NTT_STAGE_MAIN / NTT_SHARED_MAIN / NTT_ZETA_MAIN
// defined.
//
// Loops over the up to 16 registers of a radix-16 pass have constant bounds and are unrolled, so
// every register index is a constant; the actual radix (a push constant) only guards them. Each
// including kernel enables GL_EXT_control_flow_attributes (for [[unroll]]) at its top.
#ifndef VKSTARK_NTT_GLSL
#define VKSTARK_NTT_GLSL

#include "fp.glsl"

// two_adic_generator(k) of protocol.md 1.2 (canonical), and its inverse.
const uint NTT_TWO_ADIC_GENERATORS[28] = uint[28](
    1u, 2013265920u, 1728404513u, 1592366214u, 196396260u, 760005850u, 1721589904u, 397765732u, 1732600167u,
    1753498361u, 341742893u, 1340477990u, 1282623253u, 298008106u, 1657000625u, 2009781145u, 1421947380u,
    1286330022u, 1559589183u, 1049899240u, 195061667u, 414040701u, 570250684u, 1267047229u, 1003846038u,
    1149491290u, 975630072u, 440564289u);
const uint NTT_TWO_ADIC_GENERATORS_INV[28] = uint[28](
    1u, 2013265920u, 284861408u, 1801542727u, 567209306u, 1273220281u, 662200255u, 1856545343u, 1611842161u,
    1861675199u, 774513262u, 449056851u, 1255670133u, 1976924129u, 106301669u, 1411306935u, 1540942033u,
    1043440885u, 173207512u, 463443832u, 1021415956u, 1574319791u, 953617870u, 987386499u, 1469248932u,
    165179394u, 1498740239u, 1713844692u);

// omega_{2^k} (inverse: omega_{2^k}^-1) in Montgomery form.
uint ntt_root(uint k, bool inverse) {
  return fp_from_canonical(inverse ? NTT_TWO_ADIC_GENERATORS_INV[k] : NTT_TWO_ADIC_GENERATORS[k]);
}

// Montgomery forms of omega_{2h}^m at [h + m] for h = 1, 2, 4, 8 and m < h (index 0: 1): the
// butterfly twiddles of a transform of up to 16 points, as constants, and their inverses.
const uint NTT_W16[16] = uint[16](268435454u, 268435454u, 268435454u, 473486609u, 268435454u, 1032137103u,
    473486609u, 1964242958u, 268435454u, 1594287233u, 1032137103u, 1173759574u, 473486609u, 1844575452u,
    1964242958u, 270522423u);
const uint NTT_W16_INV[16] = uint[16](268435454u, 268435454u, 268435454u, 1539779312u, 268435454u, 49022963u,
    1539779312u, 981128818u, 268435454u, 1742743498u, 49022963u, 168690469u, 1539779312u, 839506347u,
    981128818u, 418978688u);

// (2^log_n)^-1 in Montgomery form: p - (p - 1) / 2^log_n, since 2^log_n * ((p - 1) / 2^log_n) = -1.
uint ntt_inv_pow2(uint log_n) { return fp_from_canonical(FP_P - ((FP_P - 1u) >> log_n)); }

// The low `bits` bits of j in reverse order (bits >= 1).
uint ntt_bitrev(uint j, uint bits) { return bitfieldReverse(j) >> (32u - bits); }

#endif  // VKSTARK_NTT_GLSL

// ---------------------------------------------------------------------------------------------
// Shared by the Stockham passes (NTT_STAGE_MAIN, NTT_SHARED_MAIN, NTT_VEC_MAIN): they need buffers
// src_[], dst_[], tw_[] and the push constants of NttStageFp::Args.
#if defined(NTT_STAGE_MAIN) || defined(NTT_SHARED_MAIN) || defined(NTT_VEC_MAIN)

// omega_N^e, or omega_N^-e for inverse passes (N = 2^log_tw, log_tw >= 1), from the table of N/2.
uint ntt_twiddle(uint e) {
  const uint half_n = 1u << (pc.log_tw - 1u);
  const uint mask = 2u * half_n - 1u;
  e &= mask;
  if (pc.inverse != 0u) e = (0u - e) & mask;
  return e < half_n ? tw_[pc.tw_off + e] : fp_neg(tw_[pc.tw_off + e - half_n]);
}

// In-register DFT of 2^lr <= 16 points (omega^-1 for inverse passes), decimation in time: v holds
// the input in bit-reversed order and ends with the output in natural order.
void ntt_dit16(inout NTT_T v[16], uint lr) {
  const uint radix = 1u << lr;
  [[unroll]] for (uint t = 0u; t < 4u; ++t) {
    if (t < lr) {
      const uint h = 1u << t;
      [[unroll]] for (uint j = 0u; j < 16u; ++j) {
        if (j < radix && (j & h) == 0u) {
          // omega_{2h}^(j mod h): a constant once the loops are unrolled. omega^0 = 1 (Montgomery
          // one, and fp_mul by it is the identity) takes no multiplication: 15 of a radix-16's 32.
          const uint m = j & (h - 1u);
          const uint w = pc.inverse != 0u ? NTT_W16_INV[h + m] : NTT_W16[h + m];
          const NTT_T u = v[j];
          const NTT_T x = m == 0u ? v[j + h] : NTT_SCALE(v[j + h], w);
          v[j] = NTT_ADD(u, x);
          v[j + h] = NTT_SUB(u, x);
        }
      }
    }
  }
}

// Slot of entry j of tile group g in the shared passes. Rows are swizzled (low two bits of j XOR
// two bits of j / R1) so that sub-pass 1's stores (rows R1 i1 + k for consecutive i1) and sub-pass
// 2's loads (rows i2 + R1 j2 for consecutive i2) spread over the memory banks; a bijection on
// [0, R) that keeps each row whole.
uint ntt_slot(uint j, uint g, uint r1, uint lt) { return ((j ^ ((j >> r1) & 3u)) << lt) + g; }

#endif

// ---------------------------------------------------------------------------------------------
// NttStageFp / NttStageFp4: one Stockham pass of radix 2^log_radix <= 16 in registers.
#ifdef NTT_STAGE_MAIN

void main() {
  const uint i = vks_index_x();
  if (i >= pc.grid_x) return;
  const uint c = vks_index_y();
  const uint lr = pc.log_radix;
  const uint radix = 1u << lr;
  const uint groups = 1u << (pc.log_n - lr);
  const uint src_len = 1u << pc.log_src;
  const uint in_base = pc.src_off + c * pc.src_stride;

  NTT_T v[16];
  [[unroll]] for (uint jj = 0u; jj < 16u; ++jj) {
    if (jj < radix) {
      const uint idx = i + ntt_bitrev(jj, lr) * groups;
      v[jj] = idx < src_len ? src_[in_base + idx] : NTT_ZERO;
    }
  }
  ntt_dit16(v, lr);

  const uint s = 1u << pc.stage;
  const uint q = i & (s - 1u);
  const uint p = i >> pc.stage;
  // omega_{n/s}^p; output k is scaled by its k-th power (and by n^-1 at the end of an inverse).
  const uint w1 = ntt_twiddle(p << (pc.log_tw - pc.log_n + pc.stage));
  uint wk = (pc.inverse != 0u && pc.stage + lr == pc.log_n) ? ntt_inv_pow2(pc.log_n) : FP_ONE;
  const uint out_base = pc.dst_off + c * pc.dst_stride + q + s * radix * p;
  [[unroll]] for (uint k = 0u; k < 16u; ++k) {
    if (k < radix) {
      dst_[out_base + s * k] = NTT_SCALE(v[k], wk);
      wk = fp_mul(wk, w1);
    }
  }
}

#endif  // NTT_STAGE_MAIN

// ---------------------------------------------------------------------------------------------
// NttStageSharedFp / NttStageSharedFp4: one Stockham pass of radix R = 2^log_radix <= 256 for a
// tile of T = 2^log_tile consecutive groups per workgroup iteration. The R-point DFT of each group
// is itself done as two local Stockham sub-passes in registers, of radix R1 = 2^ceil(log_radix/2)
// and R2 = R / R1, exchanging through shared memory:
//   sub-pass 1 (item (g, i1), i1 < R2): y[R1 i1 + k1] = omega_R^(i1 k1) sum_j1 a[i1 + j1 R2] omega_R1^(j1 k1)
//   sub-pass 2 (item (g, i2), i2 < R1): b[i2 + R1 k2] = sum_j2 y[i2 + j2 R1] omega_R2^(j2 k2)
// then b_k times omega_{n/s}^(p k) goes to global memory. Shared layout: entry j of group g in row
// j (swizzled, ntt_slot), column g: consecutive invocations (g fastest) touch consecutive global
// entries.
// Needs NTT_SHARED_CAPACITY (elements, >= T R: the kernel's constant, kernels/ntt.hpp) and log_tile in
// the push constants.
#ifdef NTT_SHARED_MAIN

shared NTT_T sh_[NTT_SHARED_CAPACITY];

void main() {
  const uint lr = pc.log_radix;
  const uint r1 = (lr + 1u) / 2u;
  const uint r2 = lr - r1;
  const uint lt = pc.log_tile;
  const uint tile_mask = (1u << lt) - 1u;
  const uint log_groups = pc.log_n - lr;
  const uint tiles = 1u << (log_groups - lt);
  const uint src_len = 1u << pc.log_src;
  const uint c = vks_index_y();
  const uint in_base = pc.src_off + c * pc.src_stride;
  const uint out_base = pc.dst_off + c * pc.dst_stride;
  const uint s = 1u << pc.stage;
  const uint outer_shift = pc.log_tw - pc.log_n + pc.stage;
  const uint n_inv = (pc.inverse != 0u && pc.stage + lr == pc.log_n) ? ntt_inv_pow2(pc.log_n) : FP_ONE;
  const uint wg = gl_WorkGroupSize.x;
  const uint lid = gl_LocalInvocationID.x;
  // Workgroups take tiles in turn; control flow is uniform within a workgroup (barriers).
  const uint first = vks_group_x();
  const uint launched = vks_launched_groups_x(pc.grid_x);
  // The two sub-passes share one loop body, so that the radix-16 DFT is inlined once (drivers'
  // compile times grow quickly with inlined code): sub-pass 0 reads the source and writes shared
  // memory, sub-pass 1 reads shared memory and writes the destination. Branches are uniform.
  for (uint tile = first; tile < tiles; tile += launched) {
    const uint i0 = tile << lt;
    [[dont_unroll]] for (uint sub = 0u; sub < 2u; ++sub) {
      const uint rs = sub == 0u ? r1 : r2;  // radix bits of this sub-pass
      const uint ro = sub == 0u ? r2 : r1;  // of the other
      for (uint e = lid; e < (1u << (lt + ro)); e += wg) {
        const uint g = e & tile_mask;
        const uint ih = e >> lt;  // i1 (sub-pass 0) or i2 (sub-pass 1)
        NTT_T v[16];
        [[unroll]] for (uint jj = 0u; jj < 16u; ++jj) {
          if (jj < (1u << rs)) {
            if (sub == 0u) {
              const uint idx = i0 + g + ((ih + (ntt_bitrev(jj, r1) << r2)) << log_groups);
              v[jj] = idx < src_len ? src_[in_base + idx] : NTT_ZERO;
            } else {
              v[jj] = sh_[ntt_slot(ih + (ntt_bitrev(jj, r2) << r1), g, r1, lt)];
            }
          }
        }
        ntt_dit16(v, rs);
        if (sub == 0u) {
          const uint w1 = ntt_twiddle(ih << (pc.log_tw - lr));  // omega_R^i1
          uint wk = w1;  // omega_R^(i1 k) for k >= 1; k = 0 takes no multiplication
          sh_[ntt_slot(ih << r1, g, r1, lt)] = v[0];
          [[unroll]] for (uint k = 1u; k < 16u; ++k) {
            if (k < (1u << r1)) {
              sh_[ntt_slot((ih << r1) + k, g, r1, lt)] = NTT_SCALE(v[k], wk);
              wk = fp_mul(wk, w1);
            }
          }
        } else {
          const uint i = i0 + g;
          const uint p = i >> pc.stage;
          // b_k, k = i2 + R1 k2, times omega_{n/s}^(p k) (and n^-1 at the end of an inverse)
          uint wk = fp_mul(ntt_twiddle((p * ih) << outer_shift), n_inv);
          const uint step = ntt_twiddle((p << r1) << outer_shift);
          const uint o = out_base + (i & (s - 1u)) + s * ((p << lr) + ih);
          [[unroll]] for (uint k = 0u; k < 16u; ++k) {
            if (k < (1u << r2)) {
              dst_[o + ((s * k) << r1)] = NTT_SCALE(v[k], wk);
              wk = fp_mul(wk, step);
            }
          }
        }
      }
      barrier();  // sub-pass 1 reads what 0 wrote; the next tile reuses sh_
    }
  }
}

#endif  // NTT_SHARED_MAIN

// ---------------------------------------------------------------------------------------------
// NttStageVecFp: the register pass of NTT_STAGE_MAIN over Fp columns bound as uvec4 entries (four
// consecutive Fp; src_/dst_ offsets and strides count uvec4), four consecutive groups
// 4 i4 .. 4 i4 + 3 per invocation, one in each lane of NTT_T = uvec4 with the Fp4 kernels'
// lane-wise additions and base-field scaling. Reads are one uvec4 per row. When stage >= 2 the
// four groups share p (so their twiddles) and their outputs at each k are consecutive: one uvec4;
// at stage 0 each lane has its own p, and group 4 i4 + l's outputs R (4 i4 + l) + k are
// consecutive: its R outputs as R/4 uvec4 (log_radix >= 2), staged in shared memory so that a
// workgroup stores one run. NTT_VEC_STAGE0 compiles the stage-0 pass (NttStageVec0Fp), else the
// pass for stage >= 2: one kernel each, so that neither pays the other's registers and shared
// memory.
#ifdef NTT_VEC_MAIN

#ifdef NTT_VEC_STAGE0
// A workgroup's outputs are one run of 16-byte entries, staged here (NTT_VEC_OUT_CAPACITY
// >= workgroup size x 16) so that consecutive invocations store consecutive entries.
shared uvec4 ntt_out_[NTT_VEC_OUT_CAPACITY];

// Entry x of the run, swizzled (its low three bits XOR the next three) so that the eight
// invocations of a quarter subgroup, writing entries 16 apart, meet in no memory bank.
uint ntt_out_slot(uint x) { return x ^ ((x >> 4u) & 7u); }
#endif

void main() {
  const uint i4 = vks_index_x();
#ifdef NTT_VEC_STAGE0
  const bool live = i4 < pc.grid_x;  // every invocation reaches the barrier
#else
  if (i4 >= pc.grid_x) return;
  const bool live = true;
  // A masked pass (NttStageArgs::mask): nothing to do unless one of the four groups is marked.
  if (pc.mask_count != 0u && ((mask_[0].data[pc.mask_off[0] + (i4 >> 3u)] >> ((i4 & 7u) << 2u)) & 15u) == 0u) return;
#endif
  const uint c = vks_index_y();
  const uint lr = pc.log_radix;
  const uint radix = 1u << lr;
  const uint log_groups = pc.log_n - lr;
  const uint src_len = 1u << pc.log_src;
  const uint in_base = pc.src_off + c * pc.src_stride;
  const uint out_base = pc.dst_off + c * pc.dst_stride;
  const uint i = i4 << 2u;

  NTT_T v[16];
  [[unroll]] for (uint jj = 0u; jj < 16u; ++jj) {
    if (jj < radix) {
      const uint idx = i + (ntt_bitrev(jj, lr) << log_groups);
      v[jj] = live && idx < src_len ? src_[in_base + (idx >> 2u)] : NTT_ZERO;
    }
  }
  ntt_dit16(v, lr);

  const uint n_inv = (pc.inverse != 0u && pc.stage + lr == pc.log_n) ? ntt_inv_pow2(pc.log_n) : FP_ONE;
#ifdef NTT_VEC_STAGE0
  {
    // lane l: p = i + l; output k times omega_n^(p k)
    uvec4 w1, wk;
    [[unroll]] for (uint l = 0u; l < 4u; ++l) {
      w1[l] = ntt_twiddle((i + l) << (pc.log_tw - pc.log_n));
      wk[l] = n_inv;
    }
    [[unroll]] for (uint k = 0u; k < 16u; ++k) {
      if (k < radix) {
        v[k] = uvec4(fp_mul(v[k].x, wk.x), fp_mul(v[k].y, wk.y), fp_mul(v[k].z, wk.z), fp_mul(v[k].w, wk.w));
        wk = uvec4(fp_mul(wk.x, w1.x), fp_mul(wk.y, w1.y), fp_mul(wk.z, w1.z), fp_mul(wk.w, w1.w));
      }
    }
    // Group i + l's R outputs R (i + l) + k, as entries: this invocation's R entries from lid R.
    const uint lid = gl_LocalInvocationID.x;
    const uint quarter = radix >> 2u;
    [[unroll]] for (uint k = 0u; k < 16u; k += 4u) {
      if (k < radix) {
        const uint at = lid * radix + (k >> 2u);
        ntt_out_[ntt_out_slot(at)] = uvec4(v[k].x, v[k + 1u].x, v[k + 2u].x, v[k + 3u].x);
        ntt_out_[ntt_out_slot(at + quarter)] = uvec4(v[k].y, v[k + 1u].y, v[k + 2u].y, v[k + 3u].y);
        ntt_out_[ntt_out_slot(at + 2u * quarter)] = uvec4(v[k].z, v[k + 1u].z, v[k + 2u].z, v[k + 3u].z);
        ntt_out_[ntt_out_slot(at + 3u * quarter)] = uvec4(v[k].w, v[k + 1u].w, v[k + 2u].w, v[k + 3u].w);
      }
    }
    barrier();
    const uint first = vks_group_x() * gl_WorkGroupSize.x;  // the workgroup's first invocation
    const uint count = first < pc.grid_x ? (min(pc.grid_x - first, gl_WorkGroupSize.x) << lr) : 0u;
    for (uint e = lid; e < count; e += gl_WorkGroupSize.x)
      dst_[out_base + (first << lr) + e] = ntt_out_[ntt_out_slot(e)];
  }
#else
  {
    const uint s = 1u << pc.stage;
    const uint q = i & (s - 1u);
    const uint p = i >> pc.stage;
    const uint w1 = ntt_twiddle(p << (pc.log_tw - pc.log_n + pc.stage));
    uint wk = n_inv;
    const uint o = out_base + ((q + s * radix * p) >> 2u);
    const uint step = s >> 2u;
    [[unroll]] for (uint k = 0u; k < 16u; ++k) {
      if (k < radix) {
        dst_[o + step * k] = k == 0u && pc.inverse == 0u ? v[k] : NTT_SCALE(v[k], wk);
        wk = fp_mul(wk, w1);
      }
    }
  }
#endif
}

#endif  // NTT_VEC_MAIN

// ---------------------------------------------------------------------------------------------
// NttZetaFp / NttZetaFp4: subset-zeta or Möbius over num_bits index bits from bit_lo. Needs the
// buffer data_[] and the push constants of NttZetaFp::Args.
#ifdef NTT_ZETA_MAIN

void main() {
  const uint g = vks_index_x();
  if (g >= pc.grid_x) return;
  const uint c = vks_index_y();
  const uint nb = pc.num_bits;
  const uint n = 1u << nb;
  const uint lo_mask = (1u << pc.bit_lo) - 1u;
  const uint base = pc.data_off + c * pc.col_stride + (((g & ~lo_mask) << nb) | (g & lo_mask));
  NTT_T v[16];
  [[unroll]] for (uint j = 0u; j < 16u; ++j) {
    if (j < n) v[j] = data_[base + (j << pc.bit_lo)];
  }
  [[unroll]] for (uint t = 0u; t < 4u; ++t) {
    if (t < nb) {
      [[unroll]] for (uint j = 0u; j < 16u; ++j) {
        if (j < n && ((j >> t) & 1u) != 0u) {
          const NTT_T other = v[j ^ (1u << t)];
          v[j] = pc.mobius != 0u ? NTT_SUB(v[j], other) : NTT_ADD(v[j], other);
        }
      }
    }
  }
  [[unroll]] for (uint j = 0u; j < 16u; ++j) {
    if (j < n) data_[base + (j << pc.bit_lo)] = v[j];
  }
}

#endif  // NTT_ZETA_MAIN
