// Kernels of the stacked opening reduction (protocol.md 10; the prover is
// stages/stacked_reduction/prover.hpp). Values are Fp4 unless said otherwise; challenges (lambda', r, u)
// come from buffers. Notation: l = l_skip, N = 2^l, D = the subgroup of order N; a slice is one
// trace column inside a stacked column (protocol.md 6.1); a class is the set of slices of one
// trace height 2^h, with n = h - l, n~ = max(n, 0), L = min(h, l) and y = r_0^(2^(l - L)) (the
// lifted point of protocol.md 5.4). eq_D^(L)(x, y) is protocol.md 5.1; E(x) = eq(x, r_1..r_n~)
// is the class's eq table over H_n~ (built by EqTable); D(x) = E(x - 1 mod 2^n~) - E(x).
//
// Round 0 reads the stacked traces in evaluation form (the columns before their RS messages,
// protocol.md 6.3): the message chunk of stacked row block x is subset-zeta(iDFT_N(trace chunk x)),
// the hypercube table of g with q-hat(Z, x) = g(Z, Z^2, Z^4, .., x). Both maps are Fp-linear, so
// weighted sums of trace chunks iDFT into monomial coefficients in Z (the Möbius transform of the
// same sums of message chunks, which StackedRound0Sums::mobius takes where only the RS message is
// left), and the heavy pass (StackedRound0SliceSums) needs no lambda. After
// u_0 the message chunks fold at u_0 as multilinear evaluations at (u_0, u_0^2, ..).
#pragma once

#include <algorithm>
#include <bit>

#include "kernels/detail/grid.hpp"
#include "kernels/types.hpp"
#include "kernels/whir.hpp"
#include "runtime/kernel.hpp"

