#version 460
#extension GL_GOOGLE_include_directive : require
#include "runtime.glsl"
// GatherPaths (kernels/merkle.hpp): out[q * depth + d] = tree[layer_offset(d) + ((idx[q] >> d) ^ 1)],
// layer d of the tree starting at layer_offset(d) = sum_{e<d} leaves >> e.
layout(set = 0, binding = 0) readonly buffer Idx { uint idx[]; };
layout(set = 0, binding = 1) readonly buffer Tree { uvec4 tree[]; };  // Digest = 2 x uvec4
layout(set = 0, binding = 2) writeonly buffer Out { uvec4 o[]; };
VKS_PUSH_BEGIN VKS_VIEW(idx) VKS_VIEW(tree) VKS_VIEW(out) uint depth; uint leaves; VKS_PUSH_END

void main() {
  uint q = vks_index_x();
  if (q >= pc.grid_x) return;
  uint node = idx[pc.idx_off + q];
  uint layer = pc.tree_off;
  uint dst = 2u * (pc.out_off + q * pc.depth);
  for (uint d = 0u; d < pc.depth; ++d) {
    uint s = 2u * (layer + (node ^ 1u));
    o[dst] = tree[s];
    o[dst + 1u] = tree[s + 1u];
    dst += 2u;
    layer += pc.leaves >> d;
    node >>= 1;
  }
}
