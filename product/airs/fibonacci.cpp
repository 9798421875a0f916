#include "product/airs/fibonacci.hpp"

#include <fmt/format.h>

#include "runtime/error.hpp"

namespace vkstark {

void FibonacciAir::eval(AirBuilder& b) const {
  const FibonacciCols<Expr> local = read_columns<FibonacciCols>(b.main(), 0);
  const FibonacciCols<Expr> next = read_columns<FibonacciCols>(b.main(), 1);
  const Expr a = b.public_value(0), bb = b.public_value(1), x = b.public_value(2);
  b.when_first_row().assert_eq(local.left, a);
  b.when_first_row().assert_eq(local.right, bb);
  b.when_transition().assert_eq(local.right, next.left);
  b.when_transition().assert_eq(local.left + local.right, next.right);
  b.when_last_row().assert_eq(local.right, x);
}

FibonacciTrace fibonacci_trace(Fp a, Fp b, uint32_t height) {
  if (height == 0 || (height & (height - 1)) != 0)
    throw InputError(fmt::format("AIR fibonacci: trace height {} is not a power of two", height));
  static const FibonacciCols<uint32_t> col = column_indices<FibonacciCols>();
  FibonacciTrace t{TraceMatrix(column_count<FibonacciCols>(), height), {}};
  t.main.at(0, col.left) = a;
  t.main.at(0, col.right) = b;
  for (uint32_t r = 1; r < height; ++r) {
    t.main.at(r, col.left) = t.main.at(r - 1, col.right);
    t.main.at(r, col.right) = t.main.at(r - 1, col.left) + t.main.at(r - 1, col.right);
  }
  t.public_values = {a, b, t.main.at(height - 1, col.right)};
  return t;
}

}  // namespace vkstark
