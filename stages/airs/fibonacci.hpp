// The Fibonacci AIR of protocol.md 15.2 (the reference's FibonacciAir): columns (left, right), public
// values [a, b, x]; first row (a, b), each next row (right, left + right), the last row's right = x.
// Five constraints of degree 2, in the reference's order.
#pragma once

#include <cstdint>

#include "stages/air/air.hpp"

namespace vkstark {

class FibonacciAir final : public Air {
 public:
  std::string name() const override { return "fibonacci"; }
  AirShape shape() const override { return {.common_width = 2, .num_public_values = 3}; }
  void eval(AirBuilder& b) const override;
};

// The trace of `height` rows (a power of two) from (a, b), and its public values [a, b, x].
struct FibonacciTrace {
  TraceMatrix main;
  std::vector<Fp> public_values;
};
FibonacciTrace fibonacci_trace(Fp a, Fp b, uint32_t height);

}  // namespace vkstark
