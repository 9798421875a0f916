#include "stages/common/reduce.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "kernels/whir.hpp"

namespace vkstark {

namespace {

// One reduction stage of n groups of `width` into ceil(n / kReduceFanIn) groups: one ReduceFp4,
// or, where the input does not fit one binding, one per range of input groups (each range's sums
// into its own output groups: the stage's groups add up to the same totals).
View<Fp4> reduce_stage(Graph& g, const std::string& task, View<Fp4> in, uint64_t n, uint32_t width, View<Fp4> dst) {
  const uint64_t group_bytes = uint64_t(width) * sizeof(Fp4);
  if (g.memory_limits().binds(0, n * group_bytes) || n <= kReduceFanIn) {
    g.dispatch<ReduceFp4>(task, {.in = in.slice(0, n * width), .out = dst, .n = uint32_t(n), .width = width});
    return dst;
  }
  uint64_t range = g.memory_limits().max_view_bytes() / group_bytes / kReduceFanIn * kReduceFanIn;
  if (range == 0)
    throw GraphError(fmt::format("reduction '{}': {} groups of {} bytes do not fit one binding ({} bytes)", task,
                                 kReduceFanIn, group_bytes, g.memory_limits().max_view_bytes()));
  for (uint64_t j0 = 0, o0 = 0; j0 < n; j0 += range) {
    const uint64_t m = std::min(range, n - j0), groups = (m + kReduceFanIn - 1) / kReduceFanIn;
    g.dispatch<ReduceFp4>(fmt::format("{}.{}", task, j0 / range), {.in = in.slice(j0 * width, m * width),
                                                                   .out = dst.slice(o0 * width, groups * width),
                                                                   .n = uint32_t(m),
                                                                   .width = width});
    o0 += groups;
  }
  return dst;
}

// Output groups of a stage over n groups: ceil(n / fan-in), or per range when split (the same
// count where the ranges are whole multiples of the fan-in, as they are).
uint64_t stage_groups(uint64_t n) { return (n + kReduceFanIn - 1) / kReduceFanIn; }

}  // namespace

void add_sum_reduce(Graph& g, const std::string& name, View<Fp4> in, uint64_t n, uint32_t width, View<Fp4> out) {
  if (in.count < n * width || out.count != width)
    throw GraphError(fmt::format("reduction '{}': {} groups of {} need {} inputs (have {}) and {} outputs (have {})",
                                 name, n, width, n * width, in.count, width, out.count));
  View<Fp4> cur = in;
  for (uint32_t stage = 0;; ++stage) {
    const uint64_t groups = (n + kReduceFanIn - 1) / kReduceFanIn;
    const bool last = groups <= 1;
    View<Fp4> dst = last ? out : g.transient<Fp4>(fmt::format("{}.stage{}", name, stage), groups * width).all();
    reduce_stage(g, fmt::format("{}.reduce{}", name, stage), cur, n, width, dst);
    if (last) return;
    cur = dst;
    n = groups;
  }
}

ReducedPartials add_partial_reduce(Graph& g, const std::string& name, View<Fp4> in, uint64_t n, uint32_t width,
                                   uint64_t max_n) {
  if (in.count < n * width || max_n == 0)
    throw GraphError(fmt::format("reduction '{}': {} groups of {} need {} inputs (have {}), down to {} groups", name, n,
                                 width, n * width, in.count, max_n));
  View<Fp4> cur = in.slice(0, n * width);
  for (uint32_t stage = 0; n > max_n; ++stage) {
    const uint64_t groups = stage_groups(n);
    View<Fp4> dst = g.transient<Fp4>(fmt::format("{}.stage{}", name, stage), groups * width).all();
    reduce_stage(g, fmt::format("{}.reduce{}", name, stage), cur, n, width, dst);
    cur = dst;
    n = groups;
  }
  return {cur, n};
}

uint32_t partial_count(uint64_t n) {
  // About kReduceFanIn terms per partial (the same latency trade as a reduction stage's), at most
  // 2^16 partials (two stages of kReduceFanIn reduce them to 64 for the program's sum_ext).
  return static_cast<uint32_t>(std::clamp<uint64_t>(n / kReduceFanIn, 1, 1u << 16));
}

}  // namespace vkstark
