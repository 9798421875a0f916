// Helpers for CPU kernel bodies: TBB loops over a dispatch's index space.
#pragma once

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <cstdint>

namespace vkstark::cpu {

// f(i) for i in [0, n), in parallel chunks of at least `grain`.
template <class F>
void for_each_index(uint64_t n, F&& f, uint64_t grain = 4096) {
  if (n <= grain) {
    for (uint64_t i = 0; i < n; ++i) f(i);
    return;
  }
  tbb::parallel_for(tbb::blocked_range<uint64_t>(0, n, grain), [&](const tbb::blocked_range<uint64_t>& r) {
    for (uint64_t i = r.begin(); i < r.end(); ++i) f(i);
  });
}

// f(begin, end) over parallel chunks of [0, n).
template <class F>
void for_each_chunk(uint64_t n, F&& f, uint64_t grain = 4096) {
  if (n <= grain) {
    if (n) f(uint64_t(0), n);
    return;
  }
  tbb::parallel_for(tbb::blocked_range<uint64_t>(0, n, grain),
                    [&](const tbb::blocked_range<uint64_t>& r) { f(r.begin(), r.end()); });
}

}  // namespace vkstark::cpu
