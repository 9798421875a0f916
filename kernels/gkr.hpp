// Kernels of LogUp's GKR fractional sumcheck (protocol.md 8.3-8.4). All values are Fp4; challenges
// come from one-element buffers. Layer j of the fraction tree has 2^j nodes, node t being tree
// position 2^j + t; its children are nodes 2t and 2t + 1 of layer j + 1 (the new variable is the
// least significant bit).
//
// The sumcheck of layer j runs over the tables A = p_j(0, y), C = p_j(1, y), B = q_j(0, y),
// E = q_j(1, y). They are kept as the layer itself: P[2y + b] holds p_j(b, y) (A, C interleaved)
// and Q[2y + b] holds q_j(b, y) (B, E), and folding a sub-round's variable keeps that layout.
#pragma once

#include "kernels/detail/grid.hpp"
#include "kernels/types.hpp"
#include "kernels/whir.hpp"
#include "runtime/kernel.hpp"

namespace vkstark {

// The GKR kernels below work in workgroups of this many invocations (the GLSL bodies need exactly
// this size, which every Vulkan device offers).
inline constexpr uint32_t kGkrLanes = 64;
// GkrFractionLayers computes at most this many layers in one dispatch: a workgroup's 64 nodes of
// its first layer reduce to one node in the seventh.
inline constexpr uint32_t kGkrMaxFusedLayers = 7;

// `layers` layers of the fraction tree above a layer of 2n nodes (p_in, q_in), fraction addition
// (p_a, q_a) + (p_b, q_b) = (p_a q_b + p_b q_a, q_a q_b) of nodes 2t and 2t + 1 at each step
// (protocol.md 8.3). The outputs are in tree order, smallest layer first: the layer of N nodes
// (N = n, n / 2, ..., L = n / 2^(layers - 1)) sits at p_out[N - L, 2N - L), so that p_out is the
// slice [L, 2n) of a tree indexed by position. n is a power of two, L >= 1, grid.x = n; workgroup g
// computes the nodes above input nodes [128 g, 128 g + 128) in shared memory.
struct GkrFractionLayers {
  static constexpr std::string_view name = "gkr_fraction_layers";
  static constexpr uint32_t workgroup_size = kGkrLanes;
  static constexpr KernelConstant constants[] = {{"LANES", kGkrLanes}};
  struct Args {
    In<Fp4> p_in;
    In<Fp4> q_in;
    Out<Fp4> p_out;
    Out<Fp4> q_out;
    uint32_t layers = 0;  // 1 .. kGkrMaxFusedLayers
  };
  static Grid grid(const Args& a) { return {detail::grid_dim(a.p_in.view.count / 2)}; }
  static std::string check(const Args& a);
  static void cpu(const Args& a, const CpuContext& ctx);
};

// Every eq table over a suffix of u (n = u.count coordinates), in one buffer in tree order:
//   out[2^r - 1 + y] = eq(u[n - r .. n), y) = prod_{k < r} (y_k ? u[n - r + k] : 1 - u[n - r + k])
// for r = 0 .. n and y < 2^r (r = 0: the empty product 1). out.count = 2^(n+1) - 1 = grid.x.
// (GKR sub-round s of layer j weighs its pairs with eq over the coordinates of xi^(j-1) after s.)
struct EqSuffixTables {
  static constexpr std::string_view name = "eq_suffix_tables";
  struct Args {
    In<Fp4> u;
    Out<Fp4> out;
    uint32_t n = 0;  // u.count, at most 30
  };
  static Grid grid(const Args& a) { return {detail::grid_dim(a.out.view.count)}; }
  static std::string check(const Args& a);
  static void cpu(const Args& a, const CpuContext& ctx);
};

// The round polynomial of a GKR sub-round without its eq factor in the current variable: for the
// tables P, Q of the current sub-round (4 pairs entries each: pair y holds A(0) = P[4y],
// C(0) = P[4y + 1], A(1) = P[4y + 2], C(1) = P[4y + 3], and B, E likewise from Q), with
// T(X) = T(0) + X (T(1) - T(0)) and F = A E + C B + lambda B E,
//   partials[3p + x - 1] = sum_{y in part p} eq[y] F(A(x), B(x), C(x), E(x)) for x = 1, 2, 3,
// over P = partials.count / 3 <= kSumcheckMaxPartials parts (sumcheck_partial_count(pairs)); part
// p holds the blocks of 64 pairs at 64 p + k 64 P (as SumcheckProductPartials), summed by
// workgroup p. grid.x = 64 P. eq[y] = eq(remaining coordinates of xi, y) (EqSuffixTables).
struct GkrSumcheckPartials {
  static constexpr std::string_view name = "gkr_sumcheck_partials";
  static constexpr uint32_t workgroup_size = kGkrLanes;
  static constexpr KernelConstant constants[] = {{"GKR_LANES", kGkrLanes}};  // gkr_sumcheck.glsl's
  struct Args {
    In<Fp4> p;
    In<Fp4> q;
    In<Fp4> eq;
    In<Fp4> lambda;
    Out<Fp4> partials;
    uint32_t pairs = 0;
  };
  static Grid grid(const Args& a) { return {detail::grid_dim(a.partials.view.count / 3 * kGkrLanes)}; }
  static std::string check(const Args& a);
  static void cpu(const Args& a, const CpuContext& ctx);
};

// The previous sub-round's fold fused with GkrSumcheckPartials: with p, q the previous tables
// (8 pairs entries each), first
//   p_dst[2z + b] = p[4z + b] + rho (p[4z + 2 + b] - p[4z + b])   for z < 2 pairs, b = 0, 1
// (fold the variable of the previous sub-round at rho; q likewise), then the partials of p_dst,
// q_dst as GkrSumcheckPartials. grid.x = 64 P.
struct GkrFoldSumcheckPartials {
  static constexpr std::string_view name = "gkr_fold_sumcheck_partials";
  static constexpr uint32_t workgroup_size = kGkrLanes;
  static constexpr KernelConstant constants[] = {{"GKR_LANES", kGkrLanes}};  // gkr_sumcheck.glsl's
  struct Args {
    In<Fp4> p;
    In<Fp4> q;
    In<Fp4> rho;
    In<Fp4> eq;
    In<Fp4> lambda;
    Out<Fp4> p_dst;
    Out<Fp4> q_dst;
    Out<Fp4> partials;
    uint32_t pairs = 0;
  };
  static Grid grid(const Args& a) { return {detail::grid_dim(a.partials.view.count / 3 * kGkrLanes)}; }
  static std::string check(const Args& a);
  static void cpu(const Args& a, const CpuContext& ctx);
};

}  // namespace vkstark
