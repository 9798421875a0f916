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
// rows' sponges absorb tile after tile ("<name>.rows.<t>", HashRowsAbsorb: MerkleRowsBuilder), so
// that each dispatch binds one tile. One tile is the call above.
// With `persistent`, the nodes are a Persistent buffer "<name>.nodes" (kept by the executor across
// plans; merkle_tree_of declares it again in another plan).
[[nodiscard]] MerkleTree build_merkle_tree(Graph& g, const std::string& name, std::span<const MatrixView> tiles,
                                           uint32_t k, bool persistent = false);
// The tree a Persistent build_merkle_tree("<name>", ..., k, true) of rows of 2^log_rows made in an
// earlier plan of the executor, declared in `g` (no task).
[[nodiscard]] MerkleTree merkle_tree_of(Graph& g, const std::string& name, uint32_t log_rows, uint32_t k);

// A tree built while its matrix is made: the rows' sponges absorb column tiles in column order as
// each is ready (HashRowsAbsorb, the sponge state carried between them), so that a tile's memory
// can be reused once absorbed; finish() adds the leaf groups and the tree. The tree's nodes equal
// build_merkle_tree's over the same tiles. Tasks "<name>.rows.<i>[.r<j>]", then as build_merkle_tree.
class MerkleRowsBuilder {
 public:
  // `width`: the columns all tiles will add up to. InputError if k > log_rows. `persistent`: the
  // nodes as build_merkle_tree's.
  MerkleRowsBuilder(Graph& g, std::string name, uint32_t log_rows, uint32_t width, uint32_t k, bool persistent = false);
  // The next tile: columns [absorbed(), absorbed() + tile.width). GraphError past `width` or for
  // another height.
  void absorb(const MatrixView& tile);
  uint32_t absorbed() const { return absorbed_; }
  // GraphError unless every column was absorbed.
  [[nodiscard]] MerkleTree finish();

 private:
  Graph& g_;
  std::string name_;
  MerkleTree tree_;
  uint32_t width_ = 0, absorbed_ = 0, tiles_ = 0;
  uint64_t rows_ = 0, per_ = 0;  // rows, rows per dispatch
  View<Fp> state_;
  View<Digest> digests_;  // row digests (the leaves when k = 0)
};

// Adds the dispatches that gather, for every query index in `idx`, the 2^k rows of its leaf group
// (rows_out: idx.count * 2^k * width values) and its authentication path (paths_out: idx.count *
// depth digests).
void open_merkle(Graph& g, const std::string& name, const MerkleTree& tree, const MatrixView& m, View<uint32_t> idx,
                 View<Fp> rows_out, View<Digest> paths_out);
// The same for a matrix in column tiles: each tile's rows gathered into its columns of the opened
// rows ("<name>.rows.<t>").
void open_merkle(Graph& g, const std::string& name, const MerkleTree& tree, std::span<const MatrixView> tiles,
                 View<uint32_t> idx, View<Fp> rows_out, View<Digest> paths_out);
// The two halves of open_merkle, for openings whose matrix is made piece by piece: the queried
// rows of `m` into columns [first_column, first_column + m.width) of opened rows `width` wide
// (rows_out: idx.count * 2^k * width values), as task `task` (".q<j>" added where the queries are
// split to fit a binding); then the authentication paths ("<name>.paths").
void gather_opened_rows(Graph& g, const std::string& task, const MerkleTree& tree, const MatrixView& m,
                        View<uint32_t> idx, uint64_t first_column, uint64_t width, View<Fp> rows_out);
void gather_opened_paths(Graph& g, const std::string& name, const MerkleTree& tree, View<uint32_t> idx,
                         View<Digest> paths_out);

}  // namespace vkstark
