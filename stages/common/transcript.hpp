// The Fiat-Shamir transcript on the device (architecture.md, "The prover is one static graph"):
// a one-element SpongeState buffer advanced by the kernels of kernels/transcript.hpp. Each call adds
// dispatches to the graph, in program order; challenges land in buffers that later kernels read.
// Mirrors DuplexSponge (kernels/hash/transcript.hpp) call for call. Thread-compatible.
#pragma once

#include <string>

#include "kernels/transcript.hpp"
#include "runtime/graph.hpp"

namespace vkstark {

class DeviceTranscript {
 public:
  // A fresh (all-zero) transcript in a new Transient buffer `name`.
  DeviceTranscript(Graph& g, std::string name);
  // A transcript in a new Transient buffer `name` that starts from `initial` (e.g. an Input holding
  // a host transcript's state).
  DeviceTranscript(Graph& g, std::string name, View<SpongeState> initial);

  void observe(View<Fp> values);
  // observe(values[i]) for every element in order, as observe(), by a host task inside the
  // submission (HostPlacement::InSubmission): for long sequential observations, which a CPU core
  // absorbs faster than one GPU workgroup (docs/decisions.md, "The openings' sponge").
  void observe_on_host(std::string name, View<Fp> values);
  void observe_ext(View<Fp4> values) { observe(values.bitcast<Fp>()); }
  void observe_commit(View<Digest> digests) { observe(digests.bitcast<Fp>()); }
  // out[i] = sample(), in order.
  void sample(View<Fp> out);
  void sample_ext(View<Fp4> out) { sample(out.bitcast<Fp>()); }
  // out[i] = sample_bits(bits). InputError if bits > 30.
  void sample_bits(View<uint32_t> out, uint32_t bits);
  // observe(values) then sample(out) in one dispatch: the same transcript as the two calls.
  void observe_sample(View<Fp> values, View<Fp> out);
  // The same with the challenges drawn as extension elements (sample_ext), after observe,
  // observe_ext or observe_commit.
  void observe_sample_ext(View<Fp> values, View<Fp4> out) { observe_sample(values, out.bitcast<Fp>()); }
  void observe_sample_ext(View<Fp4> values, View<Fp4> out) { observe_sample_ext(values.bitcast<Fp>(), out); }
  void observe_sample_ext(View<Digest> values, View<Fp4> out) { observe_sample_ext(values.bitcast<Fp>(), out); }
  // Proof of work: the smallest witness, written to witness[0]; the transcript observes it and
  // draws one sample (protocol.md 2.6). bits == 0 writes 0 and touches nothing.
  void grind(uint32_t bits, View<Fp> witness);

  Buffer<SpongeState> state() const { return state_; }

 private:
  Graph& g_;
  Buffer<SpongeState> state_;
  // Grind scratch: the smallest witness found so far, a word per grind (kGrindWords, reset
  // together at construction), so that a grind needs no reset of its own on the transcript's chain.
  static constexpr uint32_t kGrindWords = 64;
  // Grinds of at most this many bits run as one TranscriptGrindCoop dispatch.
  static constexpr uint32_t kCoopGrindBits = 5;
  Buffer<uint32_t> best_;
  uint32_t grinds_ = 0;
};

}  // namespace vkstark
