#include "stages/pcs/layout.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "runtime/error.hpp"

namespace vkstark {

StackedLayout::StackedLayout(std::vector<MatrixShape> shapes, uint32_t l_skip, uint32_t n_stack)
    : shapes_(std::move(shapes)), l_skip_(l_skip), n_stack_(n_stack) {
  if (l_skip + n_stack > 30) throw InputError(fmt::format("stacked height 2^{} is too large", l_skip + n_stack));
  const uint64_t height = stacked_height();
  uint32_t col = 0;
  uint64_t row = 0;
  for (uint32_t m = 0; m < shapes_.size(); ++m) {
    const MatrixShape& s = shapes_[m];
    if (s.log_height > l_skip + n_stack)
      throw InputError(fmt::format("matrix {}: height 2^{} exceeds the stacked height 2^{} (l_skip {} + n_stack {})", m,
                                   s.log_height, l_skip + n_stack, l_skip, n_stack));
    if (m > 0 && s.log_height > shapes_[m - 1].log_height)
      throw InputError(fmt::format("matrix {}: matrices must be sorted by height, descending", m));
    first_slice_.push_back(static_cast<uint32_t>(slices_.size()));
    const uint64_t len = slice_length(s.log_height);
    for (uint32_t j = 0; j < s.width; ++j) {
      if (row + len > height) {  // sorted heights: happens only when the column is full
        ++col;
        row = 0;
      }
      slices_.push_back({m, j, col, row, s.log_height});
      row += len;
    }
  }
  width_ = col + (row != 0 ? 1 : 0);
}

uint64_t StackedLayout::global_start(uint32_t m) const {
  if (shapes_[m].width == 0) return 0;
  const StackedSlice& s = slices_[first_slice_[m]];
  return uint64_t(s.stacked_col) * stacked_height() + s.row_start;
}

}  // namespace vkstark
