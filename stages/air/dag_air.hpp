// An AIR given as data: one entry of a verifying key (protocol.md 4.4: the widths of its parts, its
// public values, the constraint DAG with its interactions, max_constraint_degree, is_required),
// with a name and, where the entry has a preprocessed part, its trace. No AIR code: what
// `vkstark prove --vk KEY --input INPUT` proves, as OpenVM's backends take a proving key.
//
//   MultiStarkVerifyingKey vk = decode_vk_file(bytes);
//   auto air = std::make_shared<DagAir>("fibonacci", vk.per_air[0]);
//   ProvingKey pk = keygen({{air}}, vk.params, exec);      // encode_vk_postcard(pk.vk) == the file's
//
// To keygen, the prover, the debug checker and the verifier it is an AIR like any other. keygen
// takes the entry's DAG, degree and is_required as they are (Air::given_key), so keygen of the AIRs
// of a verifying key gives that key's bytes, with the preprocessed commitments computed again from
// the traces given here (a trace that is not the one the key was made with gives another key: see
// keygen_from_vk in keygen.hpp). The prover evaluates the same DAG with the same kernels as for the AIR written
// in code. eval() emits each constraint node (constraint_idx order) and each interaction as an
// expression over the DAG's nodes, so the debug checker names a failing constraint by its DAG
// expression; given the AIR written in code (`source`, the same DAG), messages also use its
// column and bus names and the expressions as it wrote them.
//
// The entry is hostile input: the constructor checks everything the prover relies on (dag_problem:
// node references, sizes, depth and degrees; every variable inside the shape; the widths; the
// preprocessed trace against the shape) and throws InputError naming the AIR. Immutable once
// built; thread-safe.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "stages/air/air.hpp"
#include "stages/air/verifying_key.hpp"

namespace vkstark {

class DagAir final : public Air {
 public:
  // `preprocessed`: required when the entry has a preprocessed part, refused otherwise (its height
  // is checked by keygen against the params). `source`: the AIR written in code for these
  // constraints, when at hand: InputError unless its constraint DAG is the entry's.
  DagAir(std::string name, StarkVerifyingKey key, std::optional<TraceMatrix> preprocessed = std::nullopt,
         const Air* source = nullptr);

  std::string name() const override { return name_; }
  AirShape shape() const override { return shape_; }
  void eval(AirBuilder& b) const override;
  std::optional<TraceMatrix> preprocessed_trace() const override { return preprocessed_; }
  std::vector<std::vector<std::string>> column_names() const override { return column_names_; }
  const StarkVerifyingKey* given_key() const override { return &key_; }

  const StarkVerifyingKey& key() const { return key_; }
  bool has_source() const { return source_.has_value(); }

 private:
  std::string name_;
  StarkVerifyingKey key_;
  AirShape shape_;
  std::optional<TraceMatrix> preprocessed_;
  std::vector<std::vector<std::string>> column_names_;
  // From `source`: its constraints as it emitted them, one per constraint node (constraint_idx
  // order), its interactions and bus names.
  std::optional<SymbolicAir> source_;
};

// Whether `air` (written in code) has the constraints and shape of `entry`: its constraint DAG is
// the entry's, and so are its parts' widths and public value count (what DagAir asks of a source).
bool has_constraints_of(const Air& air, const StarkVerifyingKey& entry);

// The data-built AIRs of a verifying key: names[i] and preprocessed[i] for vk.per_air[i];
// sources[i] (optional, may be shorter or hold nulls) the AIR written in code for entry i where
// one is at hand. InputError naming the AIR (its name and index) for any entry DagAir refuses, or
// counts that do not match the key's AIRs.
std::vector<std::shared_ptr<const Air>> airs_from_vk(const MultiStarkVerifyingKey& vk,
                                                     std::span<const std::string> names,
                                                     std::vector<std::optional<TraceMatrix>> preprocessed,
                                                     std::span<const Air* const> sources = {});

}  // namespace vkstark
