// CPU bodies of kernels/transcript.hpp: the host DuplexSponge applied to the SpongeState buffer.
#include "kernels/transcript.hpp"

#include "kernels/hash/transcript.hpp"

namespace vkstark {

namespace {
DuplexSponge load(const SpongeState& s) { return DuplexSponge::from_state(s.state, s.absorb_idx, s.sample_idx); }
void store(const DuplexSponge& t, SpongeState& s) { s = {t.state(), t.absorb_idx(), t.sample_idx()}; }
}  // namespace

void TranscriptObserve::cpu(const Args& a, const CpuContext& ctx) {
  auto& s = ctx.span(a.t)[0];
  DuplexSponge t = load(s);
  for (Fp v : ctx.span(a.values)) t.observe(v);
  store(t, s);
}

void TranscriptSample::cpu(const Args& a, const CpuContext& ctx) {
  auto& s = ctx.span(a.t)[0];
  DuplexSponge t = load(s);
  for (Fp& v : ctx.span(a.out)) v = t.sample();
  store(t, s);
}

void TranscriptObserveSample::cpu(const Args& a, const CpuContext& ctx) {
  auto& s = ctx.span(a.t)[0];
  DuplexSponge t = load(s);
  for (Fp v : ctx.span(a.values)) t.observe(v);
  for (Fp& v : ctx.span(a.out)) v = t.sample();
  store(t, s);
}

void TranscriptSampleBits::cpu(const Args& a, const CpuContext& ctx) {
  auto& s = ctx.span(a.t)[0];
  DuplexSponge t = load(s);
  for (uint32_t& v : ctx.span(a.out)) v = t.sample_bits(a.bits);
  store(t, s);
}

void TranscriptGrindSearch::cpu(const Args& a, const CpuContext& ctx) {
  if (a.bits == 0) return;
  DuplexSponge t = load(ctx.span(a.t)[0]);
  uint32_t& best = ctx.span(a.best)[0];
  best = std::min(best, t.grind(a.bits).value());  // the smallest witness, as the device search finds
}

void TranscriptGrindFinish::cpu(const Args& a, const CpuContext& ctx) {
  auto& s = ctx.span(a.t)[0];
  Fp& witness = ctx.span(a.witness)[0];
  if (a.bits == 0) {
    witness = Fp::zero();
    return;
  }
  uint32_t best = ctx.span(a.best)[0];
  Fp w = best < Fp::P ? Fp::from_canonical_unchecked(best) : Fp::zero();  // none found: an invalid witness
  DuplexSponge t = load(s);
  t.check_witness(a.bits, w);
  store(t, s);
  witness = w;
}

void TranscriptGrindCoop::cpu(const Args& a, const CpuContext& ctx) {
  Fp& witness = ctx.span(a.witness)[0];
  if (a.bits == 0) {
    witness = Fp::zero();
    return;
  }
  auto& s = ctx.span(a.t)[0];
  DuplexSponge t = load(s);
  witness = t.grind(a.bits);  // the smallest witness, then its check on t
  store(t, s);
}

}  // namespace vkstark
