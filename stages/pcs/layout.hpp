// The stacked layout of protocol.md 6.1: where each column of each trace of a commitment sits in
// the stacked matrix of height 2^(l_skip + n_stack). Pure host computation, used by the prover's
// graph builder and by the verifier alike. Value type; thread-compatible.
#pragma once

#include <cstdint>
#include <vector>

namespace vkstark {

struct MatrixShape {
  uint32_t width = 0;
  uint32_t log_height = 0;
};

struct StackedSlice {
  uint32_t matrix = 0;  // index into the shapes given to StackedLayout
  uint32_t column = 0;  // column of that matrix
  uint32_t stacked_col = 0;
  uint64_t row_start = 0;
  uint32_t log_height = 0;  // of the matrix
};

class StackedLayout {
 public:
  // `shapes` in sorted order (height descending). InputError if a log_height exceeds
  // l_skip + n_stack or the shapes are not sorted.
  StackedLayout(std::vector<MatrixShape> shapes, uint32_t l_skip, uint32_t n_stack);

  uint32_t l_skip() const { return l_skip_; }
  uint32_t n_stack() const { return n_stack_; }
  uint32_t log_stacked_height() const { return l_skip_ + n_stack_; }
  uint64_t stacked_height() const { return uint64_t(1) << log_stacked_height(); }
  uint32_t stacked_width() const { return width_; }
  const std::vector<MatrixShape>& shapes() const { return shapes_; }
  // Every column slice in layout order (matrix by matrix, column by column).
  const std::vector<StackedSlice>& slices() const { return slices_; }
  // Index in slices() of the first column of matrix `m`.
  uint32_t first_slice(uint32_t m) const { return first_slice_[m]; }
  // Slice length in the stacked column: 2^max(log_height, l_skip).
  uint64_t slice_length(uint32_t log_height) const { return uint64_t(1) << std::max(log_height, l_skip_); }
  // Position of matrix m's first entry as a global index col * stacked_height + row (slices of one
  // matrix follow each other without gaps, so column j starts slice_length * j later).
  uint64_t global_start(uint32_t m) const;

 private:
  std::vector<MatrixShape> shapes_;
  uint32_t l_skip_, n_stack_;
  uint32_t width_ = 0;
  std::vector<StackedSlice> slices_;
  std::vector<uint32_t> first_slice_;
};

}  // namespace vkstark
