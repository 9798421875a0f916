// Fiat-Shamir transcript: Poseidon2 duplex sponge in overwrite mode, rate 8 (protocol.md 2.5), with
// proof-of-work grinding (2.6). Value type; thread-compatible (copy it to search in parallel).
//
// The device transcript (kernels/glsl/transcript.glsl) keeps the same 18 words of state, so a
// transcript can move between host and device.
#pragma once

#include <cstdint>

#include "kernels/field/fp.hpp"
#include "kernels/field/fp4.hpp"
#include "kernels/hash/hash.hpp"

namespace vkstark {

class DuplexSponge {
 public:
  // 2^bits must be below p and bits below 32 (protocol.md 2.5): bits <= 30.
  static constexpr uint32_t MAX_SAMPLE_BITS = 30;

  void observe(Fp v) {
    state_[absorb_idx_] = v;
    if (++absorb_idx_ == SPONGE_RATE) {
      poseidon2_permute_one(state_);
      absorb_idx_ = 0;
      sample_idx_ = SPONGE_RATE;
    }
  }
  void observe_ext(const Fp4& v) {
    for (Fp c : v.c) observe(c);
  }
  void observe_commit(const Digest& d) {
    for (Fp c : d) observe(c);
  }

  Fp sample() {
    if (absorb_idx_ != 0 || sample_idx_ == 0) {
      poseidon2_permute_one(state_);
      absorb_idx_ = 0;
      sample_idx_ = SPONGE_RATE;
    }
    return state_[--sample_idx_];
  }
  Fp4 sample_ext() {
    Fp a0 = sample(), a1 = sample(), a2 = sample(), a3 = sample();
    return {a0, a1, a2, a3};
  }
  // Low `bits` bits of the canonical value of one sample. Throws InputError for bits > 30.
  uint32_t sample_bits(uint32_t bits);

  // Verifier side of proof of work: observe w, then one sample must have `bits` low zero bits.
  // bits == 0 touches nothing and accepts.
  bool check_witness(uint32_t bits, Fp w);
  // Prover side: the smallest witness w in [0, p) with check_witness(bits, w), searched in parallel
  // on copies; then check_witness runs on this transcript. Throws InputError for bits > 30.
  Fp grind(uint32_t bits);

  const Poseidon2State& state() const { return state_; }
  uint32_t absorb_idx() const { return absorb_idx_; }
  uint32_t sample_idx() const { return sample_idx_; }
  // Rebuilds a transcript from its 18 words (e.g. downloaded from the device). Throws InputError if
  // the indices are out of range.
  static DuplexSponge from_state(const Poseidon2State& state, uint32_t absorb_idx, uint32_t sample_idx);

  bool operator==(const DuplexSponge&) const = default;

 private:
  Poseidon2State state_{};
  uint32_t absorb_idx_ = 0;  // in [0, 8)
  uint32_t sample_idx_ = 0;  // in [0, 8]
};

}  // namespace vkstark
