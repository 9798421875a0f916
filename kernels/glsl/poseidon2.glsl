// Poseidon2 over BabyBear, width 16, x^7 S-box, 4 + 4 full rounds and 13 partial rounds
// (protocol.md 2.1): the GLSL twin of kernels/hash/poseidon2.hpp, with the same round structure and
// the same constants (kernels/hash/poseidon2_constants.h, Montgomery form). State lanes are
// Montgomery-form uints. Including kernels enable GL_EXT_control_flow_attributes.
//
// Performance: the state stays in registers: every lane index below is a compile-time constant
// (each round's lanes are expanded by macros), so the state array is never indexed dynamically. The internal diagonal is applied with additions and exact halvings
// (fp_halve_k) instead of multiplications.
#ifndef VKSTARK_POSEIDON2_GLSL
#define VKSTARK_POSEIDON2_GLSL

#include "fp.glsl"
#include "kernels/hash/poseidon2_constants.h"

const uint P2_WIDTH = 16u;
const uint P2_RATE = 8u;  // sponge rate = digest size

const uint P2_RC_EXT_INIT[64] = uint[64](VKSTARK_P2_RC_EXTERNAL_INITIAL);
const uint P2_RC_EXT_TERM[64] = uint[64](VKSTARK_P2_RC_EXTERNAL_TERMINAL);
const uint P2_RC_INT[13] = uint[13](VKSTARK_P2_RC_INTERNAL);

// x^7 with 4 multiplications, as poseidon2_detail::sbox.
uint p2_sbox(uint x) {
  uint x2 = fp_square(x);
  uint x3 = fp_mul(x2, x);
  uint x4 = fp_square(x2);
  return fp_mul(x4, x3);
}

// The 4x4 block [[2,3,1,1],[1,2,3,1],[1,1,2,3],[3,1,1,2]] (poseidon2_detail::apply_mat4).
void p2_mat4(inout uint x0, inout uint x1, inout uint x2, inout uint x3) {
  uint t01 = fp_add(x0, x1);
  uint t23 = fp_add(x2, x3);
  uint t0123 = fp_add(t01, t23);
  uint t01123 = fp_add(t0123, x1);
  uint t01233 = fp_add(t0123, x3);
  uint y3 = fp_add(t01233, fp_double(x0));
  uint y1 = fp_add(t01123, fp_double(x2));
  uint y0 = fp_add(t01123, t01);
  uint y2 = fp_add(t01233, t23);
  x0 = y0;
  x1 = y1;
  x2 = y2;
  x3 = y3;
}

// External layer M_E = circ(2M, M, M, M): M on each chunk of 4, then add the column sums.
void p2_external(inout uint s[16]) {
  p2_mat4(s[0], s[1], s[2], s[3]);
  p2_mat4(s[4], s[5], s[6], s[7]);
  p2_mat4(s[8], s[9], s[10], s[11]);
  p2_mat4(s[12], s[13], s[14], s[15]);
  uint c0 = fp_add(fp_add(s[0], s[4]), fp_add(s[8], s[12]));
  uint c1 = fp_add(fp_add(s[1], s[5]), fp_add(s[9], s[13]));
  uint c2 = fp_add(fp_add(s[2], s[6]), fp_add(s[10], s[14]));
  uint c3 = fp_add(fp_add(s[3], s[7]), fp_add(s[11], s[15]));
  s[0] = fp_add(s[0], c0);
  s[1] = fp_add(s[1], c1);
  s[2] = fp_add(s[2], c2);
  s[3] = fp_add(s[3], c3);
  s[4] = fp_add(s[4], c0);
  s[5] = fp_add(s[5], c1);
  s[6] = fp_add(s[6], c2);
  s[7] = fp_add(s[7], c3);
  s[8] = fp_add(s[8], c0);
  s[9] = fp_add(s[9], c1);
  s[10] = fp_add(s[10], c2);
  s[11] = fp_add(s[11], c3);
  s[12] = fp_add(s[12], c0);
  s[13] = fp_add(s[13], c1);
  s[14] = fp_add(s[14], c2);
  s[15] = fp_add(s[15], c3);
}

// Internal layer M_I = 1 1^T + diag(V): s_i = sum + V_i s_i with
// V = [-2, 1, 2, 1/2, 3, 4, -1/2, -3, -4, 1/2^8, 1/4, 1/8, 1/2^27, -1/2^8, -1/16, -1/2^27]
// (VKSTARK_P2_INTERNAL_DIAG), by additions, subtractions and exact halvings.
void p2_internal(inout uint s[16]) {
  uint sum = fp_add(fp_add(fp_add(fp_add(s[0], s[1]), fp_add(s[2], s[3])), fp_add(fp_add(s[4], s[5]), fp_add(s[6], s[7]))),
                    fp_add(fp_add(fp_add(s[8], s[9]), fp_add(s[10], s[11])), fp_add(fp_add(s[12], s[13]), fp_add(s[14], s[15]))));
  s[0] = fp_sub(sum, fp_double(s[0]));                    // -2
  s[1] = fp_add(sum, s[1]);                               // 1
  s[2] = fp_add(sum, fp_double(s[2]));                    // 2
  s[3] = fp_add(sum, fp_halve_k(s[3], 1u));               // 1/2
  s[4] = fp_add(sum, fp_add(fp_double(s[4]), s[4]));      // 3
  s[5] = fp_add(sum, fp_double(fp_double(s[5])));         // 4
  s[6] = fp_sub(sum, fp_halve_k(s[6], 1u));               // -1/2
  s[7] = fp_sub(sum, fp_add(fp_double(s[7]), s[7]));      // -3
  s[8] = fp_sub(sum, fp_double(fp_double(s[8])));         // -4
  s[9] = fp_add(sum, fp_halve_k(s[9], 8u));               // 1/2^8
  s[10] = fp_add(sum, fp_halve_k(s[10], 2u));             // 1/4
  s[11] = fp_add(sum, fp_halve_k(s[11], 3u));             // 1/8
  s[12] = fp_add(sum, fp_halve_k(s[12], 27u));            // 1/2^27
  s[13] = fp_sub(sum, fp_halve_k(s[13], 8u));             // -1/2^8
  s[14] = fp_sub(sum, fp_halve_k(s[14], 4u));             // -1/16
  s[15] = fp_sub(sum, fp_halve_k(s[15], 27u));            // -1/2^27
}

