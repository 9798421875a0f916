// Kernels that turn trace columns into the multilinear tables of the batch constraint sumcheck's
// MLE rounds (protocol.md 9.4): the prismalinear fold at r_0 (5.3), with its Lagrange weights on D.
// Trace values are base field; weights, challenges and tables are Fp4.
#pragma once

#include "kernels/detail/grid.hpp"
#include "kernels/types.hpp"
#include "runtime/kernel.hpp"

namespace vkstark {

// out[i] = eq_D^(L)(r[0], roots[i]) for i < grid.x = out.count (protocol.md 5.1), roots the
// 2^L-th roots of unity omega_L^i: the Lagrange basis on D^(L) at r, for PleFoldColumns.
struct EqUniWeights {
  static constexpr std::string_view name = "eq_uni_weights";
  struct Args {
    In<Fp4> r;
    In<Fp> roots;
    Out<Fp4> out;
    uint32_t log_n = 0;  // L
  };
  static Grid grid(const Args& a) { return {detail::grid_dim(a.out.view.count)}; }
  static std::string check(const Args& a);
  static void cpu(const Args& a, const CpuContext& ctx);
};

// The PLE fold at r_0 of `cols` columns of height H = 2^log_height (column c at in[c H ..]), with
// N = 2^log_n weights w (EqUniWeights at r_0), for the B = 2^log_chunks chunks from first_chunk of
// the X = max(H / N, 1) (a row tile of the table; all of them with first_chunk 0, B = X):
//   out[c B + x] = sum_{i < N} w[i] in[c H + (((first_chunk + x) N + i + shift) mod H)]
// shift 0: the column's table; shift 1: the rotated column's (next row, cyclic over the trace).
// A trace shorter than N is lifted by repetition (rows mod H, protocol.md 5.4). grid.x = cols B.
struct PleFoldColumns {
  static constexpr std::string_view name = "ple_fold_columns";
  struct Args {
    In<Fp> in;
    In<Fp4> weights;
    Out<Fp4> out;
    uint32_t log_height = 0;
    uint32_t log_n = 0;
    uint32_t shift = 0;
    uint32_t first_chunk = 0;
    uint32_t log_chunks = 0;
  };
  static Grid grid(const Args& a) { return {detail::grid_dim(a.out.view.count)}; }
  static std::string check(const Args& a);
  static void cpu(const Args& a, const CpuContext& ctx);
};

}  // namespace vkstark
