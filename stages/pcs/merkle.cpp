#include "stages/pcs/merkle.hpp"

#include <fmt/format.h>

#include <vector>

#include "kernels/hashing.hpp"
#include "kernels/merkle.hpp"

namespace vkstark {

MerkleTree build_merkle_tree(Graph& g, const std::string& name, const MatrixView& m, uint32_t k) {
  if (k > m.log_rows)
    throw InputError(fmt::format("Merkle tree '{}': leaf groups of 2^{} rows but only 2^{} rows", name, k, m.log_rows));
  MerkleTree t;
  t.log_rows = m.log_rows;
  t.k = k;
  const uint64_t rows = uint64_t(1) << m.log_rows, leaves = t.leaves();
  t.nodes = g.transient<Digest>(name + ".nodes", 2 * leaves - 1);
  auto hash_rows = [&](View<Digest> out) {
    g.dispatch<HashRows>(name + ".rows", {.matrix = m.data,
                                          .out = out,
                                          .width = m.width,
                                          .row_stride = uint32_t(m.row_stride),
                                          .col_stride = uint32_t(m.col_stride)});
  };
  if (k == 0) {
    hash_rows(t.nodes.slice(0, leaves));
  } else {
    // Row digests, then k strided layers that halve them down to one digest per leaf group.
    View<Digest> level = g.transient<Digest>(name + ".row_digests", rows).all();
    hash_rows(level);
    for (uint32_t i = 0; i < k; ++i) {
      const uint64_t n = rows >> (i + 1);
      const std::string task = fmt::format("{}.group{}", name, i);
      View<Digest> out = i + 1 == k ? t.nodes.slice(0, leaves) : g.transient<Digest>(task, n).all();
      g.dispatch<MerkleCompressLayer>(task, {.in = level, .out = out, .stride = uint32_t(leaves)});
      level = out;
    }
  }
  uint64_t offset = 0;
  for (uint32_t d = 0; (leaves >> d) > 1; ++d) {
    const uint64_t n = leaves >> d;
    g.dispatch<MerkleCompressLayer>(
        fmt::format("{}.layer{}", name, d),
        {.in = t.nodes.slice(offset, n), .out = t.nodes.slice(offset + n, n / 2), .stride = 1});
    offset += n;
  }
  return t;
}

void open_merkle(Graph& g, const std::string& name, const MerkleTree& tree, const MatrixView& m, View<uint32_t> idx,
                 View<Fp> rows_out, View<Digest> paths_out) {
  const uint32_t q = static_cast<uint32_t>(idx.count), group = 1u << tree.k;
  if (rows_out.count != uint64_t(q) * group * m.width || paths_out.count != uint64_t(q) * tree.depth())
    throw GraphError(fmt::format("Merkle opening '{}': output views hold {} values and {} digests, {} and {} needed",
                                 name, rows_out.count, paths_out.count, uint64_t(q) * group * m.width,
                                 uint64_t(q) * tree.depth()));
  if (q == 0) return;
  g.dispatch<GatherRows>(name + ".rows", {.idx = idx,
                                          .matrix = m.data,
                                          .out = rows_out,
                                          .width = m.width,
                                          .rows_per_query = group,
                                          .query_stride = uint32_t(tree.query_stride()),
                                          .row_stride = uint32_t(m.row_stride),
                                          .col_stride = uint32_t(m.col_stride)});
  if (tree.depth() > 0)
    g.dispatch<GatherPaths>(
        name + ".paths",
        {.idx = idx, .tree = tree.nodes, .out = paths_out, .depth = tree.depth(), .leaves = uint32_t(tree.leaves())});
}

}  // namespace vkstark
