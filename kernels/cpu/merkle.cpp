// CPU bodies of kernels/merkle.hpp.
#include "kernels/merkle.hpp"

#include "kernels/cpu/parallel.hpp"

namespace vkstark {

void GatherRows::cpu(const Args& a, const CpuContext& ctx) {
  auto idx = ctx.span(a.idx);
  auto m = ctx.span(a.matrix);
  auto out = ctx.span(a.out);
  const uint64_t width = a.width, rpq = a.rows_per_query, qs = a.query_stride, rs = a.row_stride, cs = a.col_stride;
  const uint64_t os = a.out_stride == 0 ? width : a.out_stride;
  cpu::for_each_index(
      ctx.grid().x,
      [&](uint64_t i) {
        const uint64_t q = i / rpq, t = i % rpq;
        const Fp* row = m.data() + (idx[q] + t * qs) * rs;
        Fp* dst = out.data() + i * os;
        for (uint64_t c = 0; c < width; ++c) dst[c] = row[c * cs];
      },
      256);
}

void GatherPaths::cpu(const Args& a, const CpuContext& ctx) {
  auto idx = ctx.span(a.idx);
  auto tree = ctx.span(a.tree);
  auto out = ctx.span(a.out);
  const uint64_t depth = a.depth;
  cpu::for_each_index(
      ctx.grid().x,
      [&](uint64_t q) {
        uint64_t layer = 0, node = idx[q];
        for (uint64_t d = 0; d < depth; ++d) {
          out[q * depth + d] = tree[layer + (node ^ 1)];
          layer += uint64_t(a.leaves) >> d;
          node >>= 1;
        }
      },
      64);
}

}  // namespace vkstark
