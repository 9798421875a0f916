#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "runtime.glsl"
#include "ntt.glsl"
// NttRsMessage (kernels/ntt.hpp, protocol.md 6.3 step 1): per chunk of 2^log_chunk entries, in place,
// iDFT then subset-zeta over the chunk's index bits (inverse: subset-Möbius then DFT). One invocation
// per chunk: chunks of up to 16 entries (l_skip <= 4, the common case) are transformed in registers,
// larger ones (up to 2^10 entries) where they lie.
layout(set = 0, binding = 0) buffer Data { uint data_[]; };
VKS_PUSH_BEGIN VKS_VIEW(data) uint log_chunk; uint col_stride; uint inverse; VKS_PUSH_END

// In-place radix-2 DFT (inverse: iDFT, 1/n included) of the 2^l entries from `base`: bit-reversal
// permutation, then decimation in time, natural order out.
void chunk_dft(uint base, uint l, bool inv) {
  const uint len = 1u << l;
  if (l == 0u) return;
  for (uint j = 0u; j < len; ++j) {
    const uint r = ntt_bitrev(j, l);
    if (j < r) {
      const uint t = data_[base + j];
      data_[base + j] = data_[base + r];
      data_[base + r] = t;
    }
  }
  for (uint s = 1u; s <= l; ++s) {
    const uint h = 1u << (s - 1u);
    const uint w_s = ntt_root(s, inv);  // omega_{2^s}^(+-1)
    for (uint b = 0u; b < len; b += 2u * h) {
      uint w = FP_ONE;
      for (uint j = 0u; j < h; ++j) {
        const uint u = data_[base + b + j];
        const uint x = fp_mul(data_[base + b + j + h], w);
        data_[base + b + j] = fp_add(u, x);
        data_[base + b + j + h] = fp_sub(u, x);
        w = fp_mul(w, w_s);
      }
    }
  }
  if (inv) {
    const uint n_inv = ntt_inv_pow2(l);
    for (uint j = 0u; j < len; ++j) data_[base + j] = fp_mul(data_[base + j], n_inv);
  }
}

// Subset-zeta (a[v] += a[v - 2^b]) or Möbius (-=) over the l index bits of the chunk at `base`.
void chunk_subset(uint base, uint l, bool mobius) {
  const uint len = 1u << l;
  for (uint b = 0u; b < l; ++b) {
    const uint h = 1u << b;
    for (uint v = 0u; v < len; ++v) {
      if ((v & h) != 0u) {
        const uint a = data_[base + v];
        const uint o = data_[base + v - h];
        data_[base + v] = mobius ? fp_sub(a, o) : fp_add(a, o);
      }
    }
  }
}

// pw[h + m] = omega_{2h}^(+-m) for h = 1, 2, 4, 8 and m < h: the butterfly twiddles of a
// transform of up to 16 points.
void small_twiddles(uint l, bool inv, out uint pw[16]) {
  pw[0] = FP_ONE;
  [[unroll]] for (uint t = 0u; t < 4u; ++t) {
    if (t < l) {
      const uint h = 1u << t;
      const uint w = ntt_root(t + 1u, inv);
      pw[h] = FP_ONE;
      [[unroll]] for (uint m = 1u; m < 8u; ++m) {
        if (m < h) pw[h + m] = fp_mul(pw[h + m - 1u], w);
      }
    }
  }
}

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

// The chunk of 2^l <= 16 entries at `base`, in registers.
void small_chunk(uint base, uint l, bool inverse) {
  const uint len = 1u << l;
  uint pw[16];
  uint v[16];
  small_twiddles(l, !inverse, pw);
  if (!inverse) {
    // iDFT: bit-reversed load, decimation in time (natural order out), 1/n; then subset-zeta.
    [[unroll]] for (uint j = 0u; j < 16u; ++j) {
      if (j < len) v[j] = data_[base + (l == 0u ? 0u : ntt_bitrev(j, l))];
    }
    [[unroll]] for (uint t = 0u; t < 4u; ++t) {
      if (t < l) {
        const uint h = 1u << t;
        [[unroll]] for (uint j = 0u; j < 16u; ++j) {
          if (j < len && (j & h) == 0u) {
            const uint u = v[j];
            const uint x = fp_mul(v[j + h], pw[h + (j & (h - 1u))]);
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
    [[unroll]] for (uint j = 0u; j < 16u; ++j) {
      if (j < len) data_[base + j] = v[j];
    }
  } else {
    // Möbius, then DFT by decimation in frequency (bit-reversed out): bit-reversed store.
    [[unroll]] for (uint j = 0u; j < 16u; ++j) {
      if (j < len) v[j] = data_[base + j];
    }
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
            v[j + h] = fp_mul(fp_sub(u, x), pw[h + (j & (h - 1u))]);
          }
        }
      }
    }
    [[unroll]] for (uint j = 0u; j < 16u; ++j) {
      if (j < len) data_[base + (l == 0u ? 0u : ntt_bitrev(j, l))] = v[j];
    }
  }
}

void main() {
  const uint i = vks_index_x();
  if (i >= pc.grid_x) return;
  const uint c = vks_index_y();
  const uint l = pc.log_chunk;
  const uint base = pc.data_off + c * pc.col_stride + (i << l);
  if (l <= 4u) {
    small_chunk(base, l, pc.inverse != 0u);
  } else if (pc.inverse != 0u) {
    chunk_subset(base, l, true);
    chunk_dft(base, l, false);
  } else {
    chunk_dft(base, l, true);
    chunk_subset(base, l, false);
  }
}
