#include "stages/reduce.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "kernels/whir.hpp"

namespace vkstark {

void add_sum_reduce(Graph& g, const std::string& name, View<Fp4> in, uint64_t n, uint32_t width, View<Fp4> out) {
  if (in.count < n * width || out.count != width)
    throw GraphError(fmt::format("reduction '{}': {} groups of {} need {} inputs (have {}) and {} outputs (have {})",
                                 name, n, width, n * width, in.count, width, out.count));
  View<Fp4> cur = in;
  for (uint32_t stage = 0;; ++stage) {
    const uint64_t groups = (n + kReduceFanIn - 1) / kReduceFanIn;
    const bool last = groups <= 1;
    View<Fp4> dst = last ? out : g.transient<Fp4>(fmt::format("{}.stage{}", name, stage), groups * width).all();
    g.dispatch<ReduceFp4>(fmt::format("{}.reduce{}", name, stage),
                          {.in = cur.slice(0, n * width), .out = dst, .n = uint32_t(n), .width = width});
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
    const uint64_t groups = (n + kReduceFanIn - 1) / kReduceFanIn;
    View<Fp4> dst = g.transient<Fp4>(fmt::format("{}.stage{}", name, stage), groups * width).all();
    g.dispatch<ReduceFp4>(fmt::format("{}.reduce{}", name, stage),
                          {.in = cur, .out = dst, .n = uint32_t(n), .width = width});
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
