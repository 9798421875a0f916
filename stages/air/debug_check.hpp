// The debug checker, the one way to check traces before proving: every constraint of every AIR on
// every row and every bus balanced, on the host, in parallel. A proof of a broken trace fails only
// at verification, with a sumcheck or GKR message that names neither the AIR nor the row; the
// checker names them.
//
//   const DebugReport r = debug_check(airs);         // AirWithTraces: the AIRs' own objects
//   const DebugReport r = debug_check(pk, traces);   // against a proving key (the prover's form)
//   if (!r.ok()) std::cerr << r.message();           // or r.throw_if_failed(): InputError
//
// The prover runs it when VKSTARK_DEBUG_CONSTRAINTS=1 (debug_constraints_enabled()) or
// ProverOptions::debug_check is set.
//
// A constraint problem names the AIR, the constraint (emission index and expression), the row, how
// many rows fail it and the columns it reads with their values. A bus problem names the bus, the
// message, its net multiplicity and the AIRs, interactions and rows that send or receive it.
// Deterministic: the same traces give the same report whatever the thread count.
// Thread-compatible; the inputs are only read.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "kernels/field/fp.hpp"
#include "stages/air/air.hpp"
#include "stages/air/input.hpp"
#include "stages/air/keygen.hpp"

namespace vkstark {

// One AIR's traces, as the checker reads them.
struct DebugAirInput {
  const SymbolicAir* air = nullptr;       // constraints, interactions, name, shape
  std::vector<const TraceMatrix*> parts;  // row-view order: preprocessed (if any), cached.., common
  std::span<const Fp> public_values;
};

// An AIR's first violated constraint: rows in order, then constraints in emission order.
struct ConstraintFailure {
  std::string air;
  uint32_t constraint = 0;  // emission index
  uint32_t row = 0;
  Fp value;                // the constraint's nonzero value there
  uint64_t failures = 0;   // (row, constraint) pairs of this AIR that fail
  std::string expression;  // the constraint's text (with the AIR's column names)
};

struct DebugReport {
  // What failed, most useful first: per AIR its first violated constraint, then the unbalanced
  // messages in order of bus and first sender/receiver (at most max_problems of them).
  std::vector<std::string> problems;
  std::vector<ConstraintFailure> constraint_failures;  // per AIR that has one, in input order
  uint64_t violated = 0;                               // (row, constraint) pairs that failed, over all AIRs
  uint64_t unbalanced = 0;                             // (bus, message) pairs whose multiplicities do not sum to zero
  bool ok() const { return violated == 0 && unbalanced == 0; }
  // Every problem on its own line, after a summary line; "" when ok().
  std::string message() const;
  // InputError with message() unless ok().
  void throw_if_failed() const;
};

// The AIRs of `airs` over their traces (each AIR's preprocessed trace from the AIR). InputError
// naming the AIR for traces that do not fit it (parts, widths, heights, public values) or a null AIR.
[[nodiscard]] DebugReport debug_check(std::span<const AirWithTraces> airs, size_t max_problems = 8);
// A proof's traces against proving key `pk` (AIR-index order, nullopt: absent): the key's
// constraints and preprocessed traces. InputError naming the AIR for traces that do not fit the key
// (KeyAirMatch: another AIR than the key's; shapes as above).
[[nodiscard]] DebugReport debug_check(const ProvingKey& pk, const std::vector<std::optional<AirWithTraces>>& airs,
                                      size_t max_problems = 8);
// The form both reduce to: symbolic AIRs (an AIR's constraints as evaluated, say symbolic_air(air),
// or a key's AirProvingKey::symbolic) and their parts.
[[nodiscard]] DebugReport debug_check(std::span<const DebugAirInput> airs, size_t max_problems = 8);

}  // namespace vkstark
