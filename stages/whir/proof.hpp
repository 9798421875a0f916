// The WHIR opening proof (protocol.md 12.1 WhirProof), its shape as a function of the parameters,
// its place in the device proof buffer, and its byte encoding (12.2). Value types.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "kernels/hash/hash.hpp"
#include "kernels/types.hpp"
#include "stages/codec.hpp"
#include "stages/params.hpp"
#include "stages/proof_layout.hpp"

namespace vkstark {

// Everything the sizes of a WHIR proof depend on.
struct WhirShape {
  uint32_t m = 0;  // log2 of the stacked height (l_skip + n_stack)
  uint32_t log_blowup = 1;
  uint32_t k = 1;
  std::vector<uint32_t> num_queries;        // per round
  std::vector<uint32_t> commitment_widths;  // stacked width of each commitment, in order

  static WhirShape from(const SystemParams& p, std::vector<uint32_t> commitment_widths);
  uint32_t rounds() const { return static_cast<uint32_t>(num_queries.size()); }
  uint32_t sumcheck_rounds() const { return rounds() * k; }
  uint32_t log_final_poly_len() const { return m - sumcheck_rounds(); }
  uint32_t total_width() const;
  // Merkle path length of the codeword queried in round i (round 0: the initial commitments).
  uint32_t merkle_depth(uint32_t round) const { return m + log_blowup - k - round; }
};

struct WhirProof {
  Fp mu_pow_witness;
  std::vector<std::array<Fp4, 2>> sumcheck_polys;  // R k evaluations s(1), s(2)
  std::vector<Digest> codeword_commits;            // R - 1
  std::vector<Fp4> ood_values;                     // R - 1
  std::vector<Fp> folding_pow_witnesses;           // R k
  std::vector<Fp> query_phase_pow_witnesses;       // R
  // [commitment][query][t * width + column]
  std::vector<std::vector<std::vector<Fp>>> initial_round_opened_rows;
  std::vector<std::vector<std::vector<Digest>>> initial_round_merkle_proofs;  // [commitment][query][level]
  std::vector<std::vector<std::vector<Fp4>>> codeword_opened_values;          // [round - 1][query][t]
  std::vector<std::vector<std::vector<Digest>>> codeword_merkle_proofs;       // [round - 1][query][level]
  std::vector<Fp4> final_poly;

  // 2^k rows per query, with k = sumcheck rounds / WHIR rounds.
  uint64_t rows_per_query() const {
    return query_phase_pow_witnesses.empty()
               ? 1
               : uint64_t(1) << (sumcheck_polys.size() / query_phase_pow_witnesses.size());
  }
  bool operator==(const WhirProof&) const = default;
};

// The regions of a WhirProof in the device proof buffer.
struct WhirRegions {
  ProofRegion<Fp> mu_pow_witness;
  ProofRegion<Fp4> sumcheck_polys;  // 2 per sumcheck round
  ProofRegion<Digest> codeword_commits;
  ProofRegion<Fp4> ood_values;
  ProofRegion<Fp> folding_pow_witnesses;
  ProofRegion<Fp> query_phase_pow_witnesses;
  std::vector<ProofRegion<Fp>> initial_rows;        // per commitment: queries * 2^k * width
  std::vector<ProofRegion<Digest>> initial_paths;   // per commitment: queries * depth
  std::vector<ProofRegion<Fp4>> codeword_values;    // per round >= 1: queries * 2^k
  std::vector<ProofRegion<Digest>> codeword_paths;  // per round >= 1: queries * depth
  ProofRegion<Fp4> final_poly;

  static WhirRegions reserve(ProofLayout& layout, const WhirShape& shape);
  // Reads a downloaded proof buffer back into a WhirProof.
  WhirProof decode(const ProofLayout& layout, std::span<const uint32_t> words, const WhirShape& shape) const;
};

// Byte encoding of protocol.md 12.2 (the WhirProof part).
void encode(const WhirProof& proof, std::vector<uint8_t>& out);
// Decodes the WhirProof part at the reader's position and advances it. With `expected` (the shape
// the params and the commitments' widths give), every count must equal the shape's; without it,
// counts are checked against the bytes left and one another only (and against what supported params
// allow: 1..24 sumcheck rounds, a query in every round, no zero width). Either way nothing is
// allocated for a count before the bytes left are known to hold it, and the bytes accepted are the
// one canonical encoding of the result. DecodeError naming the field otherwise.
WhirProof decode_whir_proof(ByteReader& reader, const WhirShape* expected = nullptr);
}  // namespace vkstark
