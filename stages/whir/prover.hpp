// The WHIR prover of protocol.md 11.2 as device dispatches: every challenge comes from the device
// transcript, every proof value is written in place into the proof buffer. Graph builder.
#pragma once

#include <vector>

#include "stages/common/ntt.hpp"
#include "stages/common/transcript.hpp"
#include "stages/encoding/regions.hpp"
#include "stages/pcs/stacked.hpp"
#include "stages/whir/proof.hpp"

namespace vkstark {

// The WHIR proof's regions in the device proof buffer (stages/encoding/regions.hpp).
using WhirRegions = PartRegions<WhirProof>;
WhirRegions reserve_whir_regions(ProofLayout& layout, const WhirShape& shape);

struct WhirOpening {
  std::vector<const StackedCommitment*> commitments;  // in proof order
  View<Fp4> u_cube;                                   // the m coordinates of the opening point (protocol.md 11.1)
  // The final polynomial's observation (one permutation per 8 words, thousands of words) on the
  // host, inside the submission (DeviceTranscript::observe_on_host), where it has at least
  // kWhirHostObserveMinWords words; else one device workgroup.
  bool final_poly_on_host = false;
};
// Below this many words the device's few chained permutations cost about what the host's turn
// does (H200: 2.55 us a permutation on the device; 0.67 us on its host plus about 60 us a turn).
inline constexpr uint64_t kWhirHostObserveMinWords = 512;

// Adds the WHIR prover under a span "whir". The shape must match the commitments and params; the
// Ntt must cover codewords of 2^(m + log_blowup - 1).
void whir_prove(Graph& g, Ntt& ntt, DeviceTranscript& transcript, const ProofLayout& layout, const WhirRegions& regions,
                const WhirShape& shape, const SystemParams& params, const WhirOpening& in);

}  // namespace vkstark
