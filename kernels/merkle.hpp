// Merkle openings (protocol.md 2.4, 11.2): gathering the opened rows and the authentication paths
// for query indices that the device transcript drew into a buffer. Row hashing and compress layers
// are in kernels/hashing.hpp.
//
// Tree buffer layout (stages/pcs/merkle.hpp): digest layer 0 (one digest per leaf group,
// `leaves` = query_stride of them) at [0, leaves), layer d (leaves >> d digests) right after layer
// d - 1, the root last: 2 * leaves - 1 digests.
#pragma once

#include "kernels/detail/grid.hpp"
#include "kernels/types.hpp"
#include "runtime/kernel.hpp"

namespace vkstark {

// For query q < idx.count and t < rows_per_query (grid.x = idx.count * rows_per_query):
//   out[(q * rows_per_query + t) * S + c] = matrix[(idx[q] + t * query_stride) * row_stride + c * col_stride]
// for c < width: the 2^k rows of leaf group idx[q], in order of t. An EF matrix of width 1 is a
// base matrix of width 4 (row_stride 4, col_stride 1). S = width and out.count = grid.x * width, or
// with out_stride > 0, S = out_stride: the matrix is a column tile of rows S wide (out starts at the
// tile's first column; out.count >= (grid.x - 1) * S + width).
struct GatherRows {
  static constexpr std::string_view name = "gather_rows";
  struct Args {
    In<uint32_t> idx;
    In<Fp> matrix;
    Out<Fp> out;
    uint32_t width = 0;
    uint32_t rows_per_query = 0;
    uint32_t query_stride = 0;
    uint32_t row_stride = 0;
    uint32_t col_stride = 0;
    uint32_t out_stride = 0;
  };
  static Grid grid(const Args& a) { return {detail::grid_dim(a.idx.view.count * a.rows_per_query)}; }
  static std::string check(const Args& a);
  static void cpu(const Args& a, const CpuContext& ctx);
};

// For query q < grid.x = idx.count and level d < depth (out.count = idx.count * depth): out[q * depth + d] = the
// sibling of the path node at level d, i.e. tree[layer_offset(d) + ((idx[q] >> d) ^ 1)] with layer_offset(d) =
// sum_{e<d} leaves >> e.
struct GatherPaths {
  static constexpr std::string_view name = "gather_paths";
  struct Args {
    In<uint32_t> idx;
    In<Digest> tree;
    Out<Digest> out;
    uint32_t depth = 0;
    uint32_t leaves = 0;
  };
  static Grid grid(const Args& a) { return {detail::grid_dim(a.idx.view.count)}; }
  static std::string check(const Args& a);
  static void cpu(const Args& a, const CpuContext& ctx);
};

}  // namespace vkstark
