// CPU bodies of kernels/basic.hpp.
#include "kernels/basic.hpp"

#include <algorithm>

#include "kernels/cpu/parallel.hpp"

namespace vkstark {

void FillU32::cpu(const Args& a, const CpuContext& ctx) {
  auto out = ctx.span(a.out);
  cpu::for_each_chunk(
      ctx.grid().x, [&](uint64_t b, uint64_t e) { std::fill(out.begin() + b, out.begin() + e, a.value); }, 1 << 16);
}

void CopyU32::cpu(const Args& a, const CpuContext& ctx) {
  auto src = ctx.span(a.src);
  auto dst = ctx.span(a.dst);
  cpu::for_each_chunk(
      ctx.grid().x, [&](uint64_t b, uint64_t e) { std::copy(src.begin() + b, src.begin() + e, dst.begin() + b); },
      1 << 16);
}

}  // namespace vkstark
