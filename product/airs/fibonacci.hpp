// The Fibonacci AIR of protocol.md 15.2 (the reference's FibonacciAir): columns FibonacciCols (left,
// right), public values [a, b, x]; first row (a, b), each next row (right, left + right), the last
// row's right = x. Five constraints of degree 2, in the reference's order.
#pragma once

#include <cstdint>

#include "stages/air/air.hpp"
#include "stages/air/columns.hpp"

namespace vkstark {

// The columns (stages/air/columns.hpp): row i holds (F_i, F_(i+1)) of the sequence from (a, b).
template <class T>
struct FibonacciCols {
  T left, right;
  template <class F>
  void visit(F&& f) {
    f("left", left);
    f("right", right);
  }
};

class FibonacciAir final : public Air {
 public:
  std::string name() const override { return "fibonacci"; }
  AirShape shape() const override { return {.common_width = column_count<FibonacciCols>(), .num_public_values = 3}; }
  std::vector<std::vector<std::string>> column_names() const override { return {column_names_of<FibonacciCols>()}; }
  void eval(AirBuilder& b) const override;
};

// The trace of `height` rows (a power of two) from (a, b), and its public values [a, b, x].
struct FibonacciTrace {
  TraceMatrix main;
  std::vector<Fp> public_values;
};
FibonacciTrace fibonacci_trace(Fp a, Fp b, uint32_t height);

}  // namespace vkstark
