// Keygen (protocol.md 4.4-4.6): from the AIRs and the SystemParams, the proving key (each AIR's
// symbolic constraints, DAG and preprocessed data) and the verifying key with its pre-hash.
//
//   std::vector<std::shared_ptr<const Air>> airs{std::make_shared<FibonacciAir>()};
//   auto exec = make_executor("auto");
//   ProvingKey pk = keygen(airs, default_test_params_small(), *exec);
//   std::vector<uint8_t> vk_file = encode_vk_file(pk.vk);
//
// Preprocessed traces are committed on the executor with the same stacked_commit as main traces,
// each alone in its own commitment, in one plan run per keygen call.
//
// Errors: InputError naming the AIR (and the constraint, interaction or column where it applies)
// for every AIR keygen rejects; params that fail SystemParams::validate(); DeviceError from the
// executor. Value types; keygen is thread-compatible (the executor is used from this thread only).
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "runtime/executor.hpp"
#include "runtime/kernel.hpp"
#include "stages/air/air.hpp"
#include "stages/air/dag.hpp"
#include "stages/air/verifying_key.hpp"

namespace vkstark {

// The prover's data of one AIR.
struct AirProvingKey {
  std::string name;
  std::shared_ptr<const Air> air;
  AirShape shape;
  SymbolicAir symbolic;  // constraints and interactions as eval() emitted them
  SymbolicDag dag;       // the same as vk.per_air[i].symbolic_constraints
  std::optional<TraceMatrix> preprocessed_trace;
  std::optional<Digest> preprocessed_root;  // its stacked_commit root (= the vk's preprocessed commit)
};

struct ProvingKey {
  std::vector<AirProvingKey> per_air;  // in the order of the AIRs given to keygen
  MultiStarkVerifyingKey vk;
  const SystemParams& params() const { return vk.params; }
};

// Every AIR is registered as not required (is_required = false), as the reference's
// StarkEngine::keygen does. Rejects, with an InputError naming the AIR: a null AIR or none at all;
// params failing validate(); a zero common main width or cached part width; more row-view parts (preprocessed, cached,
// common) than kMaxViewArray; a preprocessed trace missing, unexpected, of another width than the
// shape's, of a height that is not a power of two or exceeds 2^(l_skip + n_stack); no constraints
// and no interactions; an interaction with an empty message or with message length + 1 >
// 2^log_max_message_length; a constraint or interaction of degree above params.max_constraint_degree
// (naming the constraint and its expression); a variable outside the shape (part, column, row
// offset, public value) or a challenge variable; count weights on a bus overflowing a u32.
ProvingKey keygen(std::span<const std::shared_ptr<const Air>> airs, const SystemParams& params, Executor& executor);

// keygen's host half for one AIR, before any commitment: the checks above (InputError naming the
// AIR), its symbolic constraints and DAG (an AIR given as data: its entry's, Air::given_key). No
// preprocessed root yet.
AirProvingKey keygen_air(const std::shared_ptr<const Air>& air, const SystemParams& params);
// The verifying key entry of an AIR keygen_air made, without its preprocessed commitment (keygen
// adds it after committing).
StarkVerifyingKey verifying_key_entry(const AirProvingKey& pk);

// keygen of `airs` (data-built from `vk`, or any AIRs meant to have that key) under vk.params, and
// the check that it gives `vk` itself: InputError naming the AIR whose preprocessed trace does not
// have the key's commitment ("its preprocessed trace is not the one the verifying key was made
// with"), or whose entry differs otherwise, or naming the trace-height constraints.
ProvingKey keygen_from_vk(const MultiStarkVerifyingKey& vk, std::span<const std::shared_ptr<const Air>> airs,
                          Executor& executor);

// The AIRs a prover is handed for a key's entries, matched to the AIRs the key was made from: the
// same object, or one of the same name whose shape (widths, public values) and constraint DAG are
// the entry's. A name alone is not enough: another AIR of that name would be proved against the
// key's constraints and give proofs that do not verify. Matching a new object evaluates it
// symbolically (about 13 ms for keccakf), so the objects matched are remembered while they live
// (a batch's jobs share their AIR objects). Thread-safe.
class KeyAirMatch {
 public:
  explicit KeyAirMatch(const ProvingKey& pk) : pk_(pk), matched_(pk.per_air.size()) {}
  // InputError naming entry `a` when `air` is null, of another name, or of other constraints.
  void check(uint32_t a, const std::shared_ptr<const Air>& air);

 private:
  const ProvingKey& pk_;
  std::mutex mutex_;
  std::vector<std::vector<std::weak_ptr<const Air>>> matched_;  // per entry, the other objects matched
};

}  // namespace vkstark
