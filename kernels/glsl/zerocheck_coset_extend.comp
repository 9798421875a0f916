#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "abi/zerocheck_coset_extend.glsl"
#include "fp.glsl"
// ZerocheckCosetExtend (kernels/batch_constraint.hpp): invocation (c, x) writes
// out[c N B + k B + x] = sum_{i < N} W[k][i] in[c H + (((first_chunk + x) N + i + shift) mod H)]
// for every k < N (B = 2^log_chunks chunks of the block).
//
// N = 16: the workgroup's 256 chunks are staged through shared memory (each load instruction reads
// consecutive words), and a chunk's values come from its coefficients: an inverse DFT of 16 points,
// the coset's shift s_j = g^(c j) / 16, a forward DFT (49 products instead of 256).
// Other N: W's products summed in 64 bits (hi, lo words), folded to lo + hi (2^32 mod p) < 2^61
// after every third one, Montgomery-reduced once per value (the constraint kernel's lazy fold,
// stages/compiler/eval_glsl.cpp).

const uint PAD = 17u;  // 16 values per chunk and a spare word: conflict-free reads of a chunk
shared uint stage_[WG * PAD];

const uint REV16[16] = uint[16](0u, 8u, 4u, 12u, 2u, 10u, 6u, 14u, 1u, 9u, 5u, 13u, 3u, 11u, 7u, 15u);

// a <- DFT_16(a) with twiddles tw[j] = w^j (w = omega_16 or its inverse): radix 2, decimation in
// time from bit-reversed order, natural order out.
void dft16(inout uint a[16], const uint tw[8]) {
  uint b[16];
  [[unroll]] for (uint i = 0u; i < 16u; ++i) b[i] = a[REV16[i]];
  [[unroll]] for (uint s = 1u; s <= 4u; ++s) {
    const uint m = 1u << s, half_ = m >> 1u;
    [[unroll]] for (uint k = 0u; k < 16u; k += m) {
      [[unroll]] for (uint j = 0u; j < half_; ++j) {
        const uint t = j == 0u ? b[k + j + half_] : fp_mul(tw[j * (16u / m)], b[k + j + half_]);
        const uint u = b[k + j];
        b[k + j] = fp_add(u, t);
        b[k + j + half_] = fp_sub(u, t);
      }
    }
  }
  a = b;
}

void extend16(uint o) {
  const uint lid = gl_LocalInvocationID.x, h = 1u << pc.log_height, chunks = 1u << pc.log_chunks;
  const uint first_o = o - lid;
  // Word w of the workgroup's chunk list (chunk w / 16, row w mod 16): consecutive invocations load
  // consecutive rows of a column.
  [[unroll]] for (uint t = 0u; t < 16u; ++t) {
    const uint w = lid + WG * t, j = w >> 4u, oj = first_o + j;
    if (oj < pc.grid_x) {
      const uint c = oj >> pc.log_chunks, x = oj & (chunks - 1u);
      const uint row = ((pc.first_chunk + x) * 16u + (w & 15u) + pc.shift) & (h - 1u);
      stage_[j * PAD + (w & 15u)] = in_[pc.in_off + c * h + row];
    }
  }
  barrier();
  if (o >= pc.grid_x) return;
  uint tw[8], itw[8], a[16];
  [[unroll]] for (uint j = 0u; j < 8u; ++j) {
    tw[j] = fft_[pc.fft_off + j];
    itw[j] = fft_[pc.fft_off + 8u + j];
  }
  [[unroll]] for (uint i = 0u; i < 16u; ++i) a[i] = stage_[lid * PAD + i];
  dft16(a, itw);  // 16 x the coefficients
  [[unroll]] for (uint j = 1u; j < 16u; ++j) a[j] = fp_mul(a[j], fft_[pc.fft_off + 16u + j]);
  a[0] = fp_mul(a[0], fft_[pc.fft_off + 16u]);
  dft16(a, tw);  // the values at g^c omega^k
  const uint c = o >> pc.log_chunks, x = o & (chunks - 1u);
  uint dst = pc.out_off + c * (chunks << 4u) + x;
  [[unroll]] for (uint k = 0u; k < 16u; ++k) {
    out_[dst] = a[k];
    dst += chunks;
  }
}

void extend_any(uint o) {
  if (o >= pc.grid_x) return;
  const uint n = 1u << pc.log_n, h = 1u << pc.log_height;
  const uint chunks = 1u << pc.log_chunks;
  const uint c = o >> pc.log_chunks, x = o & (chunks - 1u);
  const uint src = pc.in_off + c * h, first = (pc.first_chunk + x) * n + pc.shift;
  uint dst = pc.out_off + c * (chunks << pc.log_n) + x;
  for (uint k = 0u; k < n; ++k) {
    const uint wrow = pc.weights_off + k * n;
    uint hi = 0u, lo = 0u, ph, pl, cy, since_fold = 0u;
    for (uint i = 0u; i < n; ++i) {
      umulExtended(weights_[wrow + i], in_[src + ((first + i) & (h - 1u))], ph, pl);
      lo = uaddCarry(lo, pl, cy);
      hi += ph + cy;
      if (++since_fold == 3u) {
        umulExtended(hi, FP_ONE, ph, pl);
        lo = uaddCarry(lo, pl, cy);
        hi = ph + cy;
        since_fold = 0u;
      }
    }
    umulExtended(hi, FP_ONE, ph, pl);
    lo = uaddCarry(lo, pl, cy);
    hi = ph + cy;
    // Below 2^61 < p 2^32: the reduction of fp_mul gives the value in [0, p).
    umulExtended(lo * FP_MU, FP_P, ph, pl);
    out_[dst] = hi < ph ? hi - ph + FP_P : hi - ph;
    dst += chunks;
  }
}

void main() {
  const uint o = vks_index_x();
  // Uniform: every invocation of the workgroup reaches extend16's barrier.
  if (pc.log_n == 4u && gl_WorkGroupSize.x == WG && pc.fft_len == 32u)
    extend16(o);
  else
    extend_any(o);
}
