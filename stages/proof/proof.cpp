#include "stages/proof/proof.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <numeric>

#include "stages/pcs/layout.hpp"

namespace vkstark {

std::vector<uint32_t> sorted_trace_order(std::span<const std::optional<uint32_t>> log_heights) {
  std::vector<uint32_t> order;
  for (uint32_t a = 0; a < log_heights.size(); ++a)
    if (log_heights[a]) order.push_back(a);
  std::stable_sort(order.begin(), order.end(),
                   [&](uint32_t a, uint32_t b) { return *log_heights[a] > *log_heights[b]; });
  return order;
}

ProofShape proof_shape(const MultiStarkVerifyingKey& vk, std::span<const std::optional<uint32_t>> log_heights) {
  const SystemParams& params = vk.params;
  params.validate();
  if (log_heights.size() != vk.per_air.size())
    throw InputError(fmt::format("proof shape: {} trace heights for {} AIRs", log_heights.size(), vk.per_air.size()));
  const uint32_t l = params.l_skip, m = params.log_stacked_height();
  for (uint32_t a = 0; a < log_heights.size(); ++a)
    if (log_heights[a] && *log_heights[a] > m)
      throw InputError(fmt::format("AIR {}: trace height 2^{} exceeds the stacked height 2^{}", a, *log_heights[a], m));
  ProofShape s;
  s.order = sorted_trace_order(log_heights);

  // LogUp layout (8.1): slots of 2^max(h, l) per interaction, traces in sorted order.
  uint64_t offset = 0;
  for (uint32_t a : s.order) {
    const uint64_t len = uint64_t(1) << std::max(*log_heights[a], l);
    std::vector<uint64_t> starts;
    for (size_t i = 0; i < vk.per_air[a].symbolic_constraints.interactions.size(); ++i) {
      starts.push_back(offset);
      offset += len;
    }
    s.logup.row_start.push_back(std::move(starts));
  }
  s.logup.total_interactions = offset;
  s.logup.n_logup = offset == 0 ? 0 : uint32_t(std::bit_width(offset)) - l;
  s.gkr.layers = offset == 0 ? 0 : l + s.logup.n_logup;

  // Batch constraint sumcheck (9.8) and the stacking commitments (10.1).
  const uint32_t N = 1u << l, d = params.max_constraint_degree;
  s.batch.traces = uint32_t(s.order.size());
  s.batch.round0_coeffs = (d + 1) * (N - 1) + 1;
  s.batch.n_max = s.order.empty() ? 0 : std::max<int64_t>(int64_t(*log_heights[s.order[0]]) - l, 0);
  s.batch.round_evals = d + 1;
  std::vector<MatrixShape> common;
  std::vector<uint32_t> other_widths;
  for (uint32_t a : s.order) {
    const StarkVerifyingKey& air = vk.per_air[a];
    const TraceWidth& w = air.params.width;
    const uint32_t h = *log_heights[a], mult = air.params.need_rot ? 2 : 1;
    std::vector<uint32_t> counts{w.common_main * mult};
    common.push_back({w.common_main, h});
    if (w.preprocessed) {
      counts.push_back(*w.preprocessed * mult);
      other_widths.push_back(StackedLayout({{*w.preprocessed, h}}, l, params.n_stack).stacked_width());
    }
    for (uint32_t c : w.cached_mains) {
      counts.push_back(c * mult);
      other_widths.push_back(StackedLayout({{c, h}}, l, params.n_stack).stacked_width());
    }
    s.batch.opening_counts.push_back(std::move(counts));
  }
  s.stacking.round0_coeffs = 2 * (N - 1) + 1;
  s.stacking.rounds = params.n_stack;
  if (!s.order.empty()) s.stacking.widths.push_back(StackedLayout(common, l, params.n_stack).stacked_width());
  s.stacking.widths.insert(s.stacking.widths.end(), other_widths.begin(), other_widths.end());
  const uint64_t total = std::accumulate(s.stacking.widths.begin(), s.stacking.widths.end(), uint64_t(0));
  if (total > params.w_stack)
    throw InputError(fmt::format("proof shape: total stacked width {} exceeds w_stack = {}", total, params.w_stack));
  s.whir = WhirShape::from(params, s.stacking.widths);
  return s;
}

namespace {

void encode_header(const Proof& p, ByteWriter& w) {
  w.u32(kProofCodecVersion);
  w.digest(p.common_main_commit);
  const uint64_t airs = p.trace_vdata.size();
  w.usize(airs);
  for (uint64_t b = 0; b < (airs + 7) / 8; ++b) {
    uint8_t byte = 0;
    for (uint64_t i = 0; i < 8 && 8 * b + i < airs; ++i)
      if (p.trace_vdata[8 * b + i]) byte |= uint8_t(1u << i);
    w.u8(byte);
  }
  for (const auto& d : p.trace_vdata) {
    if (!d) continue;
    w.usize(d->log_height);
    w.usize(d->cached_commitments.size());
    for (const Digest& c : d->cached_commitments) w.digest(c);
  }
  w.usize(p.public_values.size());
  for (const auto& pvs : p.public_values) {
    w.usize(pvs.size());
    for (Fp v : pvs) w.f(v);
  }
}

// With a vk: the AIR count, cached commitment counts and public value counts are the vk's.
void decode_header(ByteReader& r, Proof& p, const MultiStarkVerifyingKey* vk) {
  r.expect("proof: codec version", kProofCodecVersion);
  p.common_main_commit = r.digest("proof: common_main_commit");
  // An AIR costs a bitmap bit and a public-values length (4 bytes) at least.
  const uint64_t airs = vk ? r.expect("proof: num_airs", vk->per_air.size(), 4) : r.count("proof: num_airs", 4);
  std::vector<uint8_t> bitmap((airs + 7) / 8);
  for (uint64_t b = 0; b < bitmap.size(); ++b) bitmap[b] = r.u8({"proof: presence bitmap byte {}", b});
  if (airs % 8 != 0 && (bitmap.back() >> (airs % 8)) != 0) r.fail("proof: presence bitmap", "padding bits are set");
  p.trace_vdata.assign(airs, std::nullopt);
  for (uint64_t a = 0; a < airs; ++a) {
    if (!(bitmap[a / 8] >> (a % 8) & 1)) continue;
    TraceVData d;
    d.log_height = r.u32({"proof: AIR {} log_height", a});
    if (vk && d.log_height > vk->params.log_stacked_height())
      r.fail({"proof: AIR {} log_height", a},
             fmt::format("{} exceeds l_skip + n_stack = {}", d.log_height, vk->params.log_stacked_height()));
    const uint64_t n = vk ? r.expect({"proof: AIR {} cached_commitments length", a},
                                     vk->per_air[a].params.width.cached_mains.size(), 32)
                          : r.count({"proof: AIR {} cached_commitments length", a}, 32);
    for (uint64_t i = 0; i < n; ++i)
      d.cached_commitments.push_back(r.digest({"proof: AIR {} cached commitment {}", a, i}));
    p.trace_vdata[a] = std::move(d);
  }
  r.expect("proof: public_values length", airs, 4);
  p.public_values.assign(airs, {});
  for (uint64_t a = 0; a < airs; ++a) {
    const uint64_t n = vk ? r.expect({"proof: AIR {} public values length", a},
                                     p.trace_vdata[a] ? vk->per_air[a].params.num_public_values : 0, 4)
                          : r.count({"proof: AIR {} public values length", a}, 4);
    for (uint64_t i = 0; i < n; ++i) p.public_values[a].push_back(r.f({"proof: AIR {} public value {}", a, i}));
  }
}

template <class V>
void part_fields(V& v, Proof& p, const ProofShape* s) {
  gkr_fields(v, p.gkr_proof, s ? &s->gkr : nullptr);
  batch_constraint_fields(v, p.batch_constraint_proof, s ? &s->batch : nullptr);
  stacking_fields(v, p.stacking_proof, s ? &s->stacking : nullptr);
  whir_fields(v, p.whir_proof, s ? &s->whir : nullptr);
}

Proof decode(std::span<const uint8_t> bytes, const MultiStarkVerifyingKey* vk) {
  ByteReader r(bytes);
  Proof p;
  decode_header(r, p, vk);
  std::optional<ProofShape> shape;
  if (vk) {
    std::vector<std::optional<uint32_t>> heights;
    for (const auto& d : p.trace_vdata) heights.push_back(d ? std::optional<uint32_t>(d->log_height) : std::nullopt);
    try {
      shape = proof_shape(*vk, heights);
    } catch (const InputError& e) {
      r.fail("proof: trace heights", e.what());
    }
  }
  ProofDecoder v(r);
  part_fields(v, p, shape ? &*shape : nullptr);
  r.expect_end("proof");
  return p;
}

}  // namespace

uint64_t encoded_size(const Proof& proof) {
  std::vector<uint8_t> header;
  ByteWriter w(header);
  encode_header(proof, w);
  ProofSizer z;
  part_fields(z, const_cast<Proof&>(proof), nullptr);  // the sizer only reads
  return header.size() + z.bytes();
}

void encode_append(const Proof& proof, std::vector<uint8_t>& out) {
  ByteWriter w(out);
  encode_header(proof, w);
  ProofEncoder v(out);
  part_fields(v, const_cast<Proof&>(proof), nullptr);  // the encoder only reads
}

std::vector<uint8_t> encode(const Proof& proof) {
  std::vector<uint8_t> out;
  out.reserve(encoded_size(proof));  // one allocation
  encode_append(proof, out);
  return out;
}

Proof decode_proof(std::span<const uint8_t> bytes) { return decode(bytes, nullptr); }

Proof decode_proof(std::span<const uint8_t> bytes, const MultiStarkVerifyingKey& vk) { return decode(bytes, &vk); }

ProofPartSizes proof_part_sizes(const Proof& proof) {
  Proof& p = const_cast<Proof&>(proof);  // the encoder only reads
  std::vector<uint8_t> out;
  ByteWriter w(out);
  encode_header(proof, w);
  ProofPartSizes sizes;
  sizes.header = out.size();
  ProofEncoder v(out);
  auto part = [&](uint64_t& size, auto&& encode_part) {
    const size_t before = out.size();
    encode_part();
    size = out.size() - before;
  };
  part(sizes.gkr, [&] { gkr_fields(v, p.gkr_proof, nullptr); });
  part(sizes.batch_constraint, [&] { batch_constraint_fields(v, p.batch_constraint_proof, nullptr); });
  part(sizes.stacking, [&] { stacking_fields(v, p.stacking_proof, nullptr); });
  part(sizes.whir, [&] { whir_fields(v, p.whir_proof, nullptr); });
  return sizes;
}

std::string proof_shape_problem(const Proof& proof, const ProofShape& shape) {
  ProofShapeCheck v;
  part_fields(v, const_cast<Proof&>(proof), &shape);  // the check only reads
  return v.problem();
}

}  // namespace vkstark
