// The Fiat-Shamir duplex sponge (protocol.md 2.5, 2.6): the GLSL twin of DuplexSponge
// (kernels/hash/transcript.hpp). A Sponge holds the 18 words of a SpongeState (kernels/types.hpp):
// 16 Montgomery-form state lanes, absorb_idx in [0, 8), sample_idx in [0, 8].
#ifndef VKSTARK_TRANSCRIPT_GLSL
#define VKSTARK_TRANSCRIPT_GLSL

#include "poseidon2.glsl"

const uint SPONGE_WORDS = 18u;  // uints per SpongeState element

struct Sponge {
  uint s[16];
  uint absorb_idx;
  uint sample_idx;
};

// sp = the SpongeState at words arr[base .. base + 18) of a uint buffer array `arr`
// (base = view offset * SPONGE_WORDS).
#define SPONGE_LOAD(sp, arr, base)                                                                                   \
  {                                                                                                                  \
    uint b_ = (base);                                                                                                \
    sp.s = uint[16](arr[b_ + 0u], arr[b_ + 1u], arr[b_ + 2u], arr[b_ + 3u], arr[b_ + 4u], arr[b_ + 5u], arr[b_ + 6u], \
                    arr[b_ + 7u], arr[b_ + 8u], arr[b_ + 9u], arr[b_ + 10u], arr[b_ + 11u], arr[b_ + 12u],           \
                    arr[b_ + 13u], arr[b_ + 14u], arr[b_ + 15u]);                                                    \
    sp.absorb_idx = arr[b_ + 16u];                                                                                   \
    sp.sample_idx = arr[b_ + 17u];                                                                                   \
  }

// Writes sp to words arr[base .. base + 18).
#define SPONGE_STORE(sp, arr, base)     \
  {                                     \
    uint b_ = (base);                   \
    arr[b_ + 0u] = sp.s[0];             \
    arr[b_ + 1u] = sp.s[1];             \
    arr[b_ + 2u] = sp.s[2];             \
    arr[b_ + 3u] = sp.s[3];             \
    arr[b_ + 4u] = sp.s[4];             \
    arr[b_ + 5u] = sp.s[5];             \
    arr[b_ + 6u] = sp.s[6];             \
    arr[b_ + 7u] = sp.s[7];             \
    arr[b_ + 8u] = sp.s[8];             \
    arr[b_ + 9u] = sp.s[9];             \
    arr[b_ + 10u] = sp.s[10];           \
    arr[b_ + 11u] = sp.s[11];           \
    arr[b_ + 12u] = sp.s[12];           \
    arr[b_ + 13u] = sp.s[13];           \
    arr[b_ + 14u] = sp.s[14];           \
    arr[b_ + 15u] = sp.s[15];           \
    arr[b_ + 16u] = sp.absorb_idx;      \
    arr[b_ + 17u] = sp.sample_idx;      \
  }

// The state permuted, ready to be squeezed: absorb_idx = 0, sample_idx = 8.
void sponge_permute(inout Sponge sp) {
  poseidon2_permute(sp.s);
  sp.absorb_idx = 0u;
  sp.sample_idx = P2_RATE;
}

// observe(v), v in Montgomery form: overwrite lane absorb_idx; a full rate block permutes.
void sponge_observe(inout Sponge sp, uint v) {
  p2_set_rate_lane(sp.s, sp.absorb_idx, v);
  sp.absorb_idx += 1u;
  if (sp.absorb_idx == P2_RATE) sponge_permute(sp);
}

// sample(): permutes when something was absorbed or the squeezed lanes are used up, then squeezes
// lanes 7, 6, ..., 0. Montgomery form.
uint sponge_sample(inout Sponge sp) {
  if (sp.absorb_idx != 0u || sp.sample_idx == 0u) sponge_permute(sp);
  sp.sample_idx -= 1u;
  return p2_get_lane(sp.s, sp.sample_idx);
}

// Low `bits` bits of the canonical value of one sample (bits <= 30; DuplexSponge::sample_bits
// throws above, device code cannot: the graph builder checks).
uint sponge_sample_bits(inout Sponge sp, uint bits) {
  uint mask = bits >= 32u ? 0xFFFFFFFFu : (1u << bits) - 1u;
  return fp_to_canonical(sponge_sample(sp)) & mask;
}

// check_witness(bits, w), w in Montgomery form: bits == 0 touches nothing and accepts; otherwise
// observe(w), then one sample must have `bits` low zero bits.
bool sponge_check_witness(inout Sponge sp, uint bits, uint w) {
  if (bits == 0u) return true;
  sponge_observe(sp, w);
  return sponge_sample_bits(sp, bits) == 0u;
}

#endif
