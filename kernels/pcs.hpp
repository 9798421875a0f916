// Writing traces into the stacked matrix of the commitment (protocol.md 6.1; the graph builder is
// stages/pcs/stacked.cpp).
#pragma once

#include "kernels/detail/grid.hpp"
#include "kernels/types.hpp"
#include "runtime/kernel.hpp"

namespace vkstark {

// Copies a column-major trace (grid.y columns of grid.x = 2^log_height rows; column j at
// src[j * 2^log_height]) into the stacked matrix: entry (i, j) goes to global position
//   pos = start_row + j * 2^log_slice + i * 2^log_stride
// of the stacked columns (stacked column start_col + pos / 2^log_stacked_height, row
// pos mod 2^log_stacked_height), stored at dst[col * dst_col_stride + row]. log_slice =
// max(log_height, l_skip), log_stride = max(l_skip - log_height, 0), so log_height =
// log_slice - log_stride, and src holds the whole trace. Rows in between are left alone (the caller
// zero-fills the matrix first).
struct StackColumns {
  static constexpr std::string_view name = "stack_columns";
  struct Args {
    In<Fp> src;
    Out<Fp> dst;
    uint32_t log_slice = 0;
    uint32_t log_stride = 0;
    uint32_t log_stacked_height = 0;
    uint32_t start_col = 0;
    uint32_t start_row = 0;
    uint32_t dst_col_stride = 0;
  };
  static Grid grid(const Args& a) {
    const uint64_t height = a.log_stride <= a.log_slice ? detail::pow2(a.log_slice - a.log_stride) : 0;
    return {detail::grid_dim(height), height == 0 ? 0 : detail::grid_dim(a.src.view.count / height)};
  }
  static std::string check(const Args& a);
  static void cpu(const Args& a, const CpuContext& ctx);
};

}  // namespace vkstark
