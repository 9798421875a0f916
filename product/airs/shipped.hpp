// The computations the vkstark command proves by name (`--air`), and the AIRs written in code
// behind them: keccakf (KeccakAir), fibonacci (FibonacciAir), interactions (Decompose and
// ByteTable, one proof of both). Thread-safe.
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "stages/air/air.hpp"

namespace vkstark {

inline constexpr std::string_view kShippedComputations[] = {"keccakf", "fibonacci", "interactions"};

// The AIRs of a shipped computation, in keygen order: the same objects at every call. InputError
// for another name, listing them.
std::vector<std::shared_ptr<const Air>> shipped_airs(std::string_view computation);

// The shipped AIR written in code whose Air::name() is `name` ("keccak", "fibonacci",
// "example_decompose", "example_byte_table"), or null.
std::shared_ptr<const Air> shipped_air_named(std::string_view name);

}  // namespace vkstark
