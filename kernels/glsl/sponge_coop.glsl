// The duplex sponge (protocol.md 2.5) run by 16 invocations together: each holds one Poseidon2
// state lane. One thread running the whole permutation alone is latency-bound (about 10 us per
// permutation on an H100); sixteen cooperating shorten the dependency chain several times. Same
// bits as transcript.glsl and DuplexSponge: field arithmetic is exact, so any order of additions
// and any rewriting of the linear layers gives the same state.
//
// Groups: a workgroup holds P2C_GROUPS independent groups of 16 invocations, each with its own
// sponge state; p2c_lane() and p2c_group() say which. The including kernel declares P2C_GROUPS in
// its generated interface (sponge_coop_groups in its constants, kernels/types.hpp) before
// including this file. Every group runs the same control flow (the exchanges below synchronise
// the whole workgroup on the shared-memory path) and no invocation returns early. The workgroup
// size must be 16 * P2C_GROUPS.
//
// Two ways to exchange lanes, chosen by specialization constants so that the unused one is folded
// away when the pipeline is created:
// - subgroup shuffles where the executor turns them on (VKS_SUBGROUP_SHUFFLE: a fixed subgroup size
//   of 16 or 32, the sizes this path is tested at; each group then lies in one subgroup);
// - shared memory and barrier() otherwise (subgroups of 4, 8 or 64, sizes that vary), one barrier
//   per exchange: correct whatever the subgroup size.
//
// The including kernel enables GL_EXT_control_flow_attributes (the loops over lanes are unrolled,
// so the small arrays stay in registers), GL_KHR_shader_subgroup_basic and GL_KHR_shader_subgroup_shuffle.
#ifndef VKSTARK_SPONGE_COOP_GLSL
#define VKSTARK_SPONGE_COOP_GLSL

#include "poseidon2.glsl"

// Shuffles within subgroups of 16 or 32 invocations (the executor's rule; the size test is kept as a
// guard); shared memory otherwise. (One integer comparison: glslang turns && of specialization
// constants into run-time control flow.)
const bool P2C_SUBGROUP = ((VKS_SUBGROUP_SHUFFLE << 4u) | (VKS_SUBGROUP_SIZE & 15u)) == 16u;

const uint P2C_DIAG[16] = uint[16](VKSTARK_P2_INTERNAL_DIAG);

// This invocation's state lane in [0, 16) and its group in [0, P2C_GROUPS). The subgroup path
// assumes what every implementation does for a one-dimensional workgroup: invocation i is
// invocation i mod S of subgroup i / S (S the subgroup size, a multiple of 16), so that lane ^ m
// (m < 16) is a shuffle by subgroup invocation ^ m within the group. (Not derived from
// gl_SubgroupID * gl_SubgroupSize + gl_SubgroupInvocationID: lavapipe with LP_NATIVE_VECTOR_WIDTH
// of 1024 or 2048 reports subgroups of 32 or 64 but runs them 16 wide, gl_SubgroupID counting
// 16-wide subgroups.)
uint p2c_lane() { return gl_LocalInvocationID.x & 15u; }
uint p2c_group() { return gl_LocalInvocationID.x >> 4; }

// ---------------------------------------------------------------------------------------------
// Exchanges. Shared-memory path: two buffers used in turn. An exchange writes one, waits at a
// barrier, then reads it; the next exchange writes the other one, and the one after that writes
// this one again only after every invocation has passed the barrier of the exchange between,
// that is after all reads of this one. So one barrier per exchange suffices.
shared uvec4 p2c_xchg[2][16u * P2C_GROUPS];
uint p2c_turn = 0u;

// Publishes v for the other lanes of the group; returns the buffer to read.
uint p2c_publish(uvec4 v) {
  const uint t = p2c_turn;
  p2c_turn ^= 1u;
  p2c_xchg[t][16u * p2c_group() + p2c_lane()] = v;
  barrier();
  return t;
}

uvec4 p2c_add4(uvec4 a, uvec4 b) {
  uvec4 s = a + b;
  return min(s, s - FP_P);
}

