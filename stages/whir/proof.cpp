#include "stages/whir/proof.hpp"

#include <fmt/format.h>

#include "runtime/error.hpp"

namespace vkstark {

WhirShape WhirShape::from(const SystemParams& p, std::vector<uint32_t> commitment_widths) {
  WhirShape s;
  s.m = p.log_stacked_height();
  s.log_blowup = p.log_blowup;
  s.k = p.whir.k;
  for (const WhirRound& r : p.whir.rounds) s.num_queries.push_back(r.num_queries);
  s.commitment_widths = std::move(commitment_widths);
  return s;
}

uint32_t WhirShape::total_width() const {
  uint32_t w = 0;
  for (uint32_t c : commitment_widths) w += c;
  return w;
}

void encode(const WhirProof& p, std::vector<uint8_t>& out) {
  ProofEncoder v(out);
  whir_fields(v, const_cast<WhirProof&>(p), nullptr);  // the encoder only reads
}

WhirProof decode_whir_proof(ByteReader& r, const WhirShape* s) {
  WhirProof p;
  ProofDecoder v(r);
  whir_fields(v, p, s);
  return p;
}

std::string whir_shape_problem(const WhirProof& p, const WhirShape& s) {
  ProofShapeCheck v;
  whir_fields(v, const_cast<WhirProof&>(p), &s);  // the check only reads
  return v.problem();
}

}  // namespace vkstark
