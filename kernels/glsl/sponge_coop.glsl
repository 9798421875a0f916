// The duplex sponge (protocol.md 2.5) run by the 16 invocations of one workgroup together: each
// invocation holds one state lane, and the Poseidon2 rounds exchange lanes through shared memory.
// One thread running the whole permutation alone is latency-bound (about 10 us per permutation on
// an H100); sixteen cooperating shorten the dependency chain several times. Same bits as
// transcript.glsl and DuplexSponge: field arithmetic is exact, so the order of additions is free.
//
// Use: workgroup size 16 (the kernel tag asks for it), one workgroup, no invocation returns early.
// The including kernel enables GL_EXT_control_flow_attributes: every loop here is unrolled so that
// the small arrays stay in registers.
#ifndef VKSTARK_SPONGE_COOP_GLSL
#define VKSTARK_SPONGE_COOP_GLSL

#include "poseidon2.glsl"

const uint P2C_DIAG[16] = uint[16](VKSTARK_P2_INTERNAL_DIAG);
// Two exchange arrays used in turn: a step writes the one the previous step did not read, so it
// needs no barrier before writing, only one after (barriers are most of the cost here).
shared uint p2c_sh[16];
shared uint p2c_sh2[16];

uint p2c_lane() { return gl_LocalInvocationID.x; }

// External layer: the 4x4 block on each chunk of four lanes, then the column sums. Writes p2c_sh
// then p2c_sh2; the step after it writes p2c_sh again, whose last reads lie before the barrier
// that precedes the p2c_sh2 reads.
void p2c_external(inout uint x) {
  const uint lane = p2c_lane(), c0 = lane & 12u, k = lane & 3u;
  p2c_sh[lane] = x;
  barrier();
  const uint a = p2c_sh[c0], b = p2c_sh[c0 + 1u], c = p2c_sh[c0 + 2u], d = p2c_sh[c0 + 3u];
  // Row k of [[2,3,1,1],[1,2,3,1],[1,1,2,3],[3,1,1,2]] = (a + b + c + d) + one of these.
  uint extra = k == 0u ? fp_add(a, fp_double(b)) : k == 1u ? fp_add(b, fp_double(c))
             : k == 2u ? fp_add(c, fp_double(d)) : fp_add(fp_double(a), d);
  const uint y = fp_add(fp_add(fp_add(a, b), fp_add(c, d)), extra);
  p2c_sh2[lane] = y;
  barrier();
  const uint s = fp_add(fp_add(p2c_sh2[k], p2c_sh2[4u + k]), fp_add(p2c_sh2[8u + k], p2c_sh2[12u + k]));
  x = fp_add(y, s);
}

// The constants one lane needs, loaded into registers once per kernel: indexing the constant
// tables by lane inside every round would make sixteen different constant-memory reads per access.
struct P2cLaneConsts {
  uint ext_init[4];
  uint ext_term[4];
  uint diag;
};

P2cLaneConsts p2c_lane_consts() {
  const uint lane = p2c_lane();
  P2cLaneConsts c;
  [[unroll]] for (uint r = 0u; r < 4u; ++r) {
    c.ext_init[r] = P2_RC_EXT_INIT[16u * r + lane];
    c.ext_term[r] = P2_RC_EXT_TERM[16u * r + lane];
  }
  c.diag = P2C_DIAG[lane];
  return c;
}

// Internal layer: x_i = sum_j x_j + V_i x_i (the sum as a balanced tree of independent additions).
// Uses the array given: partial rounds alternate between the two, so that a round's write never
// meets the previous round's reads without a barrier between them.
void p2c_internal(inout uint x, uint diag, bool second) {
  uint v[16];
  if (second) {
    p2c_sh2[p2c_lane()] = x;
    barrier();
    [[unroll]] for (uint j = 0u; j < 16u; ++j) v[j] = p2c_sh2[j];
  } else {
    p2c_sh[p2c_lane()] = x;
    barrier();
    [[unroll]] for (uint j = 0u; j < 16u; ++j) v[j] = p2c_sh[j];
  }
  [[unroll]] for (uint w = 8u; w > 0u; w >>= 1u)
    [[unroll]] for (uint j = 0u; j < w; ++j) v[j] = fp_add(v[j], v[j + w]);
  x = fp_add(v[0], fp_mul(x, diag));
}

void p2c_permute(inout uint x, P2cLaneConsts c) {
  barrier();  // whatever read p2c_sh / p2c_sh2 before is done
  p2c_external(x);
  [[unroll]] for (uint r = 0u; r < 4u; ++r) {
    x = p2_sbox(fp_add(x, c.ext_init[r]));
    p2c_external(x);
  }
  // The external layer before ended reading p2c_sh2: the first partial round writes p2c_sh.
  [[unroll]] for (uint r = 0u; r < 13u; ++r) {
    if (p2c_lane() == 0u) x = p2_sbox(fp_add(x, P2_RC_INT[r]));
    p2c_internal(x, c.diag, (r & 1u) == 1u);
  }
  // The last partial round (r = 12) read p2c_sh; the external layer writes p2c_sh first: that
  // needs a barrier between.
  barrier();
  [[unroll]] for (uint r = 0u; r < 4u; ++r) {
    x = p2_sbox(fp_add(x, c.ext_term[r]));
    p2c_external(x);
  }
}

// This invocation's lane of the state plus the (uniform) indices of a SpongeState.
struct CoopSponge {
  uint x;
  uint absorb_idx;
  uint sample_idx;
  P2cLaneConsts consts;
};

// Loads the SpongeState at words arr[base .. base + 18) / stores it back (macros: buffers cannot
// be function arguments in GLSL).
#define COOP_SPONGE_LOAD(sp, arr, base)     \
  {                                         \
    uint b_ = (base);                       \
    sp.consts = p2c_lane_consts();          \
    sp.x = arr[b_ + p2c_lane()];            \
    sp.absorb_idx = arr[b_ + 16u];          \
    sp.sample_idx = arr[b_ + 17u];          \
  }
#define COOP_SPONGE_STORE(sp, arr, base)    \
  {                                         \
    uint b_ = (base);                       \
    arr[b_ + p2c_lane()] = sp.x;            \
    if (p2c_lane() == 0u) {                 \
      arr[b_ + 16u] = sp.absorb_idx;        \
      arr[b_ + 17u] = sp.sample_idx;        \
    }                                       \
  }

void coop_sponge_permute(inout CoopSponge sp) {
  p2c_permute(sp.x, sp.consts);
  sp.absorb_idx = 0u;
  sp.sample_idx = P2_RATE;
}

// observe(v): overwrite lane absorb_idx; a full block permutes.
void coop_sponge_observe(inout CoopSponge sp, uint v) {
  if (p2c_lane() == sp.absorb_idx) sp.x = v;
  sp.absorb_idx += 1u;
  if (sp.absorb_idx == P2_RATE) coop_sponge_permute(sp);
}

// sample(): the squeezed lane, broadcast to every invocation.
uint coop_sponge_sample(inout CoopSponge sp) {
  if (sp.absorb_idx != 0u || sp.sample_idx == 0u) coop_sponge_permute(sp);
  sp.sample_idx -= 1u;
  barrier();  // previous readers of p2c_sh are done
  p2c_sh[p2c_lane()] = sp.x;
  barrier();
  return p2c_sh[sp.sample_idx];
}

uint coop_sponge_sample_bits(inout CoopSponge sp, uint bits) {
  const uint mask = bits >= 32u ? 0xFFFFFFFFu : (1u << bits) - 1u;
  return fp_to_canonical(coop_sponge_sample(sp)) & mask;
}

#endif
