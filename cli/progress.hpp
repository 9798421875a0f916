// Progress lines for long runs (vkstark prove, the keccakf example): each step as it finishes,
// with its time, on stderr; nothing with --quiet or when stderr is not a terminal, so that logs and
// pipes get only the results.
//
//   cli::Progress progress(quiet);
//   auto pk = progress.step("keygen", [&] { return keygen(airs, params, exec); });
//   progress.follow_spans(trace, 3);   // the proof's phases as they finish (CPU executor)
//
// Thread-compatible; call it from one thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "runtime/trace.hpp"

namespace vkstark::cli {

class Progress {
 public:
  explicit Progress(bool quiet);
  bool enabled() const { return enabled_; }

  // Runs f and returns what it returns; prints "  <what>: <time>" when it is done.
  template <class F>
  decltype(auto) step(std::string_view what, F&& f) {
    const auto t0 = std::chrono::steady_clock::now();
    if constexpr (std::is_void_v<std::invoke_result_t<F>>) {
      f();
      done(what, since(t0));
    } else {
      decltype(auto) result = f();
      done(what, since(t0));
      return result;
    }
  }
  void done(std::string_view what, double ms) const;

  // Prints each span of `trace` down to `max_depth` (the run's span is depth 0) as it finishes,
  // indented by depth: during the run on executors that report span ends (Trace::on_span_end),
  // and for the rest in report_remaining_spans, once the run is over. Keep `trace` alive and
  // unmoved while it runs.
  void follow_spans(Trace& trace, uint32_t max_depth);
  // After the run: the spans not reported yet, in start order with their device times.
  void report_remaining_spans(const Trace& trace);

 private:
  static double since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  }
  uint32_t depth(const Trace& trace, uint32_t span) const;
  void span_line(const Trace& trace, uint32_t span, double ms) const;

  bool enabled_;
  uint32_t max_depth_ = 0;
  std::vector<bool> reported_;
};

}  // namespace vkstark::cli
