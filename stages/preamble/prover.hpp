// The transcript's preamble (protocol.md 7 steps 1-3) on the device: the verifying key's pre-hash,
// the common-main root, then for every AIR in AIR-index order its presence flag (optional AIRs),
// its height or preprocessed commitment, its cached commitments and its public values. The host
// values (pre-hash, flags, heights) are merged into as few observe dispatches as the device values
// between them allow. The verifier's mirror is Verifier::preamble in stages/verifier.cpp.
// Graph builder; thread-compatible.
#pragma once

#include <optional>
#include <span>
#include <vector>

#include "stages/air/verifying_key.hpp"
#include "stages/common/transcript.hpp"

namespace vkstark {

// One AIR as the preamble sees it (AIR-index order; absent AIRs have present = false).
struct PreambleAir {
  bool present = false;
  uint32_t log_height = 0;
  std::optional<View<Digest>> preprocessed_root;  // for an AIR with a preprocessed trace
  std::vector<View<Digest>> cached_roots;         // part order
  View<Fp> public_values;                         // zero-count for none
};

// InputError when `airs` does not match the vk (count, cached parts, public values, preprocessed).
void observe_preamble(Graph& g, DeviceTranscript& t, const MultiStarkVerifyingKey& vk, View<Digest> common_root,
                      std::span<const PreambleAir> airs);

}  // namespace vkstark
