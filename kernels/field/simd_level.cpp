#include "kernels/field/simd_level.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <atomic>
#include <cstdlib>
#include <string>

#include "runtime/error.hpp"

namespace vkstark {

namespace {

SimdLevel detect() {
#if defined(__x86_64__) && defined(__GNUC__)
  __builtin_cpu_init();
  // The ISA-level names check every feature the per-ISA translation units are compiled with, and
  // that the OS saves the vector registers.
#if defined(__clang__)
  // Clang 14 (the fuzz targets) knows no level names: the features the units' intrinsics use.
  const bool v3 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("bmi2");
  if (v3 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
      __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512cd"))
    return SimdLevel::Avx512;
  if (v3) return SimdLevel::Avx2;
#else
  if (__builtin_cpu_supports("x86-64-v4")) return SimdLevel::Avx512;
  if (__builtin_cpu_supports("x86-64-v3")) return SimdLevel::Avx2;
#endif
#endif
  return SimdLevel::Scalar;
}

SimdLevel initial_level() {
  SimdLevel level = detected_simd_level();
  const char* cap = std::getenv("VKSTARK_CPU_SIMD");
  if (!cap || !*cap) return level;
  const std::string_view v = cap;
  if (v == "scalar") return SimdLevel::Scalar;
  if (v == "avx2") return level == SimdLevel::Avx512 ? SimdLevel::Avx2 : level;
  if (v != "avx512") spdlog::warn("VKSTARK_CPU_SIMD={}: not avx512, avx2 or scalar; ignored", v);
  return level;
}

std::atomic<SimdLevel>& current() {
  static std::atomic<SimdLevel> level{initial_level()};
  return level;
}

}  // namespace

SimdLevel detected_simd_level() {
  static const SimdLevel level = detect();
  return level;
}

SimdLevel cpu_simd_level() { return current().load(std::memory_order_relaxed); }

void set_cpu_simd_level(SimdLevel level) {
  if (level > detected_simd_level())
    throw InputError(fmt::format("SIMD level {} is not supported by this processor (it has {})", to_string(level),
                                 to_string(detected_simd_level())));
  current().store(level, std::memory_order_relaxed);
}

std::string_view to_string(SimdLevel level) {
  switch (level) {
    case SimdLevel::Avx512:
      return "avx512";
    case SimdLevel::Avx2:
      return "avx2";
    default:
      return "scalar";
  }
}

}  // namespace vkstark
