// Montgomery's batch-inversion trick, shared by Fp and Fp4. Internal header.
#pragma once

#include <fmt/format.h>

#include <span>
#include <vector>

#include "runtime/error.hpp"

namespace vkstark::detail {

template <class F>
void batch_inverse(std::span<F> v, const char* field_name) {
  if (v.empty()) return;
  std::vector<F> prefix(v.size());
  F acc = F::one();
  for (size_t i = 0; i < v.size(); ++i) {
    if (v[i].is_zero())
      throw ArithmeticError(fmt::format("batch_inverse: element {} of {} is zero ({})", i, v.size(), field_name));
    prefix[i] = acc;
    acc *= v[i];
  }
  F inv = acc.inverse();
  for (size_t i = v.size(); i-- > 0;) {
    F vi = v[i];
    v[i] = inv * prefix[i];
    inv *= vi;
  }
}

}  // namespace vkstark::detail
