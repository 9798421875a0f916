// Round 0 of the batch constraint sumcheck (protocol.md 9.3, univariate skip), prover half, as
// device dispatches, apart from the constraint DAG's evaluation itself (the constraint kernel's
// points mode, stages/compiler/constraint_kernel.hpp, driven by the caller between extend() and
// reduce()). Graph builder: nothing runs until the plan does. The verifier half is
// stages/batch_constraint/verify.hpp (its sums() and round0() mirror sample_lambda(), sums_and_mu() and
// round0() below). Thread-compatible; the Graph, the transcript, the verifying keys and the views
// must outlive the builder.
//
// Method (exact; any exact method gives the same polynomials). Trace T of H = 2^h rows, N = 2^l,
// X = max(H / N, 1), d_T its AIR's degree, C_T = max(d_T, 1) cosets g^c D (c = 1..C_T, g = 31;
// max(d_T - 1, 1) for an AIR without interactions, whose s'_p and s'_q are zero) of M = N X
// points (z_k = g^c omega^k, x), point index p = k X + x:
//   1. extend(T, c): every column's PLE at the coset's points (ZerocheckCosetExtend with the host's
//      Lagrange weights W_c[k][i] = L_i(z_k), local and, with need_rot, next rows), the selectors'
//      extension a host constant. C_T N points determine the three polynomials below exactly: the
//      zerocheck quotient has degree < (d_T - 1) N, s'_p and s'_q at most d_T (N - 1).
//   2. (the caller) the functionals C_T (lambda-folded constraints), N_T, Q_T at the M points into
//      the coset's value views.
//   3. reduce(T, c): sum_x eq(xi[l..l+n~_T], x) v(k X + x) per functional and k (ZerocheckWeightedSums).
//   4. finish(): per trace, the polynomials of degree < C_T N through those values (the zerocheck's
//      divided by z^N - 1 = g^(cN) - 1 (the numerator's values carry norm_T); ZerocheckInterpolate with a
//      host matrix), then s_p = eq#(xi[0..l], Z) s'_p, s_q = eq# s'_q, s_zc = eq_D(xi_0, Z) (Z^N - 1) q
//      (ZerocheckRound0Polys); one scalar program writes sum_p[T], sum_q[T] into the proof, observes
//      them (p_T, q_T per trace) and samples mu; s_0 (ZerocheckBatchRound0) into the proof; one
//      program observes it and samples r_0.
//
// Dispatches: the constructor's lambda program, one EqTable per distinct n~ > 0 and one
// ZerocheckEqPolys; per trace and coset, one extension per part and row offset (local; next with
// need_rot) and one weighted sum; per trace an interpolation and an assembly; then the sums
// program, s_0 and the s_0 program (five dependent dispatches after the last reduce()).
//
// Memory: the extension of a coset (parts x widths x M Fp, twice with need_rot: keccakf 2T, twice
// its trace) is made a block of chunks at a time: blocks of 2^k chunks whose extension stays within
// a quarter of the trace's bytes (at least kRound0MinBlockBytes, at most kRound0MaxBlockBytes and
// one binding). A block's
// extension and values (3 M Fp4) are transients that die with its reduce(), so building block after
// block lets the scheduler alias them. Each block adds its own rows of weighted sums; the sums are
// exact, so the proof does not depend on the blocks.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "kernels/field/fp.hpp"
#include "kernels/field/fp4.hpp"
#include "runtime/graph.hpp"
#include "stages/air/verifying_key.hpp"
#include "stages/common/params.hpp"
#include "stages/common/trace_part.hpp"
#include "stages/common/transcript.hpp"
#include "stages/encoding/regions.hpp"
#include "stages/proof/proof.hpp"

