// Wall time in milliseconds, for progress lines, traces and benchmarks.
#pragma once

#include <chrono>

namespace vkstark {

// Milliseconds from `start` to now (steady clock).
inline double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

// Milliseconds from `a` to `b` (negative when b is earlier).
inline double ms_between(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

}  // namespace vkstark
