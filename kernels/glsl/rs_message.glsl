// The RS message of one chunk of up to 16 entries in registers (protocol.md 6.3 step 1), shared
// by NttRsMessage and NttRsMessageVec (kernels/ntt.hpp). Include after ntt.glsl.
#ifndef VKSTARK_RS_MESSAGE_GLSL
#define VKSTARK_RS_MESSAGE_GLSL

// Subset-zeta (Möbius) over the l <= 4 index bits of v.
void small_subset(inout uint v[16], uint l, bool mobius) {
  [[unroll]] for (uint t = 0u; t < 4u; ++t) {
    if (t < l) {
      [[unroll]] for (uint j = 0u; j < 16u; ++j) {
        if (j < (1u << l) && ((j >> t) & 1u) != 0u) {
          const uint o = v[j ^ (1u << t)];
          v[j] = mobius ? fp_sub(v[j], o) : fp_add(v[j], o);
        }
      }
    }
  }
}

// RS message of one chunk of 2^l <= 16 entries, v loaded in bit-reversed order (v[j] = chunk[rev(j)]):
// iDFT by decimation in time (natural order out), 1/n, then subset-zeta. Natural order out.
void small_message(inout uint v[16], uint l) {
  const uint len = 1u << l;
  [[unroll]] for (uint t = 0u; t < 4u; ++t) {
    if (t < l) {
      const uint h = 1u << t;
      [[unroll]] for (uint j = 0u; j < 16u; ++j) {
        if (j < len && (j & h) == 0u) {
          const uint u = v[j];
          const uint m = j & (h - 1u);  // omega^0 = 1 takes no multiplication
          const uint x = m == 0u ? v[j + h] : fp_mul(v[j + h], NTT_W16_INV[h + m]);
          v[j] = fp_add(u, x);
          v[j + h] = fp_sub(u, x);
        }
      }
    }
  }
  const uint n_inv = ntt_inv_pow2(l);
  [[unroll]] for (uint j = 0u; j < 16u; ++j) {
    if (j < len) v[j] = fp_mul(v[j], n_inv);
  }
  small_subset(v, l, false);
}

// Its inverse, v in natural order: Möbius, then the DFT by decimation in frequency, which leaves
// the output in bit-reversed order (v[j] = result[rev(j)]).
void small_message_inverse(inout uint v[16], uint l) {
  const uint len = 1u << l;
  small_subset(v, l, true);
  [[unroll]] for (uint tt = 0u; tt < 4u; ++tt) {
    const uint t = 3u - tt;
    if (t < l) {
      const uint h = 1u << t;
      [[unroll]] for (uint j = 0u; j < 16u; ++j) {
        if (j < len && (j & h) == 0u) {
          const uint u = v[j];
          const uint x = v[j + h];
          v[j] = fp_add(u, x);
          const uint m = j & (h - 1u);
          v[j + h] = m == 0u ? fp_sub(u, x) : fp_mul(fp_sub(u, x), NTT_W16[h + m]);
        }
      }
    }
  }
}

uint small_rev(uint j, uint l) { return l == 0u ? 0u : ntt_bitrev(j, l); }

#endif  // VKSTARK_RS_MESSAGE_GLSL
