// The debug checker: before a proof, every constraint of every AIR on every row and every bus
// balanced, on the host, in parallel. A proof of a broken trace fails only at verification, with a
// sumcheck or GKR message that names neither the AIR nor the row; the checker names them.
//
// The prover runs it when VKSTARK_DEBUG_CONSTRAINTS=1 (debug_constraints_enabled()) or
// ProverOptions::debug_check is set; tests and tools call it directly.
//
//   const DebugReport r = debug_check(inputs);
//   if (!r.ok()) std::cerr << r.message();
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

namespace vkstark {

// One AIR's traces, as the checker reads them.
struct DebugAirInput {
  const SymbolicAir* air = nullptr;       // constraints, interactions, name, shape
  std::vector<const TraceMatrix*> parts;  // row-view order: preprocessed (if any), cached.., common
  std::span<const Fp> public_values;
};

struct DebugReport {
  // What failed, most useful first: per AIR its first violated constraint, then the unbalanced
  // messages in order of bus and first sender/receiver (at most max_problems of them).
  std::vector<std::string> problems;
  uint64_t violated = 0;    // (row, constraint) pairs that failed, over all AIRs
  uint64_t unbalanced = 0;  // (bus, message) pairs whose multiplicities do not sum to zero
  bool ok() const { return violated == 0 && unbalanced == 0; }
  // Every problem on its own line, after a summary line; "" when ok().
  std::string message() const;
};

// InputError naming the AIR for inputs that do not fit their AIR (parts, widths, heights, public
// values); otherwise the report.
[[nodiscard]] DebugReport debug_check(std::span<const DebugAirInput> airs, size_t max_problems = 8);

// debug_check, then InputError with the report's message when it is not ok().
void debug_check_or_throw(std::span<const DebugAirInput> airs);

}  // namespace vkstark
