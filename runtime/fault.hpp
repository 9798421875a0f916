// Faults injected on purpose, for tests of what survives them (issue 44): the environment variable
// VKSTARK_FAULT lists them, comma-separated, each a kind and its `key=number` conditions:
//
//   VKSTARK_FAULT=device_lost:job=3          the device proving batch job 3 is lost as it finishes
//   VKSTARK_FAULT=oom:job=5                  job 5 runs out of device memory (on its first attempt;
//                                            oom:job=5:attempts=2 on its first two)
//   VKSTARK_FAULT=invalid_proof:job=2        job 2's first proof is corrupted before it is verified
//   VKSTARK_FAULT=exit_in_write:renamed=1    a set of output files: the process exits (status 137,
//                                            as if killed) after the first of them is in place
//                                            (exit_in_write:journals=1: after its journal's first
//                                            copy, of a set over several folders)
//   VKSTARK_FAULT=exit_after_writes:files=4  the process exits (137) after its 4th file is written
//   VKSTARK_FAULT=disk_full:after=4          every file written after the first 4 fails: ENOSPC
//
// Nothing is injected without the variable; a malformed value is an InputError naming it, so that a
// test never passes because its fault was silently ignored. Thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace vkstark {

// The exit status of an injected exit (a SIGKILL's, as a shell reports it).
inline constexpr int kFaultExitStatus = 137;

// Whether VKSTARK_FAULT holds a fault of `kind` whose condition `key` is `value` (e.g.
// fault_injected("oom", "job", 5)); `attempt` (1 for the first) is compared with the fault's
// `attempts` (default 1: the first attempt only). InputError when VKSTARK_FAULT is malformed.
[[nodiscard]] bool fault_injected(std::string_view kind, std::string_view key, uint64_t value, uint64_t attempt = 1);

// The value of condition `key` of the first fault of `kind` (disk_full's `after`), if any.
[[nodiscard]] std::optional<uint64_t> fault_value(std::string_view kind, std::string_view key);

// Whether VKSTARK_FAULT has a fault of `kind` at all.
[[nodiscard]] bool fault_kind_injected(std::string_view kind);

}  // namespace vkstark
