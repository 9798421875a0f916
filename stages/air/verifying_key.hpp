// The verifying key (protocol.md 4.4-4.6): per-AIR StarkVerifyingKey, the trace-height linear
// constraints, the postcard encoding of MultiStarkVerifyingKey0 and the pre-hash that starts every
// transcript; a bounded decoder that validates everything, and the vk file format.
//
//   std::vector<uint8_t> file = encode_vk_file(pk.vk);   // "vkstark-vk", u32 version, postcard
//   MultiStarkVerifyingKey vk = decode_vk_file(file);    // DecodeError naming the field
//
// The postcard bytes are those of the reference's MultiStarkVerifyingKey0 (params, per_air,
// trace_height_constraints: this struct without pre_hash), field by field as 4.6 lists them, so the
// pre-hash matches the reference's for the same AIRs. Decoding accepts only what keygen can produce
// (canonical varints, children before parents, unused_variables and trace_height_constraints equal
// to what they are computed from, ...), so decode(bytes) re-encodes to the same bytes and its
// pre_hash is recomputed, never read.
//
// Value types; the functions are pure. Thread-compatible.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "kernels/hash/hash.hpp"
#include "stages/air/air.hpp"
#include "stages/air/dag.hpp"
#include "stages/common/params.hpp"

namespace vkstark {

// VerifierSinglePreprocessedData: the preprocessed trace's own commitment (stacked_commit of it
// alone, protocol.md 4.4).
struct PreprocessedVerifierData {
  Digest commit{};
  int64_t hypercube_dim = 0;    // log_height - l_skip; negative for traces shorter than 2^l_skip
  uint32_t stacking_width = 0;  // stacked columns of that commitment
  bool operator==(const PreprocessedVerifierData&) const = default;
};

// TraceWidth. common_main is the last main part (part_index = cached_mains.size()).
struct TraceWidth {
  std::optional<uint32_t> preprocessed;
  std::vector<uint32_t> cached_mains;
  uint32_t common_main = 0;
  bool operator==(const TraceWidth&) const = default;
};

struct StarkVerifyingParams {
  TraceWidth width;
  uint32_t num_public_values = 0;
  bool need_rot = false;  // some variable node reads the next row
  bool operator==(const StarkVerifyingParams&) const = default;
  // The AirShape these widths describe.
  AirShape shape() const;
};

struct StarkVerifyingKey {
  std::optional<PreprocessedVerifierData> preprocessed_data;
  StarkVerifyingParams params;
  SymbolicDag symbolic_constraints;  // nodes, constraint_idx, interactions
  uint8_t max_constraint_degree = 0;
  bool is_required = false;                // keygen registers every AIR as optional
  std::vector<Variable> unused_variables;  // find_unused_variables' order
  bool operator==(const StarkVerifyingKey&) const = default;

  AirShape shape() const { return params.shape(); }
};

// sum_{present AIRs} 2^max(log_height, l_skip) * coefficients[air] < threshold (protocol.md 4.5).
struct LinearConstraint {
  std::vector<uint32_t> coefficients;  // one per AIR
  uint32_t threshold = 0;
  bool operator==(const LinearConstraint&) const = default;
  // Whenever `other` holds, this one holds: threshold >= other's, every coefficient <= other's.
  bool is_implied_by(const LinearConstraint& other) const;
};

struct MultiStarkVerifyingKey {
  SystemParams params;
  std::vector<StarkVerifyingKey> per_air;
  std::vector<LinearConstraint> trace_height_constraints;
  Digest pre_hash{};  // vk_pre_hash(encode_vk_postcard(*this))
  bool operator==(const MultiStarkVerifyingKey&) const = default;
};

// find_unused_vars (protocol.md 4.4): every trace variable no DAG node references (live or not):
// preprocessed columns, then main parts in part_index order; column ascending; offset 0, then
// offset 1 when need_rot.
std::vector<Variable> find_unused_variables(const SymbolicDag& dag, const TraceWidth& width, bool need_rot);

// The per-bus constraints (bus ascending; sum of count_weight, threshold p) and the global one
// (interaction counts, threshold logup.max_interaction_count), minimised (protocol.md 4.5).
// InputError naming the bus when a coefficient does not fit a u32.
std::vector<LinearConstraint> compute_trace_height_constraints(std::span<const StarkVerifyingKey> per_air,
                                                               const SystemParams& params);

// Postcard bytes of MultiStarkVerifyingKey0 (protocol.md 4.6). InputError if a count does not fit.
std::vector<uint8_t> encode_vk_postcard(const MultiStarkVerifyingKey& vk);
// hash_slice(u32_le(3) || u64_le(len) || vk_bytes), one field element per byte.
inline constexpr uint32_t kVkPreHashCodecVersion = 3;  // the reference's CODEC_VERSION
Digest vk_pre_hash(std::span<const uint8_t> vk_bytes);
// The inverse of encode_vk_postcard, for exactly these bytes (no trailing bytes); computes
// pre_hash. DecodeError ("verifying key: air 2 node 17: left child 40 is not below 17").
MultiStarkVerifyingKey decode_vk_postcard(std::span<const uint8_t> bytes);

// The vk file: the magic "vkstark-vk", u32 little-endian format version, the postcard bytes.
inline constexpr std::string_view kVkFileMagic = "vkstark-vk";
inline constexpr uint32_t kVkFileVersion = 1;
std::vector<uint8_t> encode_vk_file(const MultiStarkVerifyingKey& vk);
MultiStarkVerifyingKey decode_vk_file(std::span<const uint8_t> bytes);

}  // namespace vkstark
