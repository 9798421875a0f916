// Fill and copy, on 32-bit words (view any buffer as words with View::bitcast<uint32_t>()).
#pragma once

#include "kernels/detail/grid.hpp"
#include "kernels/types.hpp"
#include "runtime/kernel.hpp"

namespace vkstark {

// out[i] = value for i < grid.x = out.count.
struct FillU32 {
  static constexpr std::string_view name = "fill_u32";
  struct Args {
    Out<uint32_t> out;
    uint32_t value = 0;
  };
  static Grid grid(const Args& a) { return {detail::grid_dim(a.out.view.count)}; }
  static void cpu(const Args& a, const CpuContext& ctx);
};

// dst[i] = src[i] for i < grid.x = dst.count = src.count.
struct CopyU32 {
  static constexpr std::string_view name = "copy_u32";
  struct Args {
    In<uint32_t> src;
    Out<uint32_t> dst;
  };
  static Grid grid(const Args& a) { return {detail::grid_dim(a.dst.view.count)}; }
  static std::string check(const Args& a);
  static void cpu(const Args& a, const CpuContext& ctx);
};

}  // namespace vkstark
