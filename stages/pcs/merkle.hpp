// Merkle trees over the rows of a matrix with leaf groups of 2^k rows (protocol.md 2.4): the
// graph builder (device), the opening gatherer, and the host-side verification. Thread-compatible.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "kernels/hash/hash.hpp"
#include "kernels/types.hpp"
#include "runtime/graph.hpp"
#include "stages/pcs/merkle_verify.hpp"

namespace vkstark {

// A matrix as the hashing kernels read it: entry (r, c) at data[r * row_stride + c * col_stride].
struct MatrixView {
  View<Fp> data;
  uint32_t width = 0;
  uint32_t log_rows = 0;
  uint64_t row_stride = 0;
  uint64_t col_stride = 0;
};

struct MerkleTree {
  Buffer<Digest> nodes;  // digest layer 0 (leaf groups) .. root, see kernels/merkle.hpp
  uint32_t log_rows = 0;
  uint32_t k = 0;
  uint64_t leaves() const { return uint64_t(1) << (log_rows - k); }
  uint32_t depth() const { return log_rows - k; }  // Merkle path length
  uint64_t query_stride() const { return leaves(); }
  View<Digest> root() const { return nodes.slice(2 * leaves() - 2, 1); }
};

// Adds the dispatches that hash the rows, combine each leaf group with k strided layers, and build
// the binary tree above it. Tasks are named "<name>.rows", "<name>.group<i>", "<name>.layer<d>".
// InputError if k > log_rows.
[[nodiscard]] MerkleTree build_merkle_tree(Graph& g, const std::string& name, const MatrixView& m, uint32_t k);
// The same for a matrix in column tiles (consecutive columns each, all of 2^log_rows rows): the
// rows' sponges absorb tile after tile ("<name>.rows.<t>", HashRowsAbsorb), so that each
// dispatch binds one tile. One tile is the call above.
// With `persistent`, the nodes are a Persistent buffer "<name>.nodes" (kept by the executor across
// plans; merkle_tree_of declares it again in another plan).
[[nodiscard]] MerkleTree build_merkle_tree(Graph& g, const std::string& name, std::span<const MatrixView> tiles,
                                           uint32_t k, bool persistent = false);
// The tree a Persistent build_merkle_tree("<name>", ..., k, true) of rows of 2^log_rows made in an
// earlier plan of the executor, declared in `g` (no task).
[[nodiscard]] MerkleTree merkle_tree_of(Graph& g, const std::string& name, uint32_t log_rows, uint32_t k);

// Adds the dispatches that gather, for every query index in `idx`, the 2^k rows of its leaf group
// (rows_out: idx.count * 2^k * width values) and its authentication path (paths_out: idx.count *
// depth digests).
void open_merkle(Graph& g, const std::string& name, const MerkleTree& tree, const MatrixView& m, View<uint32_t> idx,
                 View<Fp> rows_out, View<Digest> paths_out);
// The same for a matrix in column tiles: each tile's rows gathered into its columns of the opened
// rows ("<name>.rows.<t>").
void open_merkle(Graph& g, const std::string& name, const MerkleTree& tree, std::span<const MatrixView> tiles,
                 View<uint32_t> idx, View<Fp> rows_out, View<Digest> paths_out);

}  // namespace vkstark
