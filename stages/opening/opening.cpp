// The host half of opening.hpp: byte codec and verifier. No graph code (that is opening_prover.cpp),
// so the fuzz targets (fuzz/) build this with the field, Poseidon2, Merkle and WHIR verifier code only.
#include "stages/opening/opening.hpp"

#include <fmt/format.h>

#include "stages/encoding/codec.hpp"
#include "stages/whir/verify.hpp"

namespace vkstark {

namespace {
// u -> u_cube (protocol.md 11.1), host side.
std::vector<Fp4> u_cube_of(std::span<const Fp4> u, uint32_t l_skip) {
  std::vector<Fp4> cube;
  Fp4 x = u[0];
  for (uint32_t i = 0; i < l_skip; ++i, x = x.square()) cube.push_back(x);
  cube.insert(cube.end(), u.begin() + 1, u.end());
  return cube;
}

// The caller's widths and claim, checked in themselves: InputError naming the field. Returns the
// total stacked width.
uint64_t check_widths(std::span<const uint32_t> widths, const SystemParams& params) {
  if (widths.empty()) throw InputError("PCS claim: no commitment, a PCS proof opens one at least");
  uint64_t total = 0;
  for (size_t i = 0; i < widths.size(); ++i) {
    if (widths[i] == 0) throw InputError(fmt::format("PCS claim: widths[{}] = 0", i));
    total += widths[i];
  }
  if (total > params.w_stack)
    throw InputError(fmt::format("PCS claim: total stacked width {} exceeds w_stack = {}", total, params.w_stack));
  return total;
}
uint64_t check_claim(const PcsClaim& c, const SystemParams& params) {
  const uint64_t total = check_widths(c.widths, params);
  if (c.roots.size() != c.widths.size())
    throw InputError(fmt::format("PCS claim: {} roots for {} widths", c.roots.size(), c.widths.size()));
  if (c.openings.size() != total)
    throw InputError(fmt::format("PCS claim: {} openings for {} stacked columns", c.openings.size(), total));
  return total;
}
}  // namespace

VerifyResult verify_pcs_proof(const PcsClaim& expected, const PcsProof& proof, const SystemParams& params) {
  params.validate();
  const uint64_t total_width = check_claim(expected, params);
  if (proof.roots.size() != expected.roots.size())
    return VerifyResult::reject(PcsReject::RootCount, fmt::format("PCS proof has {} roots, expected {}",
                                                                  proof.roots.size(), expected.roots.size()));
  for (size_t c = 0; c < proof.roots.size(); ++c)
    if (proof.roots[c] != expected.roots[c])
      return VerifyResult::reject(PcsReject::RootMismatch,
                                  fmt::format("PCS proof root {} is not the expected commitment", c));
  if (proof.point.size() != 1 + params.n_stack)
    return VerifyResult::reject(PcsReject::PointLength, fmt::format("PCS proof point has {} coordinates, expected {}",
                                                                    proof.point.size(), 1 + params.n_stack));
  if (proof.openings.size() != total_width)
    return VerifyResult::reject(PcsReject::OpeningCount, fmt::format("PCS proof has {} openings, expected {}",
                                                                     proof.openings.size(), total_width));
  for (size_t i = 0; i < proof.openings.size(); ++i)
    if (proof.openings[i] != expected.openings[i])
      return VerifyResult::reject(PcsReject::OpeningMismatch,
                                  fmt::format("PCS proof opening {} is not the expected value", i));
  DuplexSponge t;
  for (const Digest& r : expected.roots) t.observe_commit(r);
  for (size_t i = 0; i < proof.point.size(); ++i)
    if (t.sample_ext() != proof.point[i])
      return VerifyResult::reject(PcsReject::PointNotChallenge,
                                  fmt::format("PCS proof point coordinate {} is not the transcript's challenge", i));
  for (const Fp4& v : expected.openings) t.observe_ext(v);
  WhirStatement st{expected.roots, expected.widths, u_cube_of(proof.point, params.l_skip), expected.openings};
  return whir_verify(t, proof.whir, params, st);
}

VerifyResult verify_pcs_proof_bytes(const PcsClaim& expected, std::span<const uint8_t> bytes,
                                    const SystemParams& params) {
  params.validate();
  (void)check_claim(expected, params);
  PcsProof proof;
  try {
    proof = decode_pcs_proof(bytes, params, expected.widths);
  } catch (const DecodeError& e) {
    return VerifyResult::reject(e.code(), fmt::format("malformed PCS proof bytes: {}", e.what()));
  }
  return verify_pcs_proof(expected, proof, params);
}

VerifyResult check_pcs_proof_self_consistency(const PcsProof& proof, const std::vector<uint32_t>& widths,
                                              const SystemParams& params) {
  if (proof.roots.size() != widths.size())
    return VerifyResult::reject(PcsReject::RootCount, fmt::format("PCS proof has {} roots for {} commitments",
                                                                  proof.roots.size(), widths.size()));
  uint64_t total = 0;
  for (uint32_t w : widths) total += w;
  if (proof.openings.size() != total)
    return VerifyResult::reject(PcsReject::OpeningCount,
                                fmt::format("PCS proof has {} openings for {} columns", proof.openings.size(), total));
  return verify_pcs_proof({proof.roots, widths, proof.openings}, proof, params);
}

std::vector<uint8_t> encode(const PcsProof& p) {
  std::vector<uint8_t> out;
  ByteWriter w(out);
  w.usize(p.roots.size());
  for (const Digest& d : p.roots) w.digest(d);
  w.usize(p.point.size());
  for (const Fp4& v : p.point) w.ef(v);
  w.usize(p.openings.size());
  for (const Fp4& v : p.openings) w.ef(v);
  encode(p.whir, out);
  return out;
}

namespace {
// shape: the WHIR shape (and with it the roots, point and openings counts) the params give, if known.
PcsProof decode_pcs(std::span<const uint8_t> bytes, const SystemParams* params, const WhirShape* shape) {
  ByteReader r(bytes);
  auto count = [&](const char* what, uint64_t want, uint64_t item_bytes) {
    return shape ? r.expect(what, want, item_bytes) : r.count(what, item_bytes);
  };
  PcsProof p;
  const uint64_t n_roots = count("PCS proof: roots length", shape ? shape->commitment_widths.size() : 0, 32);
  p.roots.reserve(n_roots);
  for (uint64_t i = 0; i < n_roots; ++i) p.roots.push_back(r.digest({"PCS proof: roots[{}]", i}));
  const uint64_t n_point = count("PCS proof: point length", params ? 1 + params->n_stack : 0, 16);
  p.point.reserve(n_point);
  for (uint64_t i = 0; i < n_point; ++i) p.point.push_back(r.ef({"PCS proof: point[{}]", i}));
  const uint64_t n_open = count("PCS proof: openings length", shape ? shape->total_width() : 0, 16);
  p.openings.reserve(n_open);
  for (uint64_t i = 0; i < n_open; ++i) p.openings.push_back(r.ef({"PCS proof: openings[{}]", i}));
  p.whir = decode_whir_proof(r, shape);
  r.expect_end("PCS proof");
  return p;
}
}  // namespace

PcsProof decode_pcs_proof(std::span<const uint8_t> bytes, const SystemParams& params,
                          std::span<const uint32_t> widths) {
  params.validate();
  (void)check_widths(widths, params);
  const WhirShape shape = WhirShape::from(params, {widths.begin(), widths.end()});
  return decode_pcs(bytes, &params, &shape);
}

PcsProof decode_pcs_proof(std::span<const uint8_t> bytes) { return decode_pcs(bytes, nullptr, nullptr); }

}  // namespace vkstark
