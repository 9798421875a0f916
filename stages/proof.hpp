// The proof of a multi-AIR STARK (protocol.md 12.1): one part per prover phase, in the order the
// phases run. Value types; thread-compatible.
//
// Ordering conventions (protocol.md 0, 16.1): trace_vdata and public_values are in AIR-index order
// over every AIR of the verifying key (absent AIRs: nullopt and no values); everything per trace in
// the later parts is in sorted trace order (log_height descending, AIR index ascending).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "kernels/field/fp4.hpp"
#include "kernels/hash/hash.hpp"
#include "stages/whir/proof.hpp"

namespace vkstark {

// The claims of one GKR layer (p_j(0), p_j(1), q_j(0), q_j(1) at the layer's point), in the
// encoding order p0, p1, q0, q1; the transcript observes them as p0, q0, p1, q1 (16.1 item 6).
struct GkrLayerClaims {
  Fp4 p_xi_0, p_xi_1, q_xi_0, q_xi_1;
  bool operator==(const GkrLayerClaims&) const = default;
};

// LogUp via the GKR fractional sumcheck (protocol.md 8). Without interactions: q0_claim = 1 and
// both lists empty.
struct GkrProof {
  Fp logup_pow_witness;
  Fp4 q0_claim;
  std::vector<GkrLayerClaims> claims_per_layer;  // layers j = 1 .. n_tot (n_tot = l_skip + n_logup)
  // Entry j - 2 (layer j = 2 .. n_tot) holds the j - 1 sub-rounds' evaluations s(1), s(2), s(3).
  std::vector<std::vector<std::array<Fp4, 3>>> sumcheck_polys;
  bool operator==(const GkrProof&) const = default;
};

// The batch constraint sumcheck (protocol.md 9).
struct BatchConstraintProof {
  std::vector<Fp4> numerator_term_per_air;             // sum_p[T], sorted trace order
  std::vector<Fp4> denominator_term_per_air;           // sum_q[T]
  std::vector<Fp4> univariate_round_coeffs;            // s_0: (d + 1)(2^l_skip - 1) + 1 coefficients, low first
  std::vector<std::vector<Fp4>> sumcheck_round_polys;  // n_max rounds of s_j(1) .. s_j(d + 1)
  // [T][part][...]: parts common, preprocessed?, cached_0, ...; within a part, per column the
  // opening and (when the AIR has need_rot) the rotated opening, interleaved.
  std::vector<std::vector<std::vector<Fp4>>> column_openings;
  bool operator==(const BatchConstraintProof&) const = default;
};

// The stacked opening reduction (protocol.md 10).
struct StackingProof {
  std::vector<Fp4> univariate_round_coeffs;              // s'_0: 2(2^l_skip - 1) + 1 coefficients
  std::vector<std::array<Fp4, 2>> sumcheck_round_polys;  // n_stack rounds of s'_j(1), s'_j(2)
  std::vector<std::vector<Fp4>> stacking_openings;       // [commitment][stacked column]
  bool operator==(const StackingProof&) const = default;
};

struct TraceVData {
  uint32_t log_height = 0;
  std::vector<Digest> cached_commitments;  // part order
  bool operator==(const TraceVData&) const = default;
};

struct Proof {
  Digest common_main_commit{};
  std::vector<std::optional<TraceVData>> trace_vdata;  // AIR-index order; nullopt: AIR absent
  std::vector<std::vector<Fp>> public_values;          // AIR-index order; empty for absent AIRs
  GkrProof gkr_proof;
  BatchConstraintProof batch_constraint_proof;
  StackingProof stacking_proof;
  WhirProof whir_proof;
  bool operator==(const Proof&) const = default;
};

}  // namespace vkstark
