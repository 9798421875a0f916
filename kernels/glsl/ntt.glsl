// Shared code of the NTT kernels (kernels/ntt.hpp): roots of unity and helpers, then the bodies
// shared by the Fp and Fp4 variants. A kernel defines NTT_T (uint or uvec4) with NTT_ZERO,
// NTT_ADD, NTT_SUB, NTT_SCALE (element times a base-field uint), declares its buffers and push
// constants, and includes this file with one of NTT_STAGE_MAIN / NTT_ZETA_MAIN defined.
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

// (2^log_n)^-1 in Montgomery form: p - (p - 1) / 2^log_n, since 2^log_n * ((p - 1) / 2^log_n) = -1.
uint ntt_inv_pow2(uint log_n) { return fp_from_canonical(FP_P - ((FP_P - 1u) >> log_n)); }

// The low `bits` bits of j in reverse order (bits >= 1).
uint ntt_bitrev(uint j, uint bits) { return bitfieldReverse(j) >> (32u - bits); }

#endif  // VKSTARK_NTT_GLSL

// ---------------------------------------------------------------------------------------------
// NttStageFp / NttStageFp4: one Stockham pass of radix 2^log_radix. Needs buffers src_[], dst_[],
// tw_[] and the push constants of NttStageFp::Args.
#ifdef NTT_STAGE_MAIN

// omega_N^e, or omega_N^-e for inverse passes (N = 2^log_tw, log_tw >= 1), from the table of N/2.
uint ntt_twiddle(uint e) {
  const uint half_n = 1u << (pc.log_tw - 1u);
  const uint mask = 2u * half_n - 1u;
  e &= mask;
  if (pc.inverse != 0u) e = (0u - e) & mask;
  return e < half_n ? tw_[pc.tw_off + e] : fp_neg(tw_[pc.tw_off + e - half_n]);
}

void main() {
  const uint i = vks_index_x();
  if (i >= pc.grid_x) return;
  const uint c = vks_index_y();
  const uint lr = pc.log_radix;
  const uint radix = 1u << lr;
  const uint groups = 1u << (pc.log_n - lr);
  const uint src_len = 1u << pc.log_src;
  const uint in_base = pc.src_off + c * pc.src_stride;

  // Bit-reversed load, so that the in-place decimation in time ends in natural order.
  NTT_T v[16];
  [[unroll]] for (uint jj = 0u; jj < 16u; ++jj) {
    if (jj < radix) {
      const uint idx = i + ntt_bitrev(jj, lr) * groups;
      v[jj] = idx < src_len ? src_[in_base + idx] : NTT_ZERO;
    }
  }
  [[unroll]] for (uint t = 0u; t < 4u; ++t) {
    if (t < lr) {
      const uint h = 1u << t;
      [[unroll]] for (uint j = 0u; j < 16u; ++j) {
        if (j < radix && (j & h) == 0u) {
          // omega_{2h}^(j mod h)
          const uint w = ntt_twiddle((j & (h - 1u)) << (pc.log_tw - t - 1u));
          const NTT_T u = v[j];
          const NTT_T x = NTT_SCALE(v[j + h], w);
          v[j] = NTT_ADD(u, x);
          v[j + h] = NTT_SUB(u, x);
        }
      }
    }
  }

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