// The values v of lanes lane ^ m1, lane ^ m2, lane ^ m3 (constant masks below 16): three
// independent shuffles issued back to back.
uvec3 p2c_xor3(uint v, uint m1, uint m2, uint m3) {
  if (P2C_SUBGROUP) return uvec3(subgroupShuffleXor(v, m1), subgroupShuffleXor(v, m2), subgroupShuffleXor(v, m3));
  const uint t = p2c_publish(uvec4(v, 0u, 0u, 0u)), b = 16u * p2c_group(), l = p2c_lane();
  return uvec3(p2c_xchg[t][b + (l ^ m1)].x, p2c_xchg[t][b + (l ^ m2)].x, p2c_xchg[t][b + (l ^ m3)].x);
}

// The values v of the lanes k + 1, k + 2, k + 3 (mod 4) of this lane's chunk of four, k being this
// lane's place in it.
uvec3 p2c_chunk_next3(uint v) {
  if (P2C_SUBGROUP) {
    const uint id = gl_SubgroupInvocationID, c = id & ~3u;
    return uvec3(subgroupShuffle(v, c | ((id + 1u) & 3u)), subgroupShuffle(v, c | ((id + 2u) & 3u)),
                 subgroupShuffle(v, c | ((id + 3u) & 3u)));
  }
  const uint t = p2c_publish(uvec4(v, 0u, 0u, 0u)), l = 16u * p2c_group() + p2c_lane(), c = l & ~3u;
  return uvec3(p2c_xchg[t][c | ((l + 1u) & 3u)].x, p2c_xchg[t][c | ((l + 2u) & 3u)].x,
               p2c_xchg[t][c | ((l + 3u) & 3u)].x);
}

// The sum of v over the group's 16 lanes, on every lane: the other three lanes of each chunk of
// four, then the same lane of the other three chunks (two shuffle latencies, six shuffles).
uint p2c_sum16(uint v) {
  if (P2C_SUBGROUP) {
    const uvec3 a = p2c_xor3(v, 1u, 2u, 3u);
    const uint c = fp_add(fp_add(v, a.x), fp_add(a.y, a.z));
    const uvec3 b = p2c_xor3(c, 4u, 8u, 12u);
    return fp_add(fp_add(c, b.x), fp_add(b.y, b.z));
  }
  const uint t = p2c_publish(uvec4(v, 0u, 0u, 0u)), b = 16u * p2c_group();
  uint s[16];
  [[unroll]] for (uint j = 0u; j < 16u; ++j) s[j] = p2c_xchg[t][b + j].x;
  [[unroll]] for (uint w = 8u; w > 0u; w >>= 1u)
    [[unroll]] for (uint j = 0u; j < w; ++j) s[j] = fp_add(s[j], s[j + w]);
  return s[0];
}

// Four sums at once (one exchange on the shared-memory path).
uvec4 p2c_sum16_4(uvec4 v) {
  if (P2C_SUBGROUP) {
    const uvec4 c = p2c_add4(p2c_add4(v, subgroupShuffleXor(v, 1u)),
                             p2c_add4(subgroupShuffleXor(v, 2u), subgroupShuffleXor(v, 3u)));
    return p2c_add4(p2c_add4(c, subgroupShuffleXor(c, 4u)),
                    p2c_add4(subgroupShuffleXor(c, 8u), subgroupShuffleXor(c, 12u)));
  }
  const uint t = p2c_publish(v), b = 16u * p2c_group();
  uvec4 s[16];
  [[unroll]] for (uint j = 0u; j < 16u; ++j) s[j] = p2c_xchg[t][b + j];
  [[unroll]] for (uint w = 8u; w > 0u; w >>= 1u)
    [[unroll]] for (uint j = 0u; j < w; ++j) s[j] = p2c_add4(s[j], s[j + w]);
  return s[0];
}

// ---------------------------------------------------------------------------------------------
// The permutation.

// The constants one lane needs, in registers for the whole kernel: indexing the constant tables
// by lane inside every round would make sixteen different constant-memory reads per access.
struct P2cLaneConsts {
  uint ext_init[4];
  uint ext_term[4];
  uint diag;   // V_lane (internal layer)
  uint diag2;  // V_lane^2, 0 on lane 0
  uint c1;     // sum of V_i over i = 1..15
  uint c15;    // 15
};

