// A test harness that proves with every device phase that exists and the naive host model of the
// batch constraint sumcheck in the middle (tests/support/model_batch_prover.hpp): the main-trace
// and cached commitments, the transcript preamble, LogUp's input layer and GKR on the device (one
// plan run), the batch sumcheck on the host from the downloaded transcript state, then the stacked
// reduction and WHIR on the device (a second plan run, the commitments recomputed). Its proofs are
// complete protocol.md 12 proofs, so the top-level verifier, the codec and the tamper tests run on
// real proofs before the device batch sumcheck exists; the device prover (stages/prover) replaces
// it and must produce the same bytes. Not a product path: two host round trips.
#pragma once

#include <optional>
#include <vector>

#include "product/airs/test_airs.hpp"
#include "runtime/executor.hpp"
#include "stages/air/keygen.hpp"
#include "stages/proof/proof.hpp"

namespace vkstark {

// airs: AIR-index order, one per AIR of pk (nullopt: absent). The traces are used as given (an
// invalid witness gives a proof the verifier rejects, or the model refuses it).
Proof hybrid_prove(const ProvingKey& pk, const std::vector<std::optional<AirWithTraces>>& airs, Executor& exec);

}  // namespace vkstark
