// Multilinear evaluation of many base-field columns at one extension-field point.
#pragma once

#include "kernels/detail/grid.hpp"
#include "kernels/types.hpp"
#include "runtime/kernel.hpp"

namespace vkstark {

// For column c < grid.y and i < grid.x:
//   partials[i * grid.y + c] = sum_{b = i mod grid.x, b < rows} matrix[c * col_stride + b] * eq[b].
// With eq = eq(., x) (EqTable) the column sums are the columns' MLEs at x; sum the partials with
// add_sum_reduce (width = grid.y). The matrix view holds exactly the grid.y columns of `rows`
// entries (the last one ends the view); the partials view, grid.x partial sums per column.
struct MleEvalColumnsPartials {
  static constexpr std::string_view name = "mle_eval_columns_partials";
  struct Args {
    In<Fp> matrix;
    In<Fp4> eq;
    Out<Fp4> partials;
    uint32_t rows = 0;
    uint32_t col_stride = 0;
  };
  static Grid grid(const Args& a) {
    const uint32_t columns = detail::column_count(a.matrix.view.count, a.rows, a.col_stride);
    return {columns == 0 ? 0 : detail::grid_dim(a.partials.view.count / columns), columns};
  }
  static std::string check(const Args& a);
  static void cpu(const Args& a, const CpuContext& ctx);
};

}  // namespace vkstark
