// A naive host model of the batch constraint sumcheck prover (protocol.md 9.1-9.6), written
// directly from the formulas as a test oracle for the device prover and for the verifier of 9.7.
//
// Nothing here is clever: every polynomial value is obtained by evaluating the batched polynomial
// S(Z, X_1..X_{n_max}) of 9.2 at explicit points, each column's PLE (5.3, lifted per 5.4) by a
// direct weighted sum over all of its rows, and s_0 by interpolating (d+1)(N-1)+1 evaluations
// through a Vandermonde solve. Meant for heights up to about 2^8; cost grows with
// 2^n_max * (total trace cells) per round.
//
// The model checks its own invariants and throws std::logic_error when one fails: s_j(0) + s_j(1)
// = c_{j-1} for every MLE round; every claim c_j computed both by interpolating the message and by
// evaluating S directly at r_j (a degree check); sum_p/sum_q both from s_{p,T}/s_{q,T}'s
// coefficients and from a direct sum of S's parts over D x H; Σ_{z∈D} s_0(z) = Σ_T μ^{2T} sum_p[T] +
// μ^{2T+1} sum_q[T] (plus, with allow_violations, the zerocheck part's own direct sum); openings of
// lifted traces against interpolation on the small subgroup.
//
// Pure functions apart from the transcript; thread-compatible.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "kernels/field/fp.hpp"
#include "kernels/field/fp4.hpp"
#include "kernels/hash/transcript.hpp"
#include "stages/air/air.hpp"
#include "stages/air/keygen.hpp"
#include "stages/proof/proof.hpp"

namespace vkstark {

struct ModelBatchInput {
  const ProvingKey* pk = nullptr;                // vk = pk->vk; per_air[a].dag, shape
  std::vector<uint32_t> order;                   // sorted trace order: AIR index of each trace T
  std::vector<std::vector<TraceMatrix>> parts;   // per trace T, row-view order: preprocessed?, cached..., common
  std::vector<std::vector<Fp>> public_values;    // per trace T
  std::vector<std::vector<uint64_t>> row_start;  // per T, per interaction sigma (LogupLayout::row_start)
  uint32_t n_logup = 0;
  Fp4 beta;
  std::vector<Fp4> xi;  // length l_skip + max(n_max, n_logup)
  // false: a nonzero zerocheck sum over D x H (a violated constraint) is a logic_error, as for a
  // valid trace it must be. true: the model runs on, for tests of invalid traces.
  bool allow_violations = false;
};

struct ModelBatchOutput {
  BatchConstraintProof proof;
  std::vector<Fp4> r;       // r_0 .. r_{n_max}
  std::vector<Fp4> claims;  // c_0 .. c_{n_max} (c_0 = s_0(r_0), c_j = s_j(r_j))
  Fp4 lambda, mu;
  // Per trace T, the round-0 polynomials of 9.3 (monomial coefficients, low first, each
  // (d+1)(N-1)+1 long): s_{p,T} = eq♯·s'_{p,T}, s_{q,T} = eq♯·s'_{q,T}, s_{zc,T} = eq_D(ξ_0, ·)·s'_{zc,T}.
  std::vector<std::vector<Fp4>> s_p, s_q, s_zc;
};

// Runs from the transcript state just before λ is sampled (protocol.md 7 step 5): samples λ,
// observes sum_p/sum_q, samples μ, observes the s_0 coefficients, samples r_0, the MLE rounds, and
// observes the column openings (a ZERO after every claim when need_rot is false), in that order.
// std::logic_error when an internal invariant fails; std::invalid_argument for inconsistent input.
ModelBatchOutput model_batch_prove(DuplexSponge& t, const ModelBatchInput& in);

// The LogUp input layer's MLE at ξ[0..l+n_logup], from the leaves of 8.2 (padding leaves (0, α)):
// (p̂(ξ), q̂(ξ)). For a consistent run: Σ_T sum_p[T] = p̂ and α + Σ_T sum_q[T] = q̂.
std::pair<Fp4, Fp4> model_logup_input_at(const ModelBatchInput& in, Fp4 alpha);

// Σ_{z∈D} s(z) for monomial coefficients s, |D| = 2^l, computed by evaluating at every z ∈ D.
Fp4 model_sum_over_D(const std::vector<Fp4>& coeffs, uint32_t l);

}  // namespace vkstark