namespace vkstark {

// One trace of the batch sumcheck, sorted trace order.
struct Round0Trace {
  const StarkVerifyingKey* vk = nullptr;  // widths, need_rot, max_constraint_degree, constraints, interactions
  std::vector<TracePart> parts;           // row-view order (preprocessed?, cached..., common): width_p x 2^log_height
  uint32_t log_height = 0;
  // Per part, the columns the AIR reads at the next row, ascending (AirFunctionals::rotated: the
  // round-0 kernels' sources); empty lists without need_rot.
  std::vector<std::vector<uint32_t>> rotated;
};

// Where round 0 writes the batch constraint proof part.
struct Round0ProofViews {
  View<Fp4> numerator_term_per_air;    // P: sum_p[T]
  View<Fp4> denominator_term_per_air;  // P: sum_q[T]
  View<Fp4> univariate_round_coeffs;   // (d + 1)(N - 1) + 1: s_0
};
// The views of the batch constraint fields `fields` (regions.proto() of a
// PartRegions<BatchConstraintProof>, regions.proto().batch_constraint_proof of a whole proof's).
template <class Part>
[[nodiscard]] Round0ProofViews round0_proof_views(const ProofLayout& layout, const PartRegions<Part>& regions,
                                                  const BatchConstraintProof& fields) {
  return {regions.view(layout, fields.numerator_term_per_air), regions.view(layout, fields.denominator_term_per_air),
          regions.view(layout, fields.univariate_round_coeffs)};
}

// The functionals of protocol.md 9.1, in the order of the round-0 kernels (kernels/batch_constraint.hpp).
enum class Round0Functional : uint32_t { Zerocheck = 0, Numerator = 1, Denominator = 2 };

// What the constraint kernel's points mode reads and writes for one block of one coset of one
// trace: the B chunks from first_chunk (all X of them in one block where the extension fits the
// block budget), M = N B points, point p = k B + x is (z_k, first_chunk + x) with z_k = g^c omega^k.
struct Round0Coset {
  uint32_t trace = 0, coset = 0;  // coset c = 1..C_T
  uint32_t block = 0;             // b: chunks [b B, (b + 1) B)
  uint64_t first_chunk = 0;
  uint64_t points = 0;  // M = N B
  // Per row-view part: its columns' values at the points, column-major (column j at j M). `next`
  // reads the next row (rotated, cyclic over the trace) of the columns the AIR reads there
  // (AirFunctionals::rotated, ascending); empty views without need_rot.
  std::vector<View<Fp>> local, next;
  // All of them in one view: per part its local columns, then its next ones (the functionals'
  // round-0 part 0, AirFunctionals::points_columns, stages/batch_constraint/functionals.hpp).
  View<Fp> columns;
  // is_first, is_last, is_transition at the block's points: M values each, in that order (3 M).
  View<Fp> selectors;
  // The functionals' values to write (M each, one buffer of 3 M in Round0Functional order): C_T with
  // the lambda powers, norm_T N_T, Q_T (protocol.md 9.1). Empty views for a functional the trace has not
  // (N_T, Q_T without interactions; C_T without constraints): nothing reads those.
  View<Fp4> zerocheck, numerator, denominator;
};

// What round 0 leaves for the MLE rounds and for tests.
struct Round0Result {
  View<Fp4> mu, r0;       // one element each
  View<Fp4> eq_polys;     // the N coefficients of eq#(xi[0..l], Z), then the N of eq_D(xi_0, Z)
  View<Fp4> polys;        // per trace T at T 3 L: s_p, s_q, s_zc, L = (d + 1)(N - 1) + 1 coefficients each
  uint64_t poly_len = 0;  // L
  View<Fp4> s_p(uint32_t T) const { return polys.slice((3 * uint64_t(T) + 0) * poly_len, poly_len); }
  View<Fp4> s_q(uint32_t T) const { return polys.slice((3 * uint64_t(T) + 1) * poly_len, poly_len); }
  View<Fp4> s_zc(uint32_t T) const { return polys.slice((3 * uint64_t(T) + 2) * poly_len, poly_len); }
};

class Round0Prover {
 public:
  // Checks the traces against their keys (InputError naming the trace), samples lambda (task
  // "batch_constraint.round0.lambda"), and adds the eq tables that need xi only. xi holds at least l_skip + n_max
  // coordinates (the batch sumcheck's, protocol.md 7 step 4).
  Round0Prover(Graph& g, DeviceTranscript& transcript, const SystemParams& params, std::vector<Round0Trace> traces,
               View<Fp4> xi);
  Round0Prover(const Round0Prover&) = delete;
  Round0Prover& operator=(const Round0Prover&) = delete;

  // lambda (one element), for the constraint coefficients.
  View<Fp4> lambda() const { return lambda_; }
  uint32_t traces() const { return uint32_t(traces_.size()); }
  uint32_t cosets(uint32_t T) const;  // C_T = max(d_T, 1), max(d_T - 1, 1) without interactions
  uint32_t blocks(uint32_t T) const;  // blocks of chunks per coset
  uint64_t points(uint32_t T) const;  // M = N B per block

  // Step 1 for block b of coset c (1..C_T) of trace T: the extension dispatches ("batch_constraint.round0.T<T>.
  // extend.part<p>.local.coset<c>", with ".b<b>" where there are several blocks, ".c<column>" per
  // piece of a part in pieces; "...next.coset<c>[.b<b>].c<column>" per run of consecutive rotated
  // columns), and the views the functionals are written to. GraphError for a coset or block out of
  // range or extended twice.
  [[nodiscard]] Round0Coset extend(uint32_t T, uint32_t c, uint32_t b = 0);
  // Step 3, once the functional values of block b of coset c are written: the weighted sums
  // ("batch_constraint.round0.T<T>.coset<c>.weighted_sums[.b<b>]"). GraphError before extend(T, c, b) or twice.
  void reduce(uint32_t T, uint32_t c, uint32_t b = 0);
  // Steps 4-5, after every coset of every trace was reduced (GraphError otherwise): writes sum_p,
  // sum_q and s_0 into the proof views, and leaves the transcript just after r_0. InputError for
  // proof views of the wrong sizes. The builder is spent.
  [[nodiscard]] Round0Result finish(const Round0ProofViews& proof);

