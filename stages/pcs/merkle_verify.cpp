#include "stages/pcs/merkle_verify.hpp"

#include <vector>

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

}  // namespace vkstark
