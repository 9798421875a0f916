// The proof file of the `vkstark` command (docs/decisions.md, "The vkstark command and its proof
// file"): a proof with what its verifier needs besides it, versioned.
//
//   "vkstark-proof"            13 bytes of magic
//   u32 format version         kProofFileVersion
//   u32 AIR count, then per AIR: u32 name length, the name (printable ASCII, at most 128 bytes)
//   u32 length, the verifying key's postcard bytes (protocol.md 4.6: the params and every AIR)
//   u32 length, the proof's bytes (protocol.md 12.2)
//
// All integers little-endian; nothing may follow. The names are for people (vkstark info); the
// verifier binds the verifying key through its pre-hash, which starts the transcript, so a proof
// verifies only against the key it was made with. A verifier that trusts a key of its own compares
// its pre-hash with the file's (vkstark verify --vk).
//
// Value types; the functions are pure. Thread-compatible.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "stages/air/verifying_key.hpp"
#include "stages/proof/proof.hpp"

namespace vkstark {

inline constexpr std::string_view kProofFileMagic = "vkstark-proof";
inline constexpr uint32_t kProofFileVersion = 1;
inline constexpr uint32_t kProofFileMaxNameBytes = 128;

struct ProofFile {
  std::vector<std::string> air_names;  // one per AIR of the verifying key, its order
  MultiStarkVerifyingKey vk;
  std::vector<uint8_t> proof;  // encode(Proof), not decoded here
  bool operator==(const ProofFile&) const = default;
};

// InputError for names that do not match the key's AIRs (count, length, characters).
std::vector<uint8_t> encode_proof_file(const ProofFile& file);

// A proof file in two steps, for many proofs under one key (a batch): the bytes before the proof
// (magic, version, names, the key's postcard bytes), made once; then each proof encoded straight
// after a copy of them. The same bytes as encode_proof_file; InputError as it.
std::vector<uint8_t> proof_file_head(std::span<const std::string> air_names, const MultiStarkVerifyingKey& vk);
struct EncodedProofFile {
  std::vector<uint8_t> bytes;  // the whole file
  size_t proof_at = 0;         // where the proof's bytes begin (they run to the end)
  std::span<const uint8_t> proof() const { return std::span(bytes).subspan(proof_at); }
};
EncodedProofFile encode_proof_file(std::span<const uint8_t> head, const Proof& proof);

// DecodeError naming the field: another file ("not a vkstark proof file"), another version, a
// truncated file, a bad name, a verifying key that does not decode (its own message), a name
// count that differs from the key's AIR count, trailing bytes. Allocates at most a small multiple
// of the input's size.
ProofFile decode_proof_file(std::span<const uint8_t> bytes);

}  // namespace vkstark
