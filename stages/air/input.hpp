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
#include <vector>

#include "kernels/field/fp.hpp"
#include "stages/air/air.hpp"

namespace vkstark {

struct AirWithTraces {
  std::shared_ptr<const Air> air;
  std::vector<TraceMatrix> cached;  // cached main parts, part order
  TraceMatrix common;               // the common main part
  std::vector<Fp> public_values;

  AirWithTraces() = default;
  AirWithTraces(std::shared_ptr<const Air> air, TraceMatrix common, std::vector<Fp> public_values = {});
  AirWithTraces(std::shared_ptr<const Air> air, std::vector<TraceMatrix> cached, TraceMatrix common,
                std::vector<Fp> public_values);

  // InputError naming the AIR when the parts do not fit it (see above); nothing otherwise.
  void validate() const;
  // log2 of the height (validate() first).
  uint32_t log_height() const;

  // Preprocessed (if any), cached..., common: the order the evaluators and the debug checker read.
  std::vector<TraceMatrix> row_view_parts() const;
  // The same parts without copying the traces: the preprocessed trace (made by the AIR) is kept in
  // `preprocessed`, which must outlive the pointers.
  std::vector<const TraceMatrix*> row_view_part_refs(std::optional<TraceMatrix>& preprocessed) const;
};

}  // namespace vkstark
