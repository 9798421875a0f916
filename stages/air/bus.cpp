#include "stages/air/bus.hpp"

#include <fmt/format.h>

#include "runtime/error.hpp"

namespace vkstark {

void LookupCounts::add(uint64_t row, uint32_t times) {
  if (row >= counts_.size())
    throw InputError(fmt::format("lookup table {}: key {} is not in the table (rows 0..{}): nothing can provide it",
                                 table_, row, counts_.size() - 1));
  counts_[row] += times;
}

std::vector<Fp> LookupCounts::column() const {
  std::vector<Fp> c(counts_.size());
  for (size_t i = 0; i < counts_.size(); ++i) {
    if (counts_[i] >= Fp::P)
      throw InputError(fmt::format("lookup table {}: row {} is looked up {} times, p or more: the count wraps", table_,
                                   i, counts_[i]));
    c[i] = Fp::from_canonical(static_cast<uint32_t>(counts_[i]));
  }
  return c;
}

}  // namespace vkstark
