// Host-side Merkle verification (protocol.md 2.4), used by the verifiers. Pure functions.
#pragma once

#include <cstdint>
#include <span>

#include "kernels/hash/hash.hpp"

namespace vkstark {

// Host side. The digest of one leaf group from its 2^k row digests (ordered by t): adjacent pairs,
// then pairs of those, ... (tree_compress).
Digest leaf_group_digest(std::span<const Digest> row_digests);
// Walks the path from leaf group `index`: cur = index even ? compress(cur, sibling) : compress(sibling, cur).
bool merkle_verify(const Digest& root, uint64_t index, const Digest& leaf, std::span<const Digest> path);

}  // namespace vkstark
