#include "stages/common/transcript.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "kernels/basic.hpp"
#include "kernels/hash/transcript.hpp"

namespace vkstark {

DeviceTranscript::DeviceTranscript(Graph& g, std::string name) : g_(g) {
  state_ = g.transient<SpongeState>(name, 1);
  best_ = g.transient<uint32_t>(name + ".grind_best", kGrindWords);
  g.dispatch<FillU32>(name + ".grind_best.reset", {.out = best_, .value = 0xFFFFFFFFu});
  g.dispatch<FillU32>(name + ".init", {.out = state_.all().bitcast<uint32_t>(), .value = 0});
}

DeviceTranscript::DeviceTranscript(Graph& g, std::string name, View<SpongeState> initial) : g_(g) {
  state_ = g.transient<SpongeState>(name, 1);
  best_ = g.transient<uint32_t>(name + ".grind_best", kGrindWords);
  g.dispatch<FillU32>(name + ".grind_best.reset", {.out = best_, .value = 0xFFFFFFFFu});
  g.dispatch<CopyU32>(name + ".init", {.src = initial.bitcast<uint32_t>(), .dst = state_.all().bitcast<uint32_t>()});
}

void DeviceTranscript::observe(View<Fp> values) {
  g_.dispatch<TranscriptObserve>("transcript.observe", {.t = state_, .values = values});
}

void DeviceTranscript::observe_on_host(std::string name, View<Fp> values) {
  const View<SpongeState> t = state_.all();
  g_.host(
      std::move(name), {host_read(values), host_write(t)},
      [values, t](const HostContext& ctx) {
        SpongeState& s = ctx.write(t)[0];
        DuplexSponge sponge = DuplexSponge::from_state(s.state, s.absorb_idx, s.sample_idx);
        for (Fp v : ctx.read(values)) sponge.observe(v);
        s = {sponge.state(), sponge.absorb_idx(), sponge.sample_idx()};
      },
      HostPlacement::InSubmission);
}

void DeviceTranscript::sample(View<Fp> out) {
  g_.dispatch<TranscriptSample>("transcript.sample", {.t = state_, .out = out});
}

void DeviceTranscript::observe_sample(View<Fp> values, View<Fp> out) {
  g_.dispatch<TranscriptObserveSample>("transcript.observe_sample", {.t = state_, .values = values, .out = out});
}

void DeviceTranscript::sample_bits(View<uint32_t> out, uint32_t bits) {
  if (bits > DuplexSponge::MAX_SAMPLE_BITS)
    throw InputError(
        fmt::format("sample_bits({}): at most {} bits fit in one sample", bits, DuplexSponge::MAX_SAMPLE_BITS));
  g_.dispatch<TranscriptSampleBits>("transcript.sample_bits", {.t = state_, .out = out, .bits = bits});
}

void DeviceTranscript::grind(uint32_t bits, View<Fp> witness) {
  if (bits > DuplexSponge::MAX_SAMPLE_BITS)
    throw InputError(fmt::format("grind({}): at most {} bits fit in one sample", bits, DuplexSponge::MAX_SAMPLE_BITS));
  if (bits == 0) {  // no grinding: the witness is 0 and the transcript sees nothing (protocol.md)
    g_.dispatch<FillU32>("transcript.grind.none", {.out = witness.bitcast<uint32_t>(), .value = 0});
    return;
  }
  // Few bits: search and finish in one workgroup (about 2^bits / 16 rounds of one cooperative
  // permutation); the grid-wide search pays from a few rounds more on (docs/decisions.md).
  if (bits <= kCoopGrindBits) {
    g_.dispatch<TranscriptGrindCoop>("transcript.grind", {.t = state_, .witness = witness, .bits = bits});
    return;
  }
  // Search width: enough invocations to cover the expected 2^bits candidates in a few rounds each.
  // The result does not depend on it (the search finds the smallest witness).
  const uint32_t width = std::clamp<uint32_t>(1u << std::min(bits, 16u), 64, 1u << 16);
  // A scratch word of this grind's own, reset when the transcript was made (one word reset before
  // every grind was a dependent step more per grind); past kGrindWords grinds, words are reset again.
  const View<uint32_t> best = best_.slice(grinds_ % kGrindWords, 1);
  if (grinds_++ >= kGrindWords) g_.dispatch<FillU32>("transcript.grind.reset", {.out = best, .value = 0xFFFFFFFFu});
  g_.dispatch<TranscriptGrindSearch>("transcript.grind.search", {.t = state_, .best = best, .bits = bits}, Grid{width});
  g_.dispatch<TranscriptGrindFinish>("transcript.grind.finish",
                                     {.t = state_, .best = best, .witness = witness, .bits = bits});
}

}  // namespace vkstark
