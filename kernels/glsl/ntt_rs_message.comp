#version 460
#extension GL_GOOGLE_include_directive : require
#include "runtime.glsl"
#include "ntt.glsl"
// NttRsMessage (kernels/ntt.hpp, protocol.md 6.3 step 1): per chunk of 2^log_chunk entries, in place,
// iDFT then subset-zeta over the chunk's index bits (inverse: subset-Möbius then DFT). One invocation
// per chunk; the chunk (up to 2^10 entries) is transformed where it lies.
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

void main() {
  const uint i = vks_index_x();
  if (i >= pc.grid_x) return;
  const uint c = vks_index_y();
  const uint l = pc.log_chunk;
  const uint base = pc.data_off + c * pc.col_stride + (i << l);
  if (pc.inverse != 0u) {
    chunk_subset(base, l, true);
    chunk_dft(base, l, false);
  } else {
    chunk_dft(base, l, true);
    chunk_subset(base, l, false);
  }
}
