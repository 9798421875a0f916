// The known-answer values of protocol.md 16.2 computed by the device kernels on an executor:
// Poseidon2 (batch permutation kernel), sponge samples and the 8-bit PoW witness (device
// transcript). Used by examples/selfcheck.
#pragma once

#include <vector>

#include "kernels/known_answers.hpp"
#include "runtime/executor.hpp"
#include "runtime/trace.hpp"

namespace vkstark {

// Runs the checks as one plan on `exec`; `trace`, when given, receives that run's trace.
std::vector<kat::Check> device_known_answer_checks(Executor& exec, Trace* trace = nullptr);

}  // namespace vkstark