P2cLaneConsts p2c_lane_consts() {
  const uint lane = p2c_lane();
  P2cLaneConsts c;
  [[unroll]] for (uint r = 0u; r < 4u; ++r) {
    c.ext_init[r] = P2_RC_EXT_INIT[16u * r + lane];
    c.ext_term[r] = P2_RC_EXT_TERM[16u * r + lane];
  }
  c.diag = P2C_DIAG[lane];
  c.diag2 = lane == 0u ? 0u : fp_mul(c.diag, c.diag);
  c.c1 = 0u;
  [[unroll]] for (uint i = 1u; i < 16u; ++i) c.c1 = fp_add(c.c1, P2C_DIAG[i]);
  c.c15 = fp_from_canonical(15u);
  return c;
}

// x^7 (as p2_sbox) arranged for the latency of one chain rather than for instructions: a Montgomery
// product needs u = lo(a b) p^-1 mod 2^32, which is a (b p^-1) mod 2^32 for an operand b
// premultiplied beside it; for a product r = h - q (+ p when h < q), r p^-1 = h p^-1 - q p^-1 (+ 1,
// as p p^-1 = 1) is ready with r itself. So u no longer waits for the product's low word. H100,
// one chain (kernel_bench --only latency, 2026-11-27): 73.4 ns against 82.0 for p2_sbox.
uint p2c_sbox(uint x) {
  uint h2, l2, q2, t, h3, l3, q3, h4, l4, q4, h7, l7, q7;
  const uint xmu = x * FP_MU;
  umulExtended(x, x, h2, l2);
  umulExtended(x * xmu, FP_P, q2, t);
  const uint x2 = h2 < q2 ? h2 - q2 + FP_P : h2 - q2, x2mu = h2 * FP_MU - q2 * FP_MU + (h2 < q2 ? 1u : 0u);
  umulExtended(x2, x, h3, l3);
  umulExtended(x2 * xmu, FP_P, q3, t);
  umulExtended(x2, x2, h4, l4);
  umulExtended(x2 * x2mu, FP_P, q4, t);
  const uint x3 = h3 < q3 ? h3 - q3 + FP_P : h3 - q3, x3mu = h3 * FP_MU - q3 * FP_MU + (h3 < q3 ? 1u : 0u);
  const uint x4 = h4 < q4 ? h4 - q4 + FP_P : h4 - q4;
  umulExtended(x4, x3, h7, l7);
  umulExtended(x4 * x3mu, FP_P, q7, t);
  return h7 < q7 ? h7 - q7 + FP_P : h7 - q7;
}

// M_E(x) + a. M_E is the 4x4 block M on each chunk of four lanes, then each lane adds the sum of
// its column (the same lane of every chunk). Row k of M = [[2,3,1,1],[1,2,3,1],[1,1,2,3],[3,1,1,2]]
// is (sum of the chunk) + x_k + 2 x_(k+1 mod 4). Critical path: a shuffle, three additions, a
// shuffle, two additions (the constant `a` of the next round joins while the second shuffle is
// under way).
uint p2c_external_add(uint x, uint a) {
  const uvec3 n = p2c_chunk_next3(x);  // x_(k+1), x_(k+2), x_(k+3)
  const uint y = fp_add(fp_add(fp_add(x, n.y), fp_add(n.x, n.z)), fp_add(x, fp_double(n.x)));
  const uvec3 c = p2c_xor3(y, 4u, 8u, 12u);
  return fp_add(fp_add(fp_add(fp_double(y), a), c.x), fp_add(c.y, c.z));
}