// Lane i of a full round: add the round constant RC[b + i], then the S-box.
#define P2_ARK_SBOX(RC, b, i) s[i] = p2_sbox(fp_add(s[i], RC[(b) + (i)]))
// One full round with the constants RC[b .. b + 16).
#define P2_FULL_ROUND(RC, b)                                                                       \
  P2_ARK_SBOX(RC, b, 0); P2_ARK_SBOX(RC, b, 1); P2_ARK_SBOX(RC, b, 2); P2_ARK_SBOX(RC, b, 3);     \
  P2_ARK_SBOX(RC, b, 4); P2_ARK_SBOX(RC, b, 5); P2_ARK_SBOX(RC, b, 6); P2_ARK_SBOX(RC, b, 7);     \
  P2_ARK_SBOX(RC, b, 8); P2_ARK_SBOX(RC, b, 9); P2_ARK_SBOX(RC, b, 10); P2_ARK_SBOX(RC, b, 11);   \
  P2_ARK_SBOX(RC, b, 12); P2_ARK_SBOX(RC, b, 13); P2_ARK_SBOX(RC, b, 14); P2_ARK_SBOX(RC, b, 15); \
  p2_external(s)

// The permutation, in place (poseidon2_permute_generic). The rounds are loops, not unrolled: one
// round's code per kind keeps a kernel small enough for drivers to compile quickly (NVIDIA: about
// 0.36 s against 1.5 s for the unrolled rounds, at the same 2.8 G permutations/s on an H100), and
// the round constants are read from constant tables by a uniform index.
void poseidon2_permute(inout uint s[16]) {
  p2_external(s);
  [[dont_unroll]] for (uint r = 0u; r < 4u; ++r) {
    P2_FULL_ROUND(P2_RC_EXT_INIT, 16u * r);
  }
  [[dont_unroll]] for (uint r = 0u; r < 13u; ++r) {
    s[0] = p2_sbox(fp_add(s[0], P2_RC_INT[r]));
    p2_internal(s);
  }
  [[dont_unroll]] for (uint r = 0u; r < 4u; ++r) {
    P2_FULL_ROUND(P2_RC_EXT_TERM, 16u * r);
  }
}

#undef P2_ARK_SBOX
#undef P2_FULL_ROUND

// Lane k of s for a run-time k < 16, by selects over constant indices (no dynamic indexing, which
// would move the state out of registers).
uint p2_get_lane(uint s[16], uint k) {
  uint v = s[0];
  if (k == 1u) v = s[1];
  if (k == 2u) v = s[2];
  if (k == 3u) v = s[3];
  if (k == 4u) v = s[4];
  if (k == 5u) v = s[5];
  if (k == 6u) v = s[6];
  if (k == 7u) v = s[7];
  if (k == 8u) v = s[8];
  if (k == 9u) v = s[9];
  if (k == 10u) v = s[10];
  if (k == 11u) v = s[11];
  if (k == 12u) v = s[12];
  if (k == 13u) v = s[13];
  if (k == 14u) v = s[14];
  if (k == 15u) v = s[15];
  return v;
}

// s[k] = v for a run-time rate lane k < 8 (larger k: no effect), by selects over constant indices.
void p2_set_rate_lane(inout uint s[16], uint k, uint v) {
  s[0] = (k == 0u) ? v : s[0];
  s[1] = (k == 1u) ? v : s[1];
  s[2] = (k == 2u) ? v : s[2];
  s[3] = (k == 3u) ? v : s[3];
  s[4] = (k == 4u) ? v : s[4];
  s[5] = (k == 5u) ? v : s[5];
  s[6] = (k == 6u) ? v : s[6];
  s[7] = (k == 7u) ? v : s[7];
}

// compress(left, right) = Perm(left || right)[0..8] (protocol.md 2.3), digests as two uvec4 each.
void p2_compress(uvec4 l0, uvec4 l1, uvec4 r0, uvec4 r1, out uvec4 o0, out uvec4 o1) {
  uint s[16] = uint[16](l0.x, l0.y, l0.z, l0.w, l1.x, l1.y, l1.z, l1.w, r0.x, r0.y, r0.z, r0.w, r1.x, r1.y, r1.z, r1.w);
  poseidon2_permute(s);
  o0 = uvec4(s[0], s[1], s[2], s[3]);
  o1 = uvec4(s[4], s[5], s[6], s[7]);
}

#endif
