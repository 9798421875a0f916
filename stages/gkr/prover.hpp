// LogUp's GKR fractional sumcheck (protocol.md 7 step 4, 8.3-8.4) as device dispatches: graph
// builders. Every challenge comes from the device transcript, every proof value is written in place
// into the caller's proof views, so the whole GKR proof comes back with the proof's one download.
// The verifier half is stages/gkr/verify.hpp; the two are written as matching per-layer and
// per-sub-round functions.
//
// Dispatches (protocol.md 8.4, n = n_tot): the fraction tree in ceil((n - 1) / 7) dispatches
// (GkrFractionLayers); one scalar program for the root and layer 1; per layer j >= 2 one
// EqSuffixTables dispatch, then per sub-round two dependent dispatches: the partial sums of the
// round polynomial (fused with the fold at the previous sub-round's challenge) and one scalar
// program (sum, write into the proof, observe, sample; the last one also finishes the layer).
//
// Thread-compatible; the Graph and the DeviceTranscript must outlive the calls, the views must be
// of the graph being built.
#pragma once

#include <functional>
#include <string>

#include <cstdint>

#include "runtime/graph.hpp"
#include "stages/common/params.hpp"
#include "stages/common/transcript.hpp"
#include "stages/encoding/regions.hpp"
#include "stages/proof/proof.hpp"

namespace vkstark {

// Where the prover writes the GKR proof part (device views of the proof buffer, given by the
// caller). Encoding order of protocol.md 12.
struct GkrProofViews {
  View<Fp> logup_pow_witness;  // 1
  View<Fp4> q0_claim;          // 1
  View<Fp4> claims_per_layer;  // 4 n_tot: per layer j = 1 .. n_tot, p_xi_0, p_xi_1, q_xi_0, q_xi_1
  View<Fp4> sumcheck_polys;    // 3 n_tot (n_tot - 1) / 2: layer j = 2 .. n_tot, its j - 1 sub-rounds' s(1), s(2), s(3)
};

// LogUp's challenges (one-element transient views).
struct GkrChallenges {
  View<Fp4> alpha;
  View<Fp4> beta;
};

// The head of protocol.md 7 step 4: w = grind(logup.pow_bits) into logup_pow_witness, then
// alpha = sample_ext(), beta = sample_ext(). (Task "gkr.logup_pow", with ".part1" when it grinds.)
[[nodiscard]] GkrChallenges gkr_grind_and_challenges(Graph& g, DeviceTranscript& transcript, const GkrProofViews& proof,
                                                     const SystemParams& params);

// The fractional sumcheck of protocol.md 8.3-8.4 over the input layer (2^n_tot leaves p, q, leaf
// index little-endian, alpha already added into q): writes q0_claim, claims_per_layer and
// sumcheck_polys, and returns xi (n_tot coordinates, a transient view; coordinate k <-> leaf index
// bit k). n_tot in 1 .. kGkrMaxProverLayers; InputError for another n_tot or views of other sizes.
// Nothing is asserted on the device: a root numerator p_0 != 0 gives a proof the verifier rejects.
inline constexpr uint32_t kGkrMaxProverLayers = 30;
[[nodiscard]] View<Fp4> gkr_prove(Graph& g, DeviceTranscript& transcript, const GkrProofViews& proof,
                                  View<Fp4> p_leaves, View<Fp4> q_leaves, uint32_t n_tot);

// The leaves [first, first + p.count) recorded into p and q (LogupInputLayer::leaves); `tag` tells
// the tasks of one range from another's.
using GkrLeaves = std::function<void(uint64_t first, View<Fp4> p, View<Fp4> q, const std::string& tag)>;

// gkr_prove with the leaves made by `make` a tile of `tile_leaves` at a time whenever read, rather
// than kept (the low-memory mode): the tree keeps layers 1 .. n_tot - 2; the two layers below it
// are made from the leaves' tiles to build the tree and again for each of their first sub-rounds
// (the input layer's first three, the layer above's first two: a tile folded at the challenges so
// far, its partials, its fold), and kept from then on, a quarter and a half of their size. The same
// proof; six passes over the leaves' inputs instead of one. n_tot in 4 .. kGkrMaxProverLayers,
// tile_leaves a power of two from 16 below 2^n_tot (InputError otherwise).
[[nodiscard]] View<Fp4> gkr_prove_remade(Graph& g, DeviceTranscript& transcript, const GkrProofViews& proof,
                                         const GkrLeaves& make, uint64_t tile_leaves, uint32_t n_tot);

// The GKR part on its own in a proof buffer (tests, benches): its regions, reserved from its field
// list (stages/proof/proof.hpp gkr_fields) before the layout's create_buffer.
using GkrRegions = PartRegions<GkrProof>;
[[nodiscard]] GkrRegions reserve_gkr_regions(ProofLayout& layout, const GkrShape& shape);

// The views of the GKR fields `fields` (the GkrProof of `regions`' prototype: regions.proto() of a
// GkrRegions, regions.proto().gkr_proof of a whole proof's), after create_buffer.
template <class Part>
[[nodiscard]] GkrProofViews gkr_proof_views(const ProofLayout& layout, const PartRegions<Part>& regions,
                                            const GkrProof& fields) {
  GkrProofViews v;
  v.logup_pow_witness = regions.view(layout, fields.logup_pow_witness);
  v.q0_claim = regions.view(layout, fields.q0_claim);
  v.claims_per_layer = regions.view(layout, fields.claims_per_layer);
  // No sub-round (fewer than two layers): an empty view where the list would be.
  v.sumcheck_polys = fields.sumcheck_polys.empty() ? v.claims_per_layer.slice(v.claims_per_layer.count, 0)
                                                   : regions.view(layout, fields.sumcheck_polys);
  return v;
}

}  // namespace vkstark
