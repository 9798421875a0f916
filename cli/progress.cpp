#include "cli/progress.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <numeric>

namespace vkstark::cli {

namespace {
std::string duration(double ms) {
  return ms < 1000 ? fmt::format("{:.1f} ms", ms) : fmt::format("{:.2f} s", ms / 1000);
}
}  // namespace

Progress::Progress(bool quiet) : enabled_(!quiet && isatty(STDERR_FILENO) == 1) {}

void Progress::done(std::string_view what, double ms) const {
  if (!enabled_) return;
  fmt::print(stderr, "  {}: {}\n", what, duration(ms));
  std::fflush(stderr);
}

uint32_t Progress::depth(const Trace& trace, uint32_t span) const {
  uint32_t d = 0;
  for (int32_t s = trace.spans[span].parent; s >= 0; s = trace.spans[s].parent) ++d;
  return d;
}

void Progress::span_line(const Trace& trace, uint32_t span, double ms) const {
  const uint32_t d = depth(trace, span);
  if (d == 0 || d > max_depth_) return;
  fmt::print(stderr, "  {:>{}}{} done: {}\n", "", 2 * (d - 1), trace.spans[span].name, duration(ms));
  std::fflush(stderr);
}

void Progress::follow_spans(Trace& trace, uint32_t max_depth) {
  if (!enabled_) return;
  max_depth_ = max_depth;
  reported_.clear();
  trace.on_span_end = [this, &trace](uint32_t span, double elapsed_ms) {
    if (reported_.size() < trace.spans.size()) reported_.resize(trace.spans.size(), false);
    reported_[span] = true;
    span_line(trace, span, elapsed_ms);
  };
}

void Progress::report_remaining_spans(const Trace& trace) {
  if (!enabled_) return;
  std::vector<uint32_t> order(trace.spans.size());
  std::iota(order.begin(), order.end(), 0u);
  // Finishing order: by end time, inner spans before the outer ones ending with them.
  auto end = [&](uint32_t s) {
    const TraceSpan& sp = trace.spans[s];
    return sp.device_ms >= 0 ? sp.device_start_ms + sp.device_ms : sp.host_start_ms + sp.host_ms;
  };
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    if (end(a) != end(b)) return end(a) < end(b);
    return depth(trace, a) > depth(trace, b);
  });
  for (uint32_t s : order) {
    if (s < reported_.size() && reported_[s]) continue;
    const TraceSpan& sp = trace.spans[s];
    if (sp.device_ms < 0 && sp.host_ms <= 0) continue;  // not reached in this run
    span_line(trace, s, sp.device_ms >= 0 ? sp.device_ms : sp.host_ms);
  }
}

}  // namespace vkstark::cli
