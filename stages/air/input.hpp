// What a prover takes for one AIR of a proof: the AIR, its main trace parts and its public values
// (the reference's AirProvingContext). The preprocessed trace is not here: the AIR gives it, and
// keygen fixes it in the proving key.
//
//   std::vector<std::optional<AirWithTraces>> airs;                       // per AIR of the key
//   airs.emplace_back(AirWithTraces(air, std::move(main), {a, b, x}));   // checked here
//   airs.emplace_back(std::nullopt);                                      // this AIR is absent
//
// The constructors that take an AIR check the parts against its shape and throw InputError naming
// the AIR (and its column names where it has them): a null AIR, a height that is not a power of
// two, a part of the wrong width or height, the wrong number of cached parts or public values. The
// default constructor leaves the fields to be filled; validate() makes the same checks then, and
// the prover makes them again before every proof. Value type; thread-compatible.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kernels/field/fp.hpp"
#include "kernels/hash/hash.hpp"
#include "stages/air/air.hpp"

namespace vkstark {

// A trace part committed once on an executor (StarkProver::commit_cached; the prover does the same
// with every preprocessed trace), to prove against any number of times: its stacked matrix as RS
// message, codeword and Merkle tree stay on the device in Persistent buffers named after `id`, and
// a proof that uses it neither uploads nor commits it again. Made only by the prover; immutable.
// The device memory is the executor's until it is destroyed.
struct CommittedTrace {
  std::string id;                             // the device buffers' name prefix, unique in the process
  const void* executor = nullptr;             // the executor that holds them
  std::string air;                            // the AIR it was committed for
  uint32_t part = 0;                          // its cached part (for messages)
  std::shared_ptr<const TraceMatrix> matrix;  // the values (for the debug checker and checks)
  Digest root{};                              // the commitment's Merkle root
  uint32_t log_stacked_height = 0, l_skip = 0, log_blowup = 0, k_whir = 0;  // the params it was made for
};

struct AirWithTraces {
  std::shared_ptr<const Air> air;
  std::vector<TraceMatrix> cached;  // cached main parts, part order (empty where `committed` has the part)
  TraceMatrix common;               // the common main part
  std::vector<Fp> public_values;
  // Empty, or one entry per cached part: a part committed once (null: `cached` has it).
  std::vector<std::shared_ptr<const CommittedTrace>> committed{};

  AirWithTraces() = default;
  AirWithTraces(std::shared_ptr<const Air> air, TraceMatrix common, std::vector<Fp> public_values = {});
  AirWithTraces(std::shared_ptr<const Air> air, std::vector<TraceMatrix> cached, TraceMatrix common,
                std::vector<Fp> public_values);

  // InputError naming the AIR when the parts do not fit it (see above); nothing otherwise.
  void validate() const;
  // Cached part `part` taken from a commitment made once: `cached[part]` is emptied, `committed`
  // holds it. InputError when it was made for another AIR or part, or does not fit.
  void use_committed(uint32_t part, std::shared_ptr<const CommittedTrace> c);
  // Cached part i: the committed one's values, or cached[i].
  const TraceMatrix& cached_part(size_t i) const;
  bool is_committed(size_t i) const { return i < committed.size() && committed[i] != nullptr; }
  // log2 of the height (validate() first).
  uint32_t log_height() const;

  // Preprocessed (if any), cached..., common: the order the evaluators and the debug checker read.
  std::vector<TraceMatrix> row_view_parts() const;
  // The same parts without copying the traces: the preprocessed trace (made by the AIR) is kept in
  // `preprocessed`, which must outlive the pointers.
  std::vector<const TraceMatrix*> row_view_part_refs(std::optional<TraceMatrix>& preprocessed) const;
};

}  // namespace vkstark