namespace vkstark {

// weights[2i] = lambda^(2i) and weights[2i+1] = (rot[i] != 0 ? lambda^(2i+1) : 0) for i < grid.x =
// rot.count: the batching weights of slice i's claims (protocol.md 10.1), the rotated one zero
// where the slice's AIR has no rotation.
struct StackedSliceWeights {
  static constexpr std::string_view name = "stacked_slice_weights";
  struct Args {
    In<Fp4> lambda;
    In<uint32_t> rot;
    Out<Fp4> weights;
  };
  static Grid grid(const Args& a) { return {detail::grid_dim(a.rot.view.count)}; }
  static std::string check(const Args& a);
  static void cpu(const Args& a, const CpuContext& ctx);
};

// log2 of the parts per slice for K slices of 2^log_chunks chunks: each invocation sums at least
// 256 chunks where a slice has that many, and the rows (K q) stay at most 2^16 (so the sums stay
// small); at least 0.
constexpr uint32_t stacked_round0_log_parts(uint64_t slices, uint32_t log_chunks) {
  const uint32_t by_chunks = log_chunks > 8 ? log_chunks - 8 : 0;
  const uint64_t rows = std::max<uint64_t>(1, (uint64_t(1) << 16) / std::max<uint64_t>(1, slices));
  return std::min<uint32_t>(by_chunks, static_cast<uint32_t>(std::bit_width(rows) - 1));
}

// Round 0's first pass over K consecutive slices of one class in one stacked trace, in evaluation
// form: C = 2^log_chunks chunks of N = 2^l_skip entries per slice (trace holds exactly them, slice
// k at k C N), eq = E (C entries), q = 2^log_parts parts per slice (log_parts <= log_chunks), part j
// the chunks x in [j C/q, (j+1) C/q). With K = sums.count / (2 N q), row = k q + j and S < N:
//   sums[(2 row) N + S]     = sum_{x in part j} E(x) trace[(k C + x) N + S],
//   sums[(2 row + 1) N + S] = sum_{x in part j} D(x) trace[(k C + x) N + S].
// grid.x = K q N (invocation row N + S: adjacent invocations read adjacent trace entries).
struct StackedRound0SliceSums {
  static constexpr std::string_view name = "stacked_round0_slice_sums";
  struct Args {
    In<Fp> trace;
    In<Fp4> eq;
    Out<Fp4> sums;
    uint32_t l_skip = 0;
    uint32_t log_chunks = 0;
    uint32_t log_parts = 0;
  };
  static Grid grid(const Args& a) { return {detail::grid_dim(a.sums.view.count / 2)}; }
  static std::string check(const Args& a);
  static void cpu(const Args& a, const CpuContext& ctx);
};

// The number of partial sums StackedRound0Weigh should write for `rows` rows of sums: about 8 rows
// per invocation, at most 2^16 invocations.
constexpr uint32_t stacked_round0_weigh_parts(uint64_t rows, uint32_t l_skip) {
  const uint64_t most = std::max<uint64_t>(1, (uint64_t(1) << 16) >> l_skip);
  return static_cast<uint32_t>(std::clamp<uint64_t>((rows + 7) / 8, 1, most));
}

// Round 0's second pass, the slices' weights on StackedRound0SliceSums rows: R = sums.count / (2N)
// rows, 2^log_parts per slice (R a multiple of it), weights = the slices' StackedSliceWeights pairs
// (2 (R >> log_parts) entries). With P = partials.count / (3N), k = row >> log_parts and S < N:
//   partials[(3p + 0) N + S] = sum_{row = p mod P} weights[2k]   sums[(2 row) N + S],
//   partials[(3p + 1) N + S] = sum_{row = p mod P} weights[2k+1] sums[(2 row) N + S],
//   partials[(3p + 2) N + S] = sum_{row = p mod P} weights[2k+1] sums[(2 row + 1) N + S].
// grid.x = P N (invocation p N + S).
struct StackedRound0Weigh {
  static constexpr std::string_view name = "stacked_round0_weigh";
  struct Args {
    In<Fp4> sums;
    In<Fp4> weights;
    Out<Fp4> partials;
    uint32_t l_skip = 0;
    uint32_t log_parts = 0;
  };
  static Grid grid(const Args& a) {
    const uint64_t three_n = 3 * detail::pow2(std::min<uint32_t>(a.l_skip, 31));
    return {detail::grid_dim(a.partials.view.count / three_n * (three_n / 3))};
  }
  static std::string check(const Args& a);
  static void cpu(const Args& a, const CpuContext& ctx);
};

// One class's partial sums, added and inverse-DFT'd over D: with P = partials.count / (3N),
// omega = two_adic_generator(l_skip) and v_t[S] = sum_{p < P} partials[(3p + t) N + S],
//   sums[t N + a] = iDFT_N(v_t)[a] = N^-1 sum_{S < N} v_t[S] omega^(-S a),
// the monomial coefficients (in Z) of sum_{k, x} W_t(k, x) q-hat(Z, x) over the class's slices k and
// chunks x, W_0 = weights[2k] E(x), W_1 = weights[2k+1] E(x), W_2 = weights[2k+1] D(x) (the
// partials of StackedRound0Weigh). With mobius != 0 the partials are sums of RS message chunks
// instead (subset-zeta(iDFT_N(chunk)), protocol.md 6.3) and the transform is its inverse's half,
// the subset-Möbius transform over the l_skip bits:
//   sums[t N + a] = sum_{S subset of a} (-1)^|a \ S| v_t[S].
// grid.x = 3N = sums.count.
struct StackedRound0Sums {
  static constexpr std::string_view name = "stacked_round0_sums";
  struct Args {
    In<Fp4> partials;
    Out<Fp4> sums;
    uint32_t l_skip = 0;
    uint32_t mobius = 0;
  };
  static Grid grid(const Args& a) { return {detail::grid_dim(a.sums.view.count)}; }
  static std::string check(const Args& a);
  static void cpu(const Args& a, const CpuContext& ctx);
};

// The 2N - 1 coefficients of s'_0 (protocol.md 10.3) from every class's sums (V_t = sums[3N h + t N ..],
// h < classes.count, classes[h] = the class's log height): coeffs[m] for m < grid.x = 2N - 1 is
// coefficient m of
//   sum_h  V_0(Z) Keq_h(Z) + V_1(Z) Krot_h(Z) + V_2(Z) Kd(Z),
// where Keq_h(Z) = in_h(Z) eq_D^(L)(Z, y) has coefficients y^((-j) mod 2^L) / N (j < N), Krot_h the
// same with omega_L y for y, and Kd(Z) = eq_D(omega_l r_0, 1) eq_D(Z, 1) has all N coefficients
// eq_D(omega_l r_0, 1) / N. r_0 = r[0].
struct StackedRound0Poly {
  static constexpr std::string_view name = "stacked_round0_poly";
  struct Args {
    In<uint32_t> classes;
    In<Fp4> r;
    In<Fp4> sums;
    Out<Fp4> coeffs;
    uint32_t l_skip = 0;
  };
  static Grid grid(const Args& a) { return {detail::grid_dim(a.coeffs.view.count)}; }
  static std::string check(const Args& a);
  static void cpu(const Args& a, const CpuContext& ctx);
};

// out[b] = prod_{k < l_skip} (b_k ? z^(2^k) : 1 - z^(2^k)) for b < grid.x = out.count = 2^l_skip,
// z = z[0]: eq(b, (u_0, u_0^2, ..)), the weights that fold a message chunk at u_0.
struct StackedFoldWeights {
  static constexpr std::string_view name = "stacked_fold_weights";
  struct Args {
    In<Fp4> z;
    Out<Fp4> out;
    uint32_t l_skip = 0;
  };
  static Grid grid(const Args& a) { return {detail::grid_dim(a.out.view.count)}; }
  static std::string check(const Args& a);
  static void cpu(const Args& a, const CpuContext& ctx);
};

// out[j] = sum_{S < N} message[j N + S] weights[S] for j < grid.x = out.count, N = weights.count:
// with StackedFoldWeights, every stacked column's PLE folded at u_0 (a table over H_n_stack).
struct StackedFoldChunks {
  static constexpr std::string_view name = "stacked_fold_chunks";
  struct Args {
    In<Fp> message;
    In<Fp4> weights;
    Out<Fp4> out;
  };
  static Grid grid(const Args& a) { return {detail::grid_dim(a.out.view.count)}; }
  static std::string check(const Args& a);
  static void cpu(const Args& a, const CpuContext& ctx);
};

// The two coefficients of every slice's kernel after round 0 (protocol.md 10.2 at Z = u_0), for
// i < grid.x = log_heights.count (slice i of height 2^log_heights[i]), w = weights, u_0 = u[0]:
//   coeffs[2i]   = in(u_0) (w[2i] eq_D^(L)(u_0, y) + w[2i+1] eq_D^(L)(u_0, omega_L y))
//   coeffs[2i+1] = w[2i+1] eq_D(u_0, 1) eq_D(omega_l r_0, 1) when n >= 1, else 0
// with in(u_0) = eq_D^(-n)(u_0^(2^L), 1) for n < 0 (protocol.md 5.4), else 1.
struct StackedSliceCoeffs {
  static constexpr std::string_view name = "stacked_slice_coeffs";
  struct Args {
    In<uint32_t> log_heights;
    In<Fp4> r;
    In<Fp4> u;
    In<Fp4> weights;
    Out<Fp4> coeffs;
    uint32_t l_skip = 0;
  };
  static Grid grid(const Args& a) { return {detail::grid_dim(a.log_heights.view.count)}; }
  static std::string check(const Args& a);
  static void cpu(const Args& a, const CpuContext& ctx);
};

// The kernel table of K = coeffs.count / 2 consecutive slices of one class, C = 2^log_chunks
// chunks each (eq = E, C entries): for k < K, x < C,
//   table[k C + x] = coeffs[2k] E(x) + coeffs[2k+1] D(x),
// K_c(u_0, x) of protocol.md 10.2 over the slices' rows. grid.x = table.count = K C.
struct StackedKernelTable {
  static constexpr std::string_view name = "stacked_kernel_table";
  struct Args {
    In<Fp4> eq;
    In<Fp4> coeffs;
    Out<Fp4> table;
    uint32_t log_chunks = 0;
  };
  static Grid grid(const Args& a) { return {detail::grid_dim(a.table.view.count)}; }
  static std::string check(const Args& a);
  static void cpu(const Args& a, const CpuContext& ctx);
};

// A sumcheck round of a product of two multilinear tables with the previous round's fold in the
// same dispatch: f_dst[y] = f[2y] + alpha (f[2y+1] - f[2y]) and likewise w_dst for y < 2 pairs
// (f, w hold 4 pairs entries), then the partial sums of s(1), s(2) over the folded tables exactly
// as SumcheckProductPartials (kernels/whir.hpp) computes them from f_dst and w_dst: workgroup p of
// kSumcheckLanes invocations sums the pairs y = 64 p + lane + k 64 P (P = partials.count / 2):
//   partials[2p] = sum f_dst[2y+1] w_dst[2y+1],  partials[2p+1] = sum (2 f_dst[2y+1] - f_dst[2y]) (2 w_dst[2y+1] -
//   w_dst[2y]).
// grid.x = 64 P; an invocation folds the pairs it sums.
struct StackedFoldPartials {
  static constexpr std::string_view name = "stacked_fold_partials";
  static constexpr uint32_t workgroup_size = kSumcheckLanes;
  static constexpr KernelConstant constants[] = {{"LANES", kSumcheckLanes}};
  struct Args {
    In<Fp4> f;
    In<Fp4> w;
    In<Fp4> alpha;
    Out<Fp4> f_dst;
    Out<Fp4> w_dst;
    Out<Fp4> partials;
    uint32_t pairs = 0;
  };
  static Grid grid(const Args& a) { return {detail::grid_dim(a.partials.view.count / 2 * kSumcheckLanes)}; }
  static std::string check(const Args& a);
  static void cpu(const Args& a, const CpuContext& ctx);
};

}  // namespace vkstark
