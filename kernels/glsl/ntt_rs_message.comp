#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "abi/ntt_rs_message.glsl"
#include "ntt.glsl"
#include "rs_message.glsl"
// NttRsMessage (kernels/ntt.hpp, protocol.md 6.3 step 1): per chunk of 2^log_chunk entries, in place,
// iDFT then subset-zeta over the chunk's index bits (inverse: subset-Möbius then DFT). One invocation
// per chunk. Chunks of up to 16 entries (l_skip <= 4, the common case) are transformed in registers;
// the workgroup stages its consecutive chunks through shared memory so that global loads and stores
// are coalesced. Larger chunks (up to 2^10 entries) are transformed where they lie.

// Staging for the chunks of one workgroup (WG = NttRsMessage::workgroup_size invocations, at most
// 16 entries each), one pad word after every 16 so that invocation t's chunk (words 17 t ..) and
// its neighbours' fall in different banks.
const uint STAGE_WORDS = WG * 17u;
shared uint stage_[STAGE_WORDS];
uint stage_slot(uint e) { return e + (e >> 4); }

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
  const uint c = vks_index_y();
  const uint l = pc.log_chunk;
  const bool inverse = pc.inverse != 0u;
  const uint col = pc.data_off + c * pc.col_stride;
  if (l <= 4u && gl_WorkGroupSize.x * 17u <= STAGE_WORDS) {
    // This workgroup's chunks are consecutive: [first, first + wg) (those < grid_x exist). Every
    // invocation takes part in the coalesced copies and the barriers.
    const uint wg = gl_WorkGroupSize.x;
    const uint lid = gl_LocalInvocationID.x;
    const uint first = i - lid;
    const uint chunks = min(wg, pc.grid_x - min(first, pc.grid_x));
    const uint words = chunks << l;
    const uint base = col + (first << l);
    for (uint e = lid; e < words; e += wg) stage_[stage_slot(e)] = data_[base + e];
    barrier();
    if (lid < chunks) {
      const uint at = lid << l;
      uint v[16];
      [[unroll]] for (uint j = 0u; j < 16u; ++j) {
        if (j < (1u << l)) v[j] = stage_[stage_slot(at + (inverse ? j : small_rev(j, l)))];
      }
      if (inverse)
        small_message_inverse(v, l);
      else
        small_message(v, l);
      [[unroll]] for (uint j = 0u; j < 16u; ++j) {
        if (j < (1u << l)) stage_[stage_slot(at + (inverse ? small_rev(j, l) : j))] = v[j];
      }
    }
    barrier();
    for (uint e = lid; e < words; e += wg) data_[base + e] = stage_[stage_slot(e)];
    return;
  }
  if (i >= pc.grid_x) return;
  const uint base = col + (i << l);
  if (inverse) {
    chunk_subset(base, l, true);
    chunk_dft(base, l, false);
  } else {
    chunk_dft(base, l, true);
    chunk_subset(base, l, false);
  }
}
