// Element-wise arithmetic on Fp and Fp4 vectors; one invocation per element (grid.x = out.count,
// operands of the same count). Challenges come from buffers (a view of one element), never from
// push constants.
#pragma once

#include "kernels/detail/grid.hpp"
#include "kernels/types.hpp"
#include "runtime/kernel.hpp"

namespace vkstark {

// out[i] = a[i] + b[i]
struct FpAdd {
  static constexpr std::string_view name = "fp_add";
  struct Args {
    In<Fp> a;
    In<Fp> b;
    Out<Fp> out;
  };
  static Grid grid(const Args& a) { return {detail::grid_dim(a.out.view.count)}; }
  static std::string check(const Args& a);
  static void cpu(const Args& a, const CpuContext& ctx);
};

// out[i] = a[i] * b[i]
struct FpMul {
  static constexpr std::string_view name = "fp_mul";
  struct Args {
    In<Fp> a;
    In<Fp> b;
    Out<Fp> out;
  };
  static Grid grid(const Args& a) { return {detail::grid_dim(a.out.view.count)}; }
  static std::string check(const Args& a);
  static void cpu(const Args& a, const CpuContext& ctx);
};

// out[i] = a[i] * c[0]
struct FpScale {
  static constexpr std::string_view name = "fp_scale";
  struct Args {
    In<Fp> a;
    In<Fp> c;
    Out<Fp> out;
  };
  static Grid grid(const Args& a) { return {detail::grid_dim(a.out.view.count)}; }
  static std::string check(const Args& a);
  static void cpu(const Args& a, const CpuContext& ctx);
};

// out[i] = a[i] + b[i]
struct Fp4Add {
  static constexpr std::string_view name = "fp4_add";
  struct Args {
    In<Fp4> a;
    In<Fp4> b;
    Out<Fp4> out;
  };
  static Grid grid(const Args& a) { return {detail::grid_dim(a.out.view.count)}; }
  static std::string check(const Args& a);
  static void cpu(const Args& a, const CpuContext& ctx);
};

// out[i] = a[i] * b[i]
struct Fp4Mul {
  static constexpr std::string_view name = "fp4_mul";
  struct Args {
    In<Fp4> a;
    In<Fp4> b;
    Out<Fp4> out;
  };
  static Grid grid(const Args& a) { return {detail::grid_dim(a.out.view.count)}; }
  static std::string check(const Args& a);
  static void cpu(const Args& a, const CpuContext& ctx);
};

// out[i] = a[i] * c[0], with the challenge c read from a buffer.
struct Fp4Scale {
  static constexpr std::string_view name = "fp4_scale";
  struct Args {
    In<Fp4> a;
    In<Fp4> c;
    Out<Fp4> out;
  };
  static Grid grid(const Args& a) { return {detail::grid_dim(a.out.view.count)}; }
  static std::string check(const Args& a);
  static void cpu(const Args& a, const CpuContext& ctx);
};

// out[i] = a[i mod a.count]: a challenge broadcast (a of one element), or a short vector repeated
// (a lifted trace's values over its 2^l_skip slot, protocol.md 5.4).
struct Fp4Repeat {
  static constexpr std::string_view name = "fp4_repeat";
  struct Args {
    In<Fp4> a;
    Out<Fp4> out;
  };
  static Grid grid(const Args& a) { return {detail::grid_dim(a.out.view.count)}; }
  static std::string check(const Args& a);
  static void cpu(const Args& a, const CpuContext& ctx);
};

// out[i] = a[0]^i: the powers of a challenge (1, lambda, lambda^2, ...).
struct Fp4Powers {
  static constexpr std::string_view name = "fp4_powers";
  struct Args {
    In<Fp4> a;
    Out<Fp4> out;
  };
  static Grid grid(const Args& a) { return {detail::grid_dim(a.out.view.count)}; }
  static std::string check(const Args& a);
  static void cpu(const Args& a, const CpuContext& ctx);
};

// out[i] = idx[i] < in.count ? in[idx[i]] : 0 (kGatherZero for a zero): a permutation with zeros (the column openings
// in proof order and in transcript order, protocol.md 9.6).
inline constexpr uint32_t kGatherZero = 0xFFFFFFFFu;
struct Fp4Gather {
  static constexpr std::string_view name = "fp4_gather";
  struct Args {
    In<Fp4> in;
    In<uint32_t> idx;
    Out<Fp4> out;
  };
  static Grid grid(const Args& a) { return {detail::grid_dim(a.out.view.count)}; }
  static std::string check(const Args& a);
  static void cpu(const Args& a, const CpuContext& ctx);
};

}  // namespace vkstark
