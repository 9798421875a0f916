#include "stages/pcs/merkle_verify.hpp"

#include <algorithm>
#include <vector>

#include <tbb/parallel_for.h>

#include "kernels/hash/poseidon2_batch.hpp"
#include "runtime/error.hpp"

namespace vkstark {

Digest leaf_group_digest(std::span<const Digest> row_digests) {
  std::vector<Digest> level(row_digests.begin(), row_digests.end());
  if (level.empty()) throw InputError("leaf_group_digest of no rows");
  while (level.size() > 1) {
    if (level.size() % 2) throw InputError("leaf_group_digest: the number of rows must be a power of two");
    for (size_t i = 0; i < level.size() / 2; ++i) level[i] = compress(level[2 * i], level[2 * i + 1]);
    level.resize(level.size() / 2);
  }
  return level[0];
}

bool merkle_verify(const Digest& root, uint64_t index, const Digest& leaf, std::span<const Digest> path) {
  if (path.size() < 64 && (index >> path.size()) != 0) return false;
  Digest cur = leaf;
  for (const Digest& sibling : path) {
    cur = (index & 1) ? compress(sibling, cur) : compress(cur, sibling);
    index >>= 1;
  }
  return cur == root;
}

namespace {
// Rows or queries per task when a batch is split over the host's threads: a multiple of the widest
// batch (16 with AVX-512), large enough that a task outweighs its scheduling.
constexpr size_t kChunk = 64;
// Queries per task on a Merkle path (a path is a chain of compressions, one batch per level: the
// chains of a round's ~100-200 queries spread over more threads).
constexpr size_t kPathChunk = 16;

// body(begin, end) over [0, n) in chunks of `chunk`, in parallel where there is more than one (the
// results are per index, so the same in any order).
template <class F>
void in_chunks(size_t n, F body, size_t chunk = kChunk) {
  if (n <= chunk) {
    body(size_t(0), n);
    return;
  }
  // Whole chunks (a blocked_range would split below its grain size, into batches that are not
  // whole SIMD vectors).
  tbb::parallel_for(size_t(0), (n + chunk - 1) / chunk,
                    [&](size_t c) { body(c * chunk, std::min(n, (c + 1) * chunk)); });
}
}  // namespace

std::vector<Digest> hash_rows_batch(std::span<const Fp> rows, uint32_t width, size_t n) {
  if (rows.size() < size_t(width) * n) throw InputError("hash_rows_batch: fewer values than rows x width");
  std::vector<Digest> out(n);
  in_chunks(n, [&](size_t begin, size_t end) {
    std::vector<Poseidon2State> states(end - begin);
    // hash_slice's blocks (protocol.md 2.2): overwrite the first positions, permute, for each block.
    for (uint32_t start = 0; start < width; start += SPONGE_RATE) {
      const uint32_t len = std::min<uint32_t>(SPONGE_RATE, width - start);
      for (size_t i = begin; i < end; ++i)
        for (uint32_t j = 0; j < len; ++j) states[i - begin][j] = rows[i * width + start + j];
      poseidon2_permute_batch(states);
    }
    for (size_t i = begin; i < end; ++i)
      for (int j = 0; j < DIGEST_SIZE; ++j) out[i][j] = states[i - begin][j];
  });
  return out;
}

namespace {
// out[i] = compress(left(i), right(i)) for i < n, batched.
template <class L, class R>
std::vector<Digest> compress_all(size_t n, L left, R right) {
  std::vector<Poseidon2State> states(n);
  for (size_t i = 0; i < n; ++i) {
    const Digest& a = left(i);
    const Digest& b = right(i);
    for (int j = 0; j < DIGEST_SIZE; ++j) {
      states[i][j] = a[j];
      states[i][DIGEST_SIZE + j] = b[j];
    }
  }
  poseidon2_permute_batch(states);
  std::vector<Digest> out(n);
  for (size_t i = 0; i < n; ++i)
    for (int j = 0; j < DIGEST_SIZE; ++j) out[i][j] = states[i][j];
  return out;
}
}  // namespace

std::vector<Digest> leaf_group_digests(std::span<const Digest> row_digests, uint32_t k) {
  const size_t group = size_t(1) << k;
  if (row_digests.size() % group != 0) throw InputError("leaf_group_digests: not whole groups of 2^k rows");
  const size_t groups = row_digests.size() / group;
  std::vector<Digest> out(groups);
  // Groups in chunks over the threads; in a chunk, pairs of adjacent digests level by level, in
  // every group at once.
  in_chunks(
      groups,
      [&](size_t begin, size_t end) {
        std::vector<Digest> level(row_digests.begin() + std::ptrdiff_t(begin * group),
                                  row_digests.begin() + std::ptrdiff_t(end * group));
        for (uint32_t j = 0; j < k; ++j)
          level = compress_all(
              level.size() / 2, [&](size_t i) -> const Digest& { return level[2 * i]; },
              [&](size_t i) -> const Digest& { return level[2 * i + 1]; });
        std::copy(level.begin(), level.end(), out.begin() + std::ptrdiff_t(begin));
      },
      kPathChunk);
  return out;
}

size_t merkle_verify_batch(const Digest& root, std::span<const uint64_t> indices, std::span<const Digest> leaves,
                           const std::function<std::span<const Digest>(size_t)>& paths, size_t depth) {
  const size_t n = indices.size();
  for (size_t q = 0; q < n; ++q)
    if (paths(q).size() != depth || (depth < 64 && (indices[q] >> depth) != 0)) return q;
  std::vector<Digest> top(n);  // each query's path walked to the top, queries in chunks over the threads
  in_chunks(
      n,
      [&](size_t begin, size_t end) {
        std::vector<Digest> cur(leaves.begin() + std::ptrdiff_t(begin), leaves.begin() + std::ptrdiff_t(end));
        for (size_t level = 0; level < depth; ++level)
          cur = compress_all(
              end - begin,
              [&](size_t i) -> const Digest& {
                return (indices[begin + i] >> level & 1) ? paths(begin + i)[level] : cur[i];
              },
              [&](size_t i) -> const Digest& {
                return (indices[begin + i] >> level & 1) ? cur[i] : paths(begin + i)[level];
              });
        std::copy(cur.begin(), cur.end(), top.begin() + std::ptrdiff_t(begin));
      },
      kPathChunk);
  for (size_t q = 0; q < n; ++q)
    if (top[q] != root) return q;
  return size_t(-1);
}

}  // namespace vkstark
