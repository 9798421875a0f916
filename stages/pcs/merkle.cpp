#include "stages/pcs/merkle.hpp"

#include <fmt/format.h>

#include <bit>
#include <vector>

#include "kernels/basic.hpp"
#include "kernels/hashing.hpp"
#include "kernels/merkle.hpp"

namespace vkstark {

MerkleTree build_merkle_tree(Graph& g, const std::string& name, const MatrixView& m, uint32_t k) {
  return build_merkle_tree(g, name, std::span<const MatrixView>(&m, 1), k);
}

namespace {

// The widest layer (in compressions) that MerkleCompressLevels makes. Below it one invocation's
// permutation latency sets a layer's time (H100: about 13-19 us a layer from 2^12 compressions
// down, against 2.6 us for a cooperative permutation); above it the throughput of one invocation
// per compression wins (the cooperative permutation takes more instructions in all).
constexpr uint64_t kMerkleLevelsFrom = uint64_t(1) << 12;

// Rows per dispatch so that `bytes_per_row` times them fits one binding: all of them where they
// fit, else the largest power of two (at least `align` rows, a power of two).
uint64_t rows_per_dispatch(const Graph& g, uint64_t rows, uint64_t bytes_per_row, uint64_t align,
                           const std::string& what) {
  const uint64_t max_view = g.memory_limits().max_view_bytes();
  if (rows * bytes_per_row <= max_view) return rows;
  uint64_t n = std::bit_floor(std::max<uint64_t>(max_view / bytes_per_row, 1));
  if (n < align || n * bytes_per_row > max_view)
    throw GraphError(
        fmt::format("{}: {} rows of {} bytes do not fit one binding ({} bytes)", what, align, bytes_per_row, max_view));
  return n;
}

// One compress layer (MerkleCompressLayer), in dispatches of whole stride blocks that each bind
// at most one binding of input.
void compress_layer(Graph& g, const std::string& task, View<Digest> in, View<Digest> out, uint64_t stride) {
  const uint64_t n = rows_per_dispatch(g, out.count, 2 * sizeof(Digest), stride, "Merkle layer '" + task + "'");
  for (uint64_t i0 = 0; i0 < out.count; i0 += n) {
    const uint64_t len = std::min(n, out.count - i0);
    g.dispatch<MerkleCompressLayer>(
        n == out.count ? task : fmt::format("{}.{}", task, i0 / n),
        {.in = in.slice(2 * i0, 2 * len), .out = out.slice(i0, len), .stride = uint32_t(stride)});
  }
}

void compress_groups(Graph& g, const std::string& name, const MerkleTree& t, View<Digest> level);
void compress_tree(Graph& g, const std::string& name, const MerkleTree& t);

}  // namespace

MerkleTree merkle_tree_of(Graph& g, const std::string& name, uint32_t log_rows, uint32_t k) {
  if (k > log_rows)
    throw InputError(fmt::format("Merkle tree '{}': leaf groups of 2^{} rows but only 2^{} rows", name, k, log_rows));
  MerkleTree t;
  t.log_rows = log_rows;
  t.k = k;
  t.nodes = g.persistent<Digest>(name + ".nodes", 2 * t.leaves() - 1);
  return t;
}

MerkleTree build_merkle_tree(Graph& g, const std::string& name, std::span<const MatrixView> tiles, uint32_t k,
                             bool persistent) {
  if (tiles.empty()) throw GraphError(fmt::format("Merkle tree '{}': no matrix", name));
  const MatrixView& m = tiles[0];
  if (tiles.size() > 1) {  // the rows' sponges absorb tile after tile
    uint32_t width = 0;
    for (const MatrixView& tile : tiles) width += tile.width;
    MerkleRowsBuilder rows(g, name, m.log_rows, width, k, persistent);
    for (const MatrixView& tile : tiles) rows.absorb(tile);
    return rows.finish();
  }
  if (k > m.log_rows)
    throw InputError(fmt::format("Merkle tree '{}': leaf groups of 2^{} rows but only 2^{} rows", name, k, m.log_rows));
  MerkleTree t;
  t.log_rows = m.log_rows;
  t.k = k;
  const uint64_t rows = uint64_t(1) << m.log_rows, leaves = t.leaves();
  t.nodes = persistent ? g.persistent<Digest>(name + ".nodes", 2 * leaves - 1)
                       : g.transient<Digest>(name + ".nodes", 2 * leaves - 1);
  // Row digests (the leaves when k = 0), in dispatches of rows [r0, r0 + n) that bind the matrix
  // from row r0 (the whole matrix when column-major, which fits a binding).
  const View<Digest> out = k == 0 ? t.nodes.slice(0, leaves) : g.transient<Digest>(name + ".row_digests", rows).all();
  const uint64_t n = rows_per_dispatch(g, rows, sizeof(Digest), 1, "Merkle tree '" + name + "'");
  for (uint64_t r0 = 0; r0 < rows; r0 += n) {
    const uint64_t at = r0 * m.row_stride;
    g.dispatch<HashRows>(n == rows ? name + ".rows" : fmt::format("{}.rows.r{}", name, r0 / n),
                         {.matrix = m.data.slice(at, m.data.count - at),
                          .out = out.slice(r0, std::min(n, rows - r0)),
                          .width = m.width,
                          .row_stride = uint32_t(m.row_stride),
                          .col_stride = uint32_t(m.col_stride)});
  }
  // k strided layers that halve the row digests down to one per leaf group, then the tree.
  if (k > 0) compress_groups(g, name, t, out);
  compress_tree(g, name, t);
  return t;
}

namespace {

// The k strided layers from the row digests `level` down to one digest per leaf group (the tree's
// first layer).
void compress_groups(Graph& g, const std::string& name, const MerkleTree& t, View<Digest> level) {
  const uint64_t rows = uint64_t(1) << t.log_rows, leaves = t.leaves();
  for (uint32_t i = 0; i < t.k; ++i) {
    const uint64_t n = rows >> (i + 1);
    const std::string task = fmt::format("{}.group{}", name, i);
    View<Digest> out = i + 1 == t.k ? t.nodes.slice(0, leaves) : g.transient<Digest>(task, n).all();
    compress_layer(g, task, level, out, leaves);
    level = out;
  }
}

// The binary tree above the leaf groups' digests.
void compress_tree(Graph& g, const std::string& name, const MerkleTree& t) {
  const uint64_t leaves = t.leaves();
  // Wide layers one dispatch each (an invocation per compression: throughput); from the layer of
  // kMerkleLevelsFrom compressions up, MerkleCompressLevels, up to 4 layers a dispatch (16
  // invocations per compression: latency).
  uint64_t offset = 0;
  for (uint32_t d = 0; (leaves >> d) > 1;) {
    const uint64_t n = leaves >> d, half = n / 2;
    if (half > kMerkleLevelsFrom) {
      compress_layer(g, fmt::format("{}.layer{}", name, d), t.nodes.slice(offset, n), t.nodes.slice(offset + n, half),
                     1);
      offset += n;
      ++d;
      continue;
    }
    const uint32_t levels = std::min<uint32_t>(MerkleCompressLevels::max_levels, uint32_t(std::countr_zero(n)));
    const uint64_t last = half >> (levels - 1), out_n = 2 * half - last;
    g.dispatch<MerkleCompressLevels>(
        levels == 1 ? fmt::format("{}.layer{}", name, d) : fmt::format("{}.layers{}-{}", name, d, d + levels - 1),
        {.in = t.nodes.slice(offset, n), .out = t.nodes.slice(offset + n, out_n), .levels = levels});
    offset += n + out_n - last;  // the next dispatch reads the last layer written
    d += levels;
  }
}

}  // namespace

MerkleRowsBuilder::MerkleRowsBuilder(Graph& g, std::string name, uint32_t log_rows, uint32_t width, uint32_t k,
                                     bool persistent)
    : g_(g), name_(std::move(name)), width_(width) {
  if (k > log_rows)
    throw InputError(fmt::format("Merkle tree '{}': leaf groups of 2^{} rows but only 2^{} rows", name_, k, log_rows));
  tree_.log_rows = log_rows;
  tree_.k = k;
  rows_ = uint64_t(1) << log_rows;
  tree_.nodes = persistent ? g.persistent<Digest>(name_ + ".nodes", 2 * tree_.leaves() - 1)
                           : g.transient<Digest>(name_ + ".nodes", 2 * tree_.leaves() - 1);
  digests_ = k == 0 ? tree_.nodes.slice(0, tree_.leaves()) : g.transient<Digest>(name_ + ".row_digests", rows_).all();
  state_ = g.transient<Fp>(name_ + ".row_states", 16 * rows_).all();
  per_ = rows_per_dispatch(g, rows_, 16 * sizeof(Fp), 1, "Merkle tree '" + name_ + "'");
  for (uint64_t r0 = 0; r0 < rows_; r0 += per_) {
    const std::string range = per_ == rows_ ? std::string() : fmt::format(".r{}", r0 / per_);
    g.dispatch<FillU32>(
        name_ + ".row_states.zero" + range,
        {.out = state_.slice(16 * r0, 16 * std::min(per_, rows_ - r0)).bitcast<uint32_t>(), .value = 0});
  }
}

void MerkleRowsBuilder::absorb(const MatrixView& tile) {
  if (tile.log_rows != tree_.log_rows || absorbed_ + uint64_t(tile.width) > width_)
    throw GraphError(fmt::format("Merkle tree '{}': a tile of {} columns of 2^{} rows after {} of {} columns of 2^{}",
                                 name_, tile.width, tile.log_rows, absorbed_, width_, tree_.log_rows));
  const bool last = absorbed_ + tile.width == width_;
  for (uint64_t r0 = 0; r0 < rows_; r0 += per_) {
    const uint64_t len = std::min(per_, rows_ - r0), at = r0 * tile.row_stride;
    const std::string range = per_ == rows_ ? std::string() : fmt::format(".r{}", r0 / per_);
    g_.dispatch<HashRowsAbsorb>(fmt::format("{}.rows.{}{}", name_, tiles_, range),
                                {.matrix = tile.data.slice(at, tile.data.count - at),
                                 .state = state_.slice(16 * r0, 16 * len),
                                 .out = last ? digests_.slice(r0, len) : digests_.slice(r0, 0),
                                 .width = tile.width,
                                 .row_stride = uint32_t(tile.row_stride),
                                 .col_stride = uint32_t(tile.col_stride),
                                 .first_column = absorbed_,
                                 .last = last ? 1u : 0u});
  }
  absorbed_ += tile.width;
  ++tiles_;
}

MerkleTree MerkleRowsBuilder::finish() {
  if (absorbed_ != width_)
    throw GraphError(fmt::format("Merkle tree '{}': {} of {} columns absorbed", name_, absorbed_, width_));
  if (tree_.k > 0) compress_groups(g_, name_, tree_, digests_);
  compress_tree(g_, name_, tree_);
  return tree_;
}

void open_merkle(Graph& g, const std::string& name, const MerkleTree& tree, const MatrixView& m, View<uint32_t> idx,
                 View<Fp> rows_out, View<Digest> paths_out) {
  open_merkle(g, name, tree, std::span<const MatrixView>(&m, 1), idx, rows_out, paths_out);
}

void open_merkle(Graph& g, const std::string& name, const MerkleTree& tree, std::span<const MatrixView> tiles,
                 View<uint32_t> idx, View<Fp> rows_out, View<Digest> paths_out) {
  const uint32_t q = static_cast<uint32_t>(idx.count), group = 1u << tree.k;
  uint64_t width = 0;
  for (const MatrixView& m : tiles) width += m.width;
  if (rows_out.count != uint64_t(q) * group * width || paths_out.count != uint64_t(q) * tree.depth())
    throw GraphError(fmt::format("Merkle opening '{}': output views hold {} values and {} digests, {} and {} needed",
                                 name, rows_out.count, paths_out.count, uint64_t(q) * group * width,
                                 uint64_t(q) * tree.depth()));
  if (q == 0) return;
  // Per tile its columns of the opened rows.
  uint64_t first = 0;
  for (size_t i = 0; i < tiles.size(); ++i) {
    gather_opened_rows(g, tiles.size() == 1 ? name + ".rows" : fmt::format("{}.rows.{}", name, i), tree, tiles[i], idx,
                       first, width, rows_out);
    first += tiles[i].width;
  }
  gather_opened_paths(g, name, tree, idx, paths_out);
}

void gather_opened_rows(Graph& g, const std::string& task, const MerkleTree& tree, const MatrixView& m,
                        View<uint32_t> idx, uint64_t first_column, uint64_t width, View<Fp> rows_out) {
  const uint32_t q = static_cast<uint32_t>(idx.count), group = 1u << tree.k;
  if (q == 0 || m.width == 0) return;
  // Queries in ranges whose rows fit one binding.
  const uint64_t row_bytes = uint64_t(group) * width * sizeof(Fp);
  const uint64_t max_view = g.memory_limits().max_view_bytes();
  const uint64_t per = std::max<uint64_t>(1, std::min<uint64_t>(q, max_view / std::max<uint64_t>(row_bytes, 1)));
  for (uint64_t q0 = 0; q0 < q; q0 += per) {
    const uint64_t nq = std::min<uint64_t>(per, q - q0), rows = nq * group;
    const uint64_t at = q0 * group * width + first_column;
    g.dispatch<GatherRows>(per < q ? fmt::format("{}.q{}", task, q0 / per) : task,
                           {.idx = idx.slice(q0, nq),
                            .matrix = m.data,
                            .out = rows_out.slice(at, (rows - 1) * width + m.width),
                            .width = m.width,
                            .rows_per_query = group,
                            .query_stride = uint32_t(tree.query_stride()),
                            .row_stride = uint32_t(m.row_stride),
                            .col_stride = uint32_t(m.col_stride),
                            .out_stride = m.width == width ? 0u : uint32_t(width)});
  }
}

void gather_opened_paths(Graph& g, const std::string& name, const MerkleTree& tree, View<uint32_t> idx,
                         View<Digest> paths_out) {
  if (idx.count == 0 || tree.depth() == 0) return;
  g.dispatch<GatherPaths>(
      name + ".paths",
      {.idx = idx, .tree = tree.nodes, .out = paths_out, .depth = tree.depth(), .leaves = uint32_t(tree.leaves())});
}

}  // namespace vkstark
