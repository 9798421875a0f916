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
#include <span>
#include <string>
#include <vector>

#include "kernels/field/fp4.hpp"
#include "kernels/hash/hash.hpp"
#include "stages/air/verifying_key.hpp"
#include "stages/encoding/fields.hpp"
#include "stages/whir/proof.hpp"

namespace vkstark {

// The claims of one GKR layer (p_j(0), p_j(1), q_j(0), q_j(1) at the layer's point), in the
// encoding order p0, p1, q0, q1; the transcript observes them as p0, q0, p1, q1 (16.1 item 6).
struct GkrLayerClaims {
  using ProofDevice = Fp4;  // four Fp4 in a row (stages/encoding/fields.hpp)
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

// ---------------------------------------------------------------------------------------------
// Shapes: every size of a proof follows from the verifying key and the trace heights (protocol.md
// 13 step 3). The prover lays out its proof buffer with them; the verifier checks a proof with them.

// Present AIRs sorted by log_height descending, AIR index ascending (protocol.md 0): the AIR index
// of each trace T. log_heights in AIR-index order, nullopt for absent AIRs.
std::vector<uint32_t> sorted_trace_order(std::span<const std::optional<uint32_t>> log_heights);

// total_interactions = sum_T I_T 2^max(h_T, l_skip) and n_logup (protocol.md 8.1).
struct LogupLayout {
  uint64_t total_interactions = 0;
  uint32_t n_logup = 0;
  // row_start of each slot (T, sigma) in the interaction column, sorted trace order, vk order.
  std::vector<std::vector<uint64_t>> row_start;
};

struct GkrShape {
  uint32_t layers = 0;  // l_skip + n_logup, 0 without interactions
};
struct BatchConstraintShape {
  uint32_t traces = 0;         // P
  uint32_t round0_coeffs = 0;  // (d + 1)(2^l_skip - 1) + 1
  uint32_t n_max = 0;
  uint32_t round_evals = 0;                           // d + 1
  std::vector<std::vector<uint32_t>> opening_counts;  // [T][part]: width, times 2 with need_rot
};
struct StackingShape {
  uint32_t round0_coeffs = 0;    // 2(2^l_skip - 1) + 1
  uint32_t rounds = 0;           // n_stack
  std::vector<uint32_t> widths;  // stacked width of each commitment, proof order
};

struct ProofShape {
  std::vector<uint32_t> order;  // sorted_trace_order
  LogupLayout logup;
  GkrShape gkr;
  BatchConstraintShape batch;
  StackingShape stacking;
  WhirShape whir;
};

// The shape of the proof of these traces (log_heights in AIR-index order, nullopt: absent).
// InputError naming the AIR for heights the params cannot hold (above l_skip + n_stack) or a
// total stacked width above w_stack; the verifier turns it into a rejection.
ProofShape proof_shape(const MultiStarkVerifyingKey& vk, std::span<const std::optional<uint32_t>> log_heights);

// ---------------------------------------------------------------------------------------------
// Field lists (stages/encoding/fields.hpp), encoding order of protocol.md 12.2.

// Without interactions the proof has no layer; a count of layers above 64 + l_skip cannot come
// from a u64 total (protocol.md 8.1).
inline constexpr uint64_t kMaxGkrLayers = 96;

template <class V>
void gkr_fields(V& v, GkrProof& p, const GkrShape* s) {
  v.value("GKR proof: logup_pow_witness", p.logup_pow_witness);
  v.value("GKR proof: q0_claim", p.q0_claim);
  const uint64_t layers = v.count(
      "GKR proof: claims_per_layer length", [&] { return p.claims_per_layer.size(); },
      want(s, [&] { return s->layers; }), 64);
  v.require(layers <= kMaxGkrLayers, "GKR proof: claims_per_layer length",
            fmt::format("{} layers, at most {} are possible", layers, kMaxGkrLayers));
  v.list("GKR proof: claims_per_layer", "GKR proof: claims_per_layer[{}]", p.claims_per_layer, layers);
  v.outer("GKR proof: sumcheck_polys", p.sumcheck_polys, layers > 0 ? layers - 1 : 0);
  for (uint64_t j = 2; j <= layers; ++j)
    v.list({"GKR proof: layer {} sumcheck_polys", j}, {"GKR proof: layer {} sub-round {}", j},
           proof_item(p.sumcheck_polys, j - 2), j - 1);
}

template <class V>
void batch_constraint_fields(V& v, BatchConstraintProof& p, const BatchConstraintShape* s) {
  const uint64_t traces = v.count(
      "batch constraint proof: numerator_term_per_air length", [&] { return p.numerator_term_per_air.size(); },
      want(s, [&] { return s->traces; }), 32);
  v.list("batch constraint proof: numerator_term_per_air", "batch constraint proof: numerator_term_per_air[{}]",
         p.numerator_term_per_air, traces);
  v.list("batch constraint proof: denominator_term_per_air", "batch constraint proof: denominator_term_per_air[{}]",
         p.denominator_term_per_air, traces);
  const uint64_t coeffs = v.count(
      "batch constraint proof: univariate_round_coeffs length", [&] { return p.univariate_round_coeffs.size(); },
      want(s, [&] { return s->round0_coeffs; }), 16);
  v.list("batch constraint proof: univariate_round_coeffs", "batch constraint proof: univariate_round_coeffs[{}]",
         p.univariate_round_coeffs, coeffs);
  auto& rounds = p.sumcheck_round_polys;
  const uint64_t n_max = v.count(
      "batch constraint proof: n_max", [&] { return rounds.size(); }, want(s, [&] { return s->n_max; }), 4);
  uint64_t evals = 0;
  if (n_max > 0) {
    evals = v.count(
        "batch constraint proof: sumcheck_round_polys width", [&] { return rounds.empty() ? 0 : rounds[0].size(); },
        want(s, [&] { return s->round_evals; }), 0);
    v.require(evals > 0, "batch constraint proof: sumcheck_round_polys width", "0, a round sends d + 1 values");
  }
  v.table("batch constraint proof: sumcheck_round_polys", "batch constraint proof: sumcheck_round_polys[{}]", rounds,
          n_max, evals);
  auto& openings = p.column_openings;
  v.outer("batch constraint proof: column_openings", openings, traces);
  for (uint64_t t = 0; t < traces; ++t) {
    auto& trace = proof_item(openings, t);
    const uint64_t parts = v.count(
        {"batch constraint proof: trace {} num_parts", t}, [&] { return trace.size(); },
        want(s, [&] { return s->opening_counts[t].size(); }), 4);
    v.outer({"batch constraint proof: trace {} column_openings", t}, trace, parts);
    for (uint64_t q = 0; q < parts; ++q) {
      auto& part = proof_item(trace, q);
      const uint64_t n = v.count(
          {"batch constraint proof: trace {} part {} openings length", t, q}, [&] { return part.size(); },
          want(s, [&] { return s->opening_counts[t][q]; }), 16);
      v.list({"batch constraint proof: trace {} part {} openings", t, q},
             {"batch constraint proof: trace {} part {} opening {}", t, q}, part, n);
    }
  }
}

template <class V>
void stacking_fields(V& v, StackingProof& p, const StackingShape* s) {
  const uint64_t coeffs = v.count(
      "stacking proof: univariate_round_coeffs length", [&] { return p.univariate_round_coeffs.size(); },
      want(s, [&] { return s->round0_coeffs; }), 16);
  v.list("stacking proof: univariate_round_coeffs", "stacking proof: univariate_round_coeffs[{}]",
         p.univariate_round_coeffs, coeffs);
  const uint64_t rounds = v.count(
      "stacking proof: sumcheck_round_polys length", [&] { return p.sumcheck_round_polys.size(); },
      want(s, [&] { return s->rounds; }), 32);
  v.list("stacking proof: sumcheck_round_polys", "stacking proof: sumcheck_round_polys[{}]", p.sumcheck_round_polys,
         rounds);
  auto& openings = p.stacking_openings;
  const uint64_t commits = v.count(
      "stacking proof: num_commits", [&] { return openings.size(); }, want(s, [&] { return s->widths.size(); }), 4);
  v.outer("stacking proof: stacking_openings", openings, commits);
  for (uint64_t c = 0; c < commits; ++c) {
    auto& col = proof_item(openings, c);
    const uint64_t n = v.count(
        {"stacking proof: commitment {} stacking_openings length", c}, [&] { return col.size(); },
        want(s, [&] { return s->widths[c]; }), 16);
    v.list({"stacking proof: commitment {} stacking_openings", c}, {"stacking proof: commitment {} opening {}", c}, col,
           n);
  }
}

// ---------------------------------------------------------------------------------------------
// Byte encoding, CODEC_VERSION 3 (protocol.md 12.2).

inline constexpr uint32_t kProofCodecVersion = 3;

// InputError for a proof inconsistent in itself (a list shorter than its count).
std::vector<uint8_t> encode(const Proof& proof);
// encode(proof)'s bytes appended to `out` (a proof file's buffer: no copy of the proof afterwards;
// reserve encoded_size(proof) first for one allocation).
void encode_append(const Proof& proof, std::vector<uint8_t>& out);
// encode(proof).size(), without encoding it.
uint64_t encoded_size(const Proof& proof);
// Counts checked against the bytes left and each other only (what a fuzzer calls).
Proof decode_proof(std::span<const uint8_t> bytes);
// Counts checked against the shape the vk and the proof's trace heights give. DecodeError naming
// the field for malformed, truncated or non-canonical bytes (a wrong version, values >= p, set
// bitmap padding bits, trailing bytes, ...), also for heights the params cannot hold.
Proof decode_proof(std::span<const uint8_t> bytes, const MultiStarkVerifyingKey& vk);
// The first way the proof's sizes differ from `shape` ("" if none): parts only (the header's
// counts are the vk's business, checked by the verifier).
std::string proof_shape_problem(const Proof& proof, const ProofShape& shape);

// Bytes of each part of encode(proof); they add up to its size.
struct ProofPartSizes {
  uint64_t header = 0;  // version, commitment, heights, cached commitments, public values
  uint64_t gkr = 0;
  uint64_t batch_constraint = 0;
  uint64_t stacking = 0;
  uint64_t whir = 0;
  uint64_t total() const { return header + gkr + batch_constraint + stacking + whir; }
};
ProofPartSizes proof_part_sizes(const Proof& proof);

}  // namespace vkstark
