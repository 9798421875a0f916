// Progress of slow work inside the library, for a front end to show (cli/progress.hpp draws it on a
// terminal). The library prints nothing: it tells the process's listener, when one is installed, and
// costs one atomic load when none is.
//
// Reported today: "compiling kernels", done of total, as the Vulkan executor compiles the pipelines
// of a plan (Pipelines::create_all, in prepare; seconds on a cold pipeline cache).
//
//   struct Bar final : ProgressListener {
//     void progress(std::string_view what, uint64_t done, uint64_t total) noexcept override { ... }
//   } bar;
//   ProgressListener* before = set_progress_listener(&bar);
//   auto prepared = prover.prepare(traces);
//   set_progress_listener(before);
//
// Thread-safe. Header-only, so that front ends that do not link the library (cli/) can listen.
#pragma once

#include <atomic>
#include <cstdint>
#include <string_view>

namespace vkstark {

class ProgressListener {
 public:
  virtual ~ProgressListener() = default;
  // `done` of `total` units of `what` are finished (done 0 as the work starts). Called from any
  // thread and concurrently (pipelines compile in parallel), so `done` may arrive out of order:
  // keep the largest. Be quick and thread-safe; `what` lives only during the call.
  virtual void progress(std::string_view what, uint64_t done, uint64_t total) noexcept = 0;
};

namespace detail {
inline std::atomic<ProgressListener*> progress_listener{nullptr};
}  // namespace detail

// Installs `listener` for the whole process (nullptr: none) and returns the one it replaces. Keep it
// alive until it is replaced and the work it listened to has returned.
inline ProgressListener* set_progress_listener(ProgressListener* listener) noexcept {
  return detail::progress_listener.exchange(listener, std::memory_order_acq_rel);
}

// For the library: tells the listener, if there is one.
inline void report_progress(std::string_view what, uint64_t done, uint64_t total) noexcept {
  if (ProgressListener* l = detail::progress_listener.load(std::memory_order_acquire)) l->progress(what, done, total);
}

}  // namespace vkstark