// The 13 partial rounds on round-0 state x; returns the state after them plus `a` (the constant
// of the round that follows). A partial round passes lane 0 alone through the S-box, then sets
// x_i = S + V_i x_i with S the sum of the state, so lane 0's value is the whole critical path.
// Every lane follows lane 0's chain itself, from sums over lanes 1..15 that need no exchange on
// the chain (T: sum of x_i, W: of V_i x_i, U: of V_i^2 x_i, c1 = sum of V_i, all over i >= 1):
//   y_r = (x_0 + RC_r)^7,  S_r = y_r + T_r,  x_0 <- S_r + V_0 y_r = T_r - y_r  (V_0 = -2),
//   T_(r+1) = 15 S_r + W_r,  W_r = c1 S_(r-1) + U_(r-1)  (x_i = S_(r-1) + V_i x_i before).
// The one sum over lanes per round, U_r, is needed two rounds later, so its shuffles overlap the
// S-boxes. Critical path per round: a subtraction and the S-box (the round constant is added to
// T before).
//
// Kernels that define P2C_COMPACT get the rounds as a loop, not unrolled: less code for the driver
// to compile, a slower chain (H100, NVIDIA 580, 2026-11-27: 5.74 against 2.55 us per chained
// permutation alone in a loop; the U sums no longer overlap the S-boxes). Yet the scalar program,
// which defines it, proves keccakf 2^15 faster with it (42.7 against 44.0 ms in one run, MLE rounds
// 5.6 against 6.5), so it keeps it.
#ifdef P2C_COMPACT
#define P2C_PARTIAL_LOOP [[dont_unroll]]
#else
#define P2C_PARTIAL_LOOP [[unroll]]
#endif
uint p2c_partial_rounds(uint x, P2cLaneConsts c, uint a) {
  const bool first = p2c_lane() == 0u;
  const uvec4 s0 = p2c_sum16_4(first ? uvec4(0u, 0u, 0u, fp_add(x, P2_RC_INT[0]))
                                     : uvec4(x, fp_mul(c.diag, x), fp_mul(c.diag2, x), 0u));
  uint t = s0.x, w0 = s0.y, u_prev = 0u, z = s0.w, s_prev = 0u;
  P2C_PARTIAL_LOOP for (uint r = 0u; r < 13u; ++r) {
    uint u = s0.z;                                                // U_0
    if (r >= 1u && r <= 10u) u = p2c_sum16(fp_mul(c.diag2, x));  // U_r (lane 0 weighs 0)
    const uint y = p2c_sbox(z);                                    // z = x_0 + RC_r
    const uint s = fp_add(y, t);
    z = fp_sub(r < 12u ? fp_add(t, P2_RC_INT[min(r + 1u, 12u)]) : fp_add(t, a), y);
    x = fp_add(s, r < 12u ? fp_mul(c.diag, x) : fp_add(fp_mul(c.diag, x), a));
    if (r < 12u) t = fp_add(fp_mul(c.c15, s), r == 0u ? w0 : fp_add(fp_mul(c.c1, s_prev), u_prev));
    s_prev = s;
    u_prev = u;
  }
  return first ? z : x;
}

// The constant of external round r + 1 of a half (k: that half's four round constants of this lane).
uint p2c_next_constant(uint r, uint k[4]) { return r == 0u ? k[1] : r == 1u ? k[2] : r == 2u ? k[3] : 0u; }

// Poseidon2 (protocol.md 2.1) on the state whose lane p2c_lane() is x. Each round constant is
// added inside the linear layer before it. The full rounds are loops, not unrolled: the same
// latency on an H100 (2.59 us per chained permutation either way) and less code for the driver to
// compile (scalar_program's pipeline 1215 -> 1044 ms).
void p2c_permute(inout uint x, P2cLaneConsts c) {
  x = p2c_external_add(x, c.ext_init[0]);
  [[dont_unroll]] for (uint r = 0u; r < 4u; ++r) x = p2c_external_add(p2c_sbox(x), p2c_next_constant(r, c.ext_init));
  x = p2c_partial_rounds(x, c, c.ext_term[0]);
  [[dont_unroll]] for (uint r = 0u; r < 4u; ++r) x = p2c_external_add(p2c_sbox(x), p2c_next_constant(r, c.ext_term));
}

// ---------------------------------------------------------------------------------------------
// The sponge.

// This invocation's lane of the state plus the indices of a SpongeState (the same on every lane of
// the group).
struct CoopSponge {
  uint x;
  uint absorb_idx;
  uint sample_idx;
  P2cLaneConsts consts;
};

// Loads the SpongeState at words arr[base .. base + 18) / stores it back (macros: buffers cannot
// be function arguments in GLSL). With several groups, each passes the base of its own state.
#define COOP_SPONGE_LOAD(sp, arr, base) \
  {                                     \
    uint b_ = (base);                   \
    sp.consts = p2c_lane_consts();      \
    sp.x = arr[b_ + p2c_lane()];        \
    sp.absorb_idx = arr[b_ + 16u];      \
    sp.sample_idx = arr[b_ + 17u];      \
  }
