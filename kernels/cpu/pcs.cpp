// CPU body of kernels/pcs.hpp.
#include "kernels/pcs.hpp"

#include "kernels/cpu/parallel.hpp"

namespace vkstark {

void StackColumns::cpu(const Args& a, const CpuContext& ctx) {
  auto src = ctx.span(a.src);
  auto dst = ctx.span(a.dst);
  const uint64_t height = ctx.grid().x, width = ctx.grid().y;
  const uint64_t mask = (uint64_t(1) << a.log_stacked_height) - 1;
  cpu::for_each_index(
      width * height,
      [&](uint64_t e) {
        const uint64_t j = e / height, i = e % height;
        const uint64_t pos = a.start_row + (j << a.log_slice) + (i << a.log_stride);
        const uint64_t col = a.start_col + (pos >> a.log_stacked_height), row = pos & mask;
        dst[col * a.dst_col_stride + row] = src[j * height + i];
      },
      1 << 14);
}

}  // namespace vkstark
