// Kernels of round 0 of the batch constraint sumcheck (protocol.md 9.3; the graph builder is
// stages/batch_constraint/round0.hpp): everything around the evaluation of the constraint DAG at the
// coset points. Notation: l = l_skip, N = 2^l, omega = omega_N; a trace has H = 2^log_height rows
// and X = max(H / N, 1) chunks of N rows (rows taken mod H: a trace shorter than N is lifted by
// repetition, protocol.md 5.4); coset c (c = 1..C) holds the M = N X points (z_k, x) with
// z_k = g^c omega^k (g = 31), point index p = k X + x (k-major: the X values of one k follow each
// other). Functional f of protocol.md 9.1 is 0: the zerocheck C_T, 1: the numerator N_T, 2: the
// denominator Q_T. Values are Fp4 unless said otherwise; challenges come from buffers.
// The kernels keep the reference's names (zerocheck_*, as OpenVM's CUDA prover calls them), as
// spans do, so that timings compare (docs/decisions.md, the naming rule).
#pragma once

#include <cstdint>

#include "kernels/detail/grid.hpp"
#include "kernels/types.hpp"
#include "runtime/kernel.hpp"

namespace vkstark {

// The functionals of protocol.md 9.1, in the order the round-0 kernels hold them.
inline constexpr uint32_t kZerocheckFunctionals = 3;

// The coset extension of `cols` trace columns, for the B = 2^log_chunks chunks from first_chunk
// (a block; all X = max(H / N, 1) chunks at once with first_chunk 0, B = X): with W = weights (N x
// N, row-major, W[k][i] = L_i(z_k), the Lagrange basis on D at the coset's points),
//   out[c N B + k B + x] = sum_{i < N} W[k][i] in[c H + (((first_chunk + x) N + i + shift) mod H)],
// shift 0 for the local matrix, 1 for the next (rotated) one: each column's PLE chunk
// first_chunk + x evaluated at z_k. in column-major (column c at c H), out column-major with N B
// rows. One invocation per chunk (c, x), writing its N values: grid.x = cols B = out.count / N,
// adjacent invocations read adjacent chunks and write adjacent entries of each k's row.
//
// `fft` serves the device body for N = 16 (l_skip 4, the app params): a workgroup stages its chunks
// through shared memory with coalesced loads, and each chunk's values come from an inverse and a
// forward DFT of 16 points instead of the N x N products: fft = omega_16^j, omega_16^-j (j < 8),
// then s_j = g^(c j) / 16 (j < 16), Montgomery form (coset_extension_fft in
// stages/batch_constraint/round0.hpp). The values are the same; the CPU body uses `weights` alone. For
// other N, fft is empty; with N = 16 and an empty fft the device takes the general path.
struct ZerocheckCosetExtend {
  static constexpr std::string_view name = "zerocheck_coset_extend";
  static constexpr uint32_t workgroup_size = 256;  // the staging of the N = 16 path assumes it
  static constexpr KernelConstant constants[] = {{"WG", workgroup_size}};
  static constexpr uint32_t kFftLogN = 4;
  static constexpr uint32_t kFftTable = 32;
  struct Args {
    In<Fp> in;
    In<Fp> weights;
    In<Fp> fft;
    Out<Fp> out;
    uint32_t log_height = 0;
    uint32_t log_n = 0;
    uint32_t shift = 0;
    uint32_t first_chunk = 0;
    uint32_t log_chunks = 0;
  };
  static Grid grid(const Args& a) { return {detail::grid_dim(a.log_n < 64 ? a.out.view.count >> a.log_n : 0)}; }
  static std::string check(const Args& a);
  static void cpu(const Args& a, const CpuContext& ctx);
};

// ZerocheckWeightedSums reduces inside workgroups of this many invocations.
inline constexpr uint32_t kZerocheckLanes = 64;
// ZerocheckWeightedSums adds up at most this many slices (one per chunk of an AIR's extension kernel
// running side by side; the Keccak-f AIR's has 374 chunks of 64 operations). 512 against 256, H100,
// one run (docs/decisions.md 2026-11-27): keccakf 2^15 MLE rounds 3.64-3.70 against 3.96-4.00 ms,
// 2^12 1.34 against 1.61: every chunk its own slice halves the last rounds' chain.
inline constexpr uint32_t kZerocheckMaxSlices = 512;

// The weighted sums over the hypercube part of one coset's functional values, as J = partials.count
// / (3N) partial sums per (functional, k): with X = eq.count (M = N X points; N any count) and the
// values of each functional in S = slices slices to add up (the unsummed chunk sums of the
// extension kernel, stages/compiler/ext_kernel.hpp; S = 1 in round 0),
//   partials[(j 3 + f) N + k] = sum_{s < S} sum_{x in S_j} eq[x] values[(f S + s) M + k X + x]
// S_j = the x < X in the blocks of 64 at 64 (j + t J), t = 0, 1, ... (workgroup (j 3 + f) N + k
// of 64 invocations, lane = x mod 64: adjacent invocations read adjacent values); with X < 64 and
// J = 1, 64 / X invocations share each x's slices. A functional
// whose bit in `present` is clear is never read and its partials are 0 (a trace without
// constraints or without interactions). grid.x = 64 partials.count.
struct ZerocheckWeightedSums {
  static constexpr std::string_view name = "zerocheck_weighted_sums";
  static constexpr uint32_t workgroup_size = kZerocheckLanes;
  static constexpr KernelConstant constants[] = {{"LANES", kZerocheckLanes}};
  struct Args {
    In<Fp4> values;
    In<Fp4> eq;
    Out<Fp4> partials;
    uint32_t n = 0;  // N: values per functional and x (2^l_skip in round 0, d in an MLE round)
    uint32_t present = 0;
    uint32_t slices = 1;  // S, 1..kZerocheckMaxSlices
  };
  static Grid grid(const Args& a) { return {detail::grid_dim(a.partials.view.count * kZerocheckLanes)}; }
  static std::string check(const Args& a);
  static void cpu(const Args& a, const CpuContext& ctx);
};

// The coefficients of the polynomials of degree < C N through the C cosets' weighted sums: with
// C = scale.count / 3 cosets, J = rows and v(f, m) = scale[f C + c] sum_{j < J} partials[c J 3N +
// (j 3 + f) N + k] for m = c N + k (coset c + 1 of the protocol; ZerocheckWeightedSums' partials
// of each coset one after another),
//   coeffs[f C N + i] = sum_{m < C N} matrix[i C N + m] v(f, m),   f < 3, i < C N = grid.x / 3.
// matrix = the inverse of the Vandermonde matrix of the C N points (coset_interpolation_matrix in
// stages/batch_constraint/round0.hpp); scale folds in the zerocheck's 1 / (z^N - 1) and norm_T.
struct ZerocheckInterpolate {
  static constexpr std::string_view name = "zerocheck_interpolate";
  struct Args {
    In<Fp4> partials;
    In<Fp> matrix;
    In<Fp> scale;
    Out<Fp4> coeffs;
    uint32_t log_n = 0;
    uint32_t rows = 0;
  };
  static Grid grid(const Args& a) { return {detail::grid_dim(a.coeffs.view.count)}; }
  static std::string check(const Args& a);
  static void cpu(const Args& a, const CpuContext& ctx);
};

// A trace's round-0 polynomials (protocol.md 9.3) from ZerocheckInterpolate's coefficients (K = C N
// each: the zerocheck quotient q, s'_p with norm_T, s'_q) and eq_polys (ZerocheckEqPolys: the N
// coefficients of eq#(xi[0..l], Z), then the N of eq_D(xi_0, Z)): L = polys.count / 3 coefficients
// each of
//   polys[0 L ..] = s_p  = eq# s'_p,   polys[1 L ..] = s_q = eq# s'_q,
//   polys[2 L ..] = s_zc = eq_D(xi_0, .) s'_zc,  s'_zc = (Z^N - 1) q truncated to trace_degree (N - 1) + 1
// coefficients (coefficient i: q_(i-N) - q_i). Products truncated to L coefficients (those past the
// degree are zero for an exact computation). grid.x = polys.count (invocation f L + j: coefficient j).
struct ZerocheckRound0Polys {
  static constexpr std::string_view name = "zerocheck_round0_polys";
  struct Args {
    In<Fp4> coeffs;
    In<Fp4> eq_polys;
    Out<Fp4> polys;
    uint32_t log_n = 0;
    uint32_t trace_degree = 0;
  };
  static Grid grid(const Args& a) { return {detail::grid_dim(a.polys.view.count)}; }
  static std::string check(const Args& a);
  static void cpu(const Args& a, const CpuContext& ctx);
};

// The univariate kernels of protocol.md 5.1-5.2 as coefficients, from xi: for a < N,
//   out[a]     = (1/N) sum_{k < N} omega^(-a k) eq(xi[0..l], bits_l(k))   (eq#(xi[0..l], Z): the iDFT)
//   out[N + a] = a == 0 ? 1/N : xi_0^(N - a) / N                          (eq_D(xi_0, Z))
// with inv_roots[k] = omega^(-k). xi is read only when l > 0. grid.x = 2N = out.count.
struct ZerocheckEqPolys {
  static constexpr std::string_view name = "zerocheck_eq_polys";
  struct Args {
    In<Fp4> xi;
    In<Fp> inv_roots;
    Out<Fp4> out;
    uint32_t log_n = 0;
  };
  static Grid grid(const Args& a) { return {detail::grid_dim(a.out.view.count)}; }
  static std::string check(const Args& a);
  static void cpu(const Args& a, const CpuContext& ctx);
};

// s_0 (protocol.md 9.3): with L = coeffs.count and P = polys.count / (3L) traces (each trace's
// ZerocheckRound0Polys output, one after another),
//   coeffs[j] = sum_T mu^(2T) s_p,T[j] + mu^(2T+1) s_q,T[j] + mu^(2P+T) s_zc,T[j],  j < L = grid.x.
struct ZerocheckBatchRound0 {
  static constexpr std::string_view name = "zerocheck_batch_round0";
  struct Args {
    In<Fp4> polys;
    In<Fp4> mu;
    Out<Fp4> coeffs;
  };
  static Grid grid(const Args& a) { return {detail::grid_dim(a.coeffs.view.count)}; }
  static std::string check(const Args& a);
  static void cpu(const Args& a, const CpuContext& ctx);
};

}  // namespace vkstark
