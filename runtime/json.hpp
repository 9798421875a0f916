// Minimal JSON writing helpers shared by the trace sinks and the benchmarks' result files.
#pragma once

#include <string>
#include <string_view>

namespace vkstark {

// A JSON string literal with escapes.
std::string json_string(std::string_view s);
// A JSON number (finite doubles; NaN and infinities become null).
std::string json_number(double v);

}  // namespace vkstark
