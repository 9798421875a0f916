// Host-side Merkle verification (protocol.md 2.4), used by the verifiers. Pure functions.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "kernels/hash/hash.hpp"

namespace vkstark {

// Host side. The digest of one leaf group from its 2^k row digests (ordered by t): adjacent pairs,
// then pairs of those, ... (tree_compress).
Digest leaf_group_digest(std::span<const Digest> row_digests);
// Walks the path from leaf group `index`: cur = index even ? compress(cur, sibling) : compress(sibling, cur).
bool merkle_verify(const Digest& root, uint64_t index, const Digest& leaf, std::span<const Digest> path);

// The same for many openings at once, every permutation of one step batched across them
// (poseidon2_permute_batch: 16 or 8 at a time with AVX-512 or AVX2), with the same results.
//
// hash_slice of n rows of `width` values, row i at rows[i * width ...].
std::vector<Digest> hash_rows_batch(std::span<const Fp> rows, uint32_t width, size_t n);
// leaf_group_digest of consecutive groups of 2^k row digests.
std::vector<Digest> leaf_group_digests(std::span<const Digest> row_digests, uint32_t k);
// merkle_verify(root, indices[q], leaves[q], paths(q)) for every q; paths(q) gives query q's path
// (every path of `depth` digests). The first q that fails, or npos when all verify.
size_t merkle_verify_batch(const Digest& root, std::span<const uint64_t> indices, std::span<const Digest> leaves,
                           const std::function<std::span<const Digest>(size_t)>& paths, size_t depth);

}  // namespace vkstark