 private:
  struct TraceState {
    Round0Trace in;
    uint32_t cosets = 0, degree = 0, n_tilde = 0;
    uint64_t chunks = 0;                     // X
    uint32_t log_block = 0, blocks = 1;      // B = 2^log_block chunks per block, X / B blocks
    uint32_t present = 0;                    // bit f: functional f exists
    uint32_t block_rows = 0;                 // partial sums per value, coset and block
    uint32_t rows = 0;                       // J = blocks * block_rows: per value and coset
    View<Fp4> eq_x;                          // X weights eq(xi[l..l+n~], x)
    View<Fp4> partials;                      // C J 3 N
    std::vector<uint8_t> extended, reduced;  // per (coset, block): (c - 1) blocks + b
    std::vector<View<Fp4>> values;           // per (coset, block): 3 M
  };
  void check_traces();
  void eq_tables();
  void sample_lambda();
  void interpolate(uint32_t T, View<Fp4> coeffs);
  void sums_and_mu(const Round0ProofViews& proof, View<Fp4> polys);
  void round0(const Round0ProofViews& proof, View<Fp4> polys);
  std::string name(uint32_t T, const std::string& step) const;

  Graph& g_;
  DeviceTranscript& t_;
  const SystemParams params_;
  const uint32_t l_;
  const uint64_t n_;  // N
  std::vector<TraceState> traces_;
  View<Fp4> xi_, lambda_, eq_polys_, mu_, r0_;
  std::map<uint32_t, View<Fp4>> eq_by_n_;    // eq(xi[l..l+n], x) tables by n
  std::map<uint32_t, Buffer<Fp>> weights_;   // W_c per coset c
  std::map<uint32_t, Buffer<Fp>> fft_;       // coset_extension_fft per coset c
  std::map<uint32_t, Buffer<Fp>> matrices_;  // the interpolation matrix per coset count
  // per (log_height, coset, first chunk, log chunks)
  std::map<std::tuple<uint32_t, uint32_t, uint64_t, uint32_t>, Buffer<Fp>> selectors_;
  bool finished_ = false;
};

// ---------------------------------------------------------------------------------------------
// Host-known constants of the method (protocol.md 1.2, 5.1), exact; tests check them against
// naive constructions.

// W_c (N x N, row-major): W_c[k][i] = L_i(g^c omega^k), L_i the Lagrange basis on D = <omega_N>:
// (g^(cN) - 1) / (N (g^c omega^(k-i) - 1)). c >= 1.
[[nodiscard]] std::vector<Fp> coset_extension_weights(uint32_t l, uint32_t c);
// ZerocheckCosetExtend's `fft` table for coset c: for l = 4 (kFftLogN), omega_16^j and omega_16^-j
// (j < 8), then g^(c j) / 16 (j < 16); empty for other l.
[[nodiscard]] std::vector<Fp> coset_extension_fft(uint32_t l, uint32_t c);
// The C N x C N matrix A taking the values of a polynomial of degree < C N at the points
// g^c omega^k (entry m = (c - 1) N + k, c = 1..C, k < N) to its coefficients (row i = coefficient
// i): per coset an iDFT and the twist g^(-c r), then per residue r the inverse Vandermonde matrix
// of the C nodes g^(cN) (coefficient r + N t of the polynomial is coefficient t of the r-th part
// of its split P(Z) = sum_r Z^r Q_r(Z^N)).
[[nodiscard]] std::vector<Fp> coset_interpolation_matrix(uint32_t l, uint32_t cosets);
// The selector columns' extension at coset c of a trace of 2^log_height rows (lifted with period H
// when H < N): 3 M values, is_first, is_last, is_transition (= 1 - is_last), point p = k X + x.
[[nodiscard]] std::vector<Fp> coset_selectors(uint32_t l, uint32_t log_height, uint32_t c);
// The same at a block's points: the B = 2^log_chunks chunks from first_chunk, point p = k B + x.
[[nodiscard]] std::vector<Fp> coset_selectors(uint32_t l, uint32_t log_height, uint32_t c, uint64_t first_chunk,
                                              uint32_t log_chunks);

// The least extension bytes a round-0 block is given (smaller blocks cost more dispatches: 83
// chunk dispatches per coset and block for Keccak-f, each block's too few points to fill a GPU),
// and the most (larger blocks leave the transient arena's allocations harder to share). H100,
// keccakf, round 0 at 64 MiB / 1 GiB: 2^14 11.5 / 3.2 ms, 2^15 12.8 / 5.6, 2^16 13.7 / 10.8, 2^18
// 42.1 / 42.1 at the same peak (3.89x the trace); below 2^17 the peak grows (2^15: 4.05x -> 5.29x).
// docs/decisions.md 2026-11-27.
inline constexpr uint64_t kRound0MinBlockBytes = uint64_t(1) << 30;
inline constexpr uint64_t kRound0MaxBlockBytes = uint64_t(1) << 30;
// kRound0MinBlockBytes, or VKSTARK_ROUND0_BLOCK_BYTES (1 MiB .. 2^40) when set, for measuring
// (InputError naming the variable for another value).
[[nodiscard]] uint64_t round0_min_block_bytes();

}  // namespace vkstark
