// Sum reductions on the device: n groups of `width` Fp4 values summed group-wise into `out`
// (width values), by ReduceFp4 stages of up to kReduceFanIn values per invocation.
#pragma once

#include <string>

#include "kernels/types.hpp"
#include "runtime/graph.hpp"

namespace vkstark {

inline constexpr uint64_t kReduceFanIn = 32;  // short sequential sums: latency, not bandwidth, bounds reductions

void add_sum_reduce(Graph& g, const std::string& name, View<Fp4> in, uint64_t n, uint32_t width, View<Fp4> out);

// The same, stopped once at most max_n groups remain (no stage at all if n <= max_n): for a scalar
// program (stages/common/program.hpp) to sum the rest, fused with what uses the sum.
struct ReducedPartials {
  View<Fp4> values;  // count groups of width values
  uint64_t count = 0;
};
ReducedPartials add_partial_reduce(Graph& g, const std::string& name, View<Fp4> in, uint64_t n, uint32_t width,
                                   uint64_t max_n);

// How many terms a scalar program's sum_ext should take at most: its 16 invocations add 16 each.
inline constexpr uint64_t kProgramSumTerms = 256;

// The number of partial sums a first-level kernel should produce for n terms: enough invocations
// to fill a large GPU, few enough that the reduction after it is two short stages.
uint32_t partial_count(uint64_t n);

}  // namespace vkstark
