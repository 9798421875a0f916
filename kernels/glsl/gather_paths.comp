#version 460
#extension GL_GOOGLE_include_directive : require
#include "abi/gather_paths.glsl"
// GatherPaths (kernels/merkle.hpp): out[q * depth + d] = tree[layer_offset(d) + ((idx[q] >> d) ^ 1)],
// layer d of the tree starting at layer_offset(d) = sum_{e<d} leaves >> e.
// A Digest is two uvec4 of tree_ and out_.

void main() {
  uint q = vks_index_x();
  if (q >= pc.grid_x) return;
  uint node = idx_[pc.idx_off + q];
  uint layer = pc.tree_off;
  uint dst = 2u * (pc.out_off + q * pc.depth);
  for (uint d = 0u; d < pc.depth; ++d) {
    uint s = 2u * (layer + (node ^ 1u));
    out_[dst] = tree_[s];
    out_[dst + 1u] = tree_[s + 1u];
    dst += 2u;
    layer += pc.leaves >> d;
    node >>= 1;
  }
}
