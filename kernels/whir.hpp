// Kernels of the WHIR prover (protocol.md 11.2) and the multilinear helpers it needs. All values
// are Fp4 unless said otherwise; challenges come from one-element buffers. Hypercube index b is
// little-endian: bit k of b is coordinate k.
#pragma once

#include <bit>

#include "kernels/detail/grid.hpp"
#include "kernels/types.hpp"
#include "runtime/kernel.hpp"

namespace vkstark {

// acc[b] += sum_{c < width} mu^(first_power + c) * matrix[c * col_stride + b], b < grid.x = acc.count.
// (mu' batching of the stacked columns' RS messages; several commitments accumulate into one acc.)
struct BatchColumnsExt {
  static constexpr std::string_view name = "batch_columns_ext";
  // A workgroup shares the powers of mu, WG columns at a time (16 bytes each in shared memory).
  static constexpr uint32_t workgroup_size = 256;
  static constexpr KernelConstant constants[] = {{"WG", workgroup_size}};
  struct Args {
    In<Fp> matrix;
    In<Fp4> mu;
    InOut<Fp4> acc;
    uint32_t width = 0;
    uint32_t col_stride = 0;
    uint32_t first_power = 0;
  };
  static Grid grid(const Args& a) { return {detail::grid_dim(a.acc.view.count)}; }
  static std::string check(const Args& a);
  static void cpu(const Args& a, const CpuContext& ctx);
};

// BatchColumnsExt over Fp columns bound as entries of four consecutive Fp (the Fp4-typed matrix
// view is those columns bitcast; col_stride counts such entries): invocation b < grid.x =
// acc.count / 4 takes rows 4b .. 4b + 3 with one 16-byte load a column (BatchColumnsExt: 4 bytes).
// The same sums; acc.count a multiple of 4.
struct BatchColumnsExtVec {
  static constexpr std::string_view name = "batch_columns_ext_vec";
  static constexpr uint32_t workgroup_size = 256;
  static constexpr KernelConstant constants[] = {{"WG", workgroup_size}};
  struct Args {
    In<Fp4> matrix;
    In<Fp4> mu;
    InOut<Fp4> acc;
    uint32_t width = 0;
    uint32_t col_stride = 0;
    uint32_t first_power = 0;
  };
  // Its BatchColumnsExt arguments (for the check and the CPU body).
  static BatchColumnsExt::Args as_fp(const Args& a) {
    return {.matrix = a.matrix.view.bitcast<Fp>(),
            .mu = a.mu,
            .acc = a.acc,
            .width = a.width,
            .col_stride = a.col_stride * 4,
            .first_power = a.first_power};
  }
  static Grid grid(const Args& a) { return {detail::grid_dim(a.acc.view.count / 4)}; }
  static std::string check(const Args& a);
  static void cpu(const Args& a, const CpuContext& ctx) { BatchColumnsExt::cpu(as_fp(a), ctx); }
};

// out[b] = prod_{k < m} ((1 - 2 u_k)(1 - b_k) + u_k b_k) for b < 2^m = grid.x = out.count
// (protocol.md 5.6).
struct MobiusEqTable {
  static constexpr std::string_view name = "mobius_eq_table";
  static constexpr uint32_t workgroup_size = 256;  // a workgroup shares b's high factor
  // WG: the workgroup whose invocations share b's high bits; LB = log2(WG) of them vary inside it.
  static constexpr KernelConstant constants[] = {{"WG", workgroup_size},
                                                 {"LB", uint32_t(std::bit_width(workgroup_size) - 1)}};
  struct Args {
    In<Fp4> u;
    Out<Fp4> out;
    uint32_t m = 0;
  };
  static Grid grid(const Args& a) { return {detail::grid_dim(a.out.view.count)}; }
  static std::string check(const Args& a);
  static void cpu(const Args& a, const CpuContext& ctx);
};

// out[b] = eq(b, u) = prod_{k < m} (u_k b_k + (1 - u_k)(1 - b_k)) for b < 2^m = grid.x = out.count.
struct EqTable {
  static constexpr std::string_view name = "eq_table";
  struct Args {
    In<Fp4> u;
    Out<Fp4> out;
    uint32_t m = 0;
  };
  static Grid grid(const Args& a) { return {detail::grid_dim(a.out.view.count)}; }
  static std::string check(const Args& a);
  static void cpu(const Args& a, const CpuContext& ctx);
};

// cube = (u_0, u_0^2, u_0^4, ..., u_0^(2^(l_skip-1)), u_1, ..., u_n) with n = u.count - 1 (protocol.md 11.1);
// cube.count = l_skip + n. grid.x = 1.
struct UCube {
  static constexpr std::string_view name = "u_cube";
  struct Args {
    In<Fp4> u;
    Out<Fp4> cube;
    uint32_t l_skip = 0;
  };
  static Grid grid(const Args&) { return {1}; }
  static std::string check(const Args& a);
  static void cpu(const Args& a, const CpuContext& ctx);
};

// SumcheckProductPartials reduces inside workgroups of kSumcheckLanes invocations and writes at
// most kSumcheckMaxPartials partial sums per point, so that the sum after it is one short loop.
inline constexpr uint32_t kSumcheckLanes = 64;
inline constexpr uint32_t kSumcheckMaxPartials = 256;
// The number of partial sums for `pairs` pairs: one per kSumcheckLanes pairs, between 1 and
// kSumcheckMaxPartials. A function of the size alone: every executor writes the same partials.
constexpr uint32_t sumcheck_partial_count(uint64_t pairs) {
  const uint64_t p = (pairs + kSumcheckLanes - 1) / kSumcheckLanes;
  return p == 0 ? 1u : p > kSumcheckMaxPartials ? kSumcheckMaxPartials : static_cast<uint32_t>(p);
}

// The WHIR sumcheck round polynomial s(X) = sum_y f_y(X) w_y(X), f_y(X) = f[2y] + X (f[2y+1] - f[2y])
// (likewise w), at X = 1 and X = 2, as P = partials.count / 2 <= kSumcheckMaxPartials partial
// sums, partial p summed by workgroup p of kSumcheckLanes (64) invocations:
//   partials[2p] = sum_{y < pairs, (y / 64) mod P = p} f_y(1) w_y(1),  partials[2p + 1] = ... f_y(2) w_y(2).
// grid.x = 64 P. Invocation i = 64 p + lane reads pairs y = i, i + 64 P, ...: adjacent invocations
// read adjacent pairs. Which pairs a partial holds follows from pairs and P alone, never from the
// device (the GLSL body needs its workgroup of exactly 64, which every Vulkan device offers).
struct SumcheckProductPartials {
  static constexpr std::string_view name = "sumcheck_product_partials";
  static constexpr uint32_t workgroup_size = kSumcheckLanes;
  static constexpr KernelConstant constants[] = {{"LANES", kSumcheckLanes}};
  struct Args {
    In<Fp4> f;
    In<Fp4> w;
    Out<Fp4> partials;
    uint32_t pairs = 0;  // half the length of f and w
  };
  static Grid grid(const Args& a) { return {detail::grid_dim(a.partials.view.count / 2 * kSumcheckLanes)}; }
  static std::string check(const Args& a);
  static void cpu(const Args& a, const CpuContext& ctx);
};

// out[i * width + c] = sum_{j = i mod G, j < n} in[j * width + c], c < width, i < G =
// out.count / width; an invocation per output element (grid.x = out.count), so that wide groups
// (the stacked reduction's round 0: 63 values a group) do not leave a few invocations looping
// over every value.
// Chains of these reduce partial sums to one value per c.
struct ReduceFp4 {
  static constexpr std::string_view name = "reduce_fp4";
  struct Args {
    In<Fp4> in;
    Out<Fp4> out;
    uint32_t n = 0;
    uint32_t width = 1;
  };
  static Grid grid(const Args& a) { return {detail::grid_dim(a.out.view.count)}; }
  static std::string check(const Args& a);
  static void cpu(const Args& a, const CpuContext& ctx);
};

// dst[y] = src[2y] + alpha (src[2y+1] - src[2y]), y < grid.x = dst.count = src.count / 2 (fold the
// first variable).
struct FoldPairsFp4 {
  static constexpr std::string_view name = "fold_pairs_fp4";
  struct Args {
    In<Fp4> src;
    In<Fp4> alpha;
    Out<Fp4> dst;
  };
  static Grid grid(const Args& a) { return {detail::grid_dim(a.dst.view.count)}; }
  static std::string check(const Args& a);
  static void cpu(const Args& a, const CpuContext& ctx);
};

// f_dst[y] = f[2y] + alpha (f[2y+1] - f[2y]) and w_dst[y] = w[2y] + alpha (w[2y+1] - w[2y]) for
// y < grid.x = f_dst.count = w_dst.count: both tables of a WHIR sumcheck round folded at one alpha
// in one dispatch.
struct FoldPairs2Fp4 {
  static constexpr std::string_view name = "fold_pairs2_fp4";
  struct Args {
    In<Fp4> f;
    In<Fp4> w;
    In<Fp4> alpha;
    Out<Fp4> f_dst;
    Out<Fp4> w_dst;
  };
  static Grid grid(const Args& a) { return {detail::grid_dim(a.f_dst.view.count)}; }
  static std::string check(const Args& a);
  static void cpu(const Args& a, const CpuContext& ctx);
};

// Polynomial evaluation in chunks: partials[i] = z^(i chunk) sum_{j < chunk, i chunk + j < n}
// coeffs[i chunk + j] z^j, i < grid.x = partials.count. (Sum the partials with ReduceFp4.)
struct EvalPolyPartials {
  static constexpr std::string_view name = "eval_poly_partials";
  struct Args {
    In<Fp4> coeffs;
    In<Fp4> z;
    Out<Fp4> partials;
    uint32_t n = 0;
    uint32_t chunk = 0;
  };
  static Grid grid(const Args& a) { return {detail::grid_dim(a.partials.view.count)}; }
  static std::string check(const Args& a);
  static void cpu(const Args& a, const CpuContext& ctx);
};

// points[q] = two_adic_generator(log_domain)^idx[q] (a base-field value, as Fp4), q < grid.x =
// points.count = idx.count; log_domain <= Fp::TWO_ADICITY.
struct QueryPoints {
  static constexpr std::string_view name = "query_points";
  struct Args {
    In<uint32_t> idx;
    Out<Fp4> points;
    uint32_t log_domain = 0;
  };
  static Grid grid(const Args& a) { return {detail::grid_dim(a.points.view.count)}; }
  static std::string check(const Args& a);
  static void cpu(const Args& a, const CpuContext& ctx);
};

// w[b] += sum_{i < points.count} gamma^(i+1) * eq(b, pow(points[i])) for b < 2^m = grid.x = w.count, where
// pow(z) = (z, z^2, z^4, ..., z^(2^(m-1))) and eq(b, x) = prod_k (b_k ? x_k : 1 - x_k).
// (WHIR: points[0] = z0 with weight gamma, points[q+1] = z_q with weight gamma^(q+2).)
struct EqPowAccumulate {
  static constexpr std::string_view name = "eq_pow_accumulate";
  static constexpr uint32_t workgroup_size = 256;  // a workgroup shares each point's high factor
  // WG: the workgroup whose invocations share b's high bits; LB = log2(WG) of them vary inside it.
  static constexpr KernelConstant constants[] = {{"WG", workgroup_size},
                                                 {"LB", uint32_t(std::bit_width(workgroup_size) - 1)}};
  struct Args {
    InOut<Fp4> w;
    In<Fp4> points;
    In<Fp4> gamma;
    uint32_t m = 0;
  };
  static Grid grid(const Args& a) { return {detail::grid_dim(a.w.view.count)}; }
  static std::string check(const Args& a);
  static void cpu(const Args& a, const CpuContext& ctx);
};

}  // namespace vkstark