#define COOP_SPONGE_STORE(sp, arr, base) \
  {                                      \
    uint b_ = (base);                    \
    arr[b_ + p2c_lane()] = sp.x;         \
    if (p2c_lane() == 0u) {              \
      arr[b_ + 16u] = sp.absorb_idx;     \
      arr[b_ + 17u] = sp.sample_idx;     \
    }                                    \
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

// observe(arr[off + i]) for i in [0, len), a block at a time: each lane loads its value of the
// block, and the values of the next block are loaded before the current one is permuted, so that
// the load overlaps the permutation. The first block fills lanes absorb_idx.. (as many as there
// are values), the others lanes 0.. .
#define COOP_SPONGE_OBSERVE(sp, arr, off, len)                                   \
  {                                                                              \
    const uint len_ = (len), off_ = (off), lane_ = p2c_lane();                   \
    uint lo_ = sp.absorb_idx, n_ = min(len_, P2_RATE - sp.absorb_idx), i_ = n_;  \
    uint v_ = 0u;                                                                \
    if (lane_ >= lo_ && lane_ - lo_ < n_) v_ = arr[off_ + lane_ - lo_];          \
    while (true) {                                                               \
      if (lane_ >= lo_ && lane_ - lo_ < n_) sp.x = v_;                           \
      sp.absorb_idx = lo_ + n_;                                                  \
      if (sp.absorb_idx < P2_RATE) break;                                        \
      lo_ = 0u;                                                                  \
      n_ = min(len_ - i_, P2_RATE);                                              \
      if (lane_ < n_) v_ = arr[off_ + i_ + lane_];                               \
      i_ += n_;                                                                  \
      coop_sponge_permute(sp);                                                   \
      if (n_ == 0u) break;                                                       \
    }                                                                            \
  }

// The next samples, at most `wanted` (>= 1) of them: permutes when something was absorbed or the
// squeezed lanes are used up, then takes m = min(wanted, sample_idx) samples, lanes sample_idx - 1
// down to sample_idx - m. Returns m; k is this lane's place among them (k < m), or m when this lane
// is not one of them. A kernel writes x to sample number (its count so far) + k.
uint coop_sponge_squeeze(inout CoopSponge sp, uint wanted, out uint k);

// Whether the next squeeze permutes first (something absorbed, or the squeezed lanes used up).
bool coop_sponge_squeeze_permutes(CoopSponge sp) { return sp.absorb_idx != 0u || sp.sample_idx == 0u; }

// coop_sponge_squeeze after its permutation (the caller made sure none is needed): for kernels that
// keep one permutation call site.
uint coop_sponge_take(inout CoopSponge sp, uint wanted, out uint k) {
  const uint m = min(wanted, sp.sample_idx), lane = p2c_lane();
  k = (lane < sp.sample_idx && lane + m >= sp.sample_idx) ? sp.sample_idx - 1u - lane : m;
  sp.sample_idx -= m;
  return m;
}

uint coop_sponge_squeeze(inout CoopSponge sp, uint wanted, out uint k) {
  if (coop_sponge_squeeze_permutes(sp)) coop_sponge_permute(sp);
  return coop_sponge_take(sp, wanted, k);
}

// The value v of lane k (the same k on every lane) of the group, on every lane.
uint p2c_lane_value(uint v, uint k) {
  if (P2C_SUBGROUP) return subgroupShuffle(v, (gl_SubgroupInvocationID & ~15u) | k);
  const uint t = p2c_publish(uvec4(v, 0u, 0u, 0u));
  return p2c_xchg[t][16u * p2c_group() + k].x;
}

// sample(): the next sample, on every lane (for kernels that compute with it, like the scalar
// program; kernels that only store samples let each lane write its own, coop_sponge_squeeze).
uint coop_sponge_sample(inout CoopSponge sp) {
  uint k;
  coop_sponge_squeeze(sp, 1u, k);
  return p2c_lane_value(sp.x, sp.sample_idx);  // the lane just squeezed
}

// sample_bits(bits) of this lane's value (bits <= 30: the graph builder checks).
uint coop_sample_bits(uint x, uint bits) {
  const uint mask = bits >= 32u ? 0xFFFFFFFFu : (1u << bits) - 1u;
  return fp_to_canonical(x) & mask;
}

#endif
