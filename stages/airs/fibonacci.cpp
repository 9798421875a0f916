#include "stages/airs/fibonacci.hpp"

#include <fmt/format.h>

#include "runtime/error.hpp"

namespace vkstark {

void FibonacciAir::eval(AirBuilder& b) const {
  const Window m = b.main();
  const Expr left = m.local(0), right = m.local(1);
  const Expr a = b.public_value(0), bb = b.public_value(1), x = b.public_value(2);
  b.when_first_row().assert_eq(left, a);
  b.when_first_row().assert_eq(right, bb);
  b.when_transition().assert_eq(right, m.next(0));
  b.when_transition().assert_eq(left + right, m.next(1));
  b.when_last_row().assert_eq(right, x);
}

FibonacciTrace fibonacci_trace(Fp a, Fp b, uint32_t height) {
  if (height == 0 || (height & (height - 1)) != 0)
    throw InputError(fmt::format("AIR fibonacci: trace height {} is not a power of two", height));
  FibonacciTrace t{TraceMatrix(2, height), {}};
  t.main.at(0, 0) = a;
  t.main.at(0, 1) = b;
  for (uint32_t r = 1; r < height; ++r) {
    t.main.at(r, 0) = t.main.at(r - 1, 1);
    t.main.at(r, 1) = t.main.at(r - 1, 0) + t.main.at(r - 1, 1);
  }
  t.public_values = {a, b, t.main.at(height - 1, 1)};
  return t;
}

}  // namespace vkstark
