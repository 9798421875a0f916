#include "product/proof_file.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "stages/encoding/codec.hpp"

namespace vkstark {

namespace {

// "" when the name may go into a proof file, else what is wrong with it.
std::string name_problem(std::string_view name) {
  if (name.empty()) return "empty";
  if (name.size() > kProofFileMaxNameBytes)
    return fmt::format("{} bytes, at most {}", name.size(), kProofFileMaxNameBytes);
  for (size_t i = 0; i < name.size(); ++i)
    if (name[i] < 0x20 || name[i] > 0x7e) return fmt::format("byte {} is not printable ASCII", i);
  return "";
}

void put_bytes(ByteWriter& w, std::vector<uint8_t>& out, std::span<const uint8_t> bytes, const char* what) {
  if (bytes.size() > UINT32_MAX)
    throw InputError(fmt::format("proof file: {} of {} bytes does not fit", what, bytes.size()));
  w.u32(uint32_t(bytes.size()));
  out.insert(out.end(), bytes.begin(), bytes.end());
}

}  // namespace

std::vector<uint8_t> proof_file_head(std::span<const std::string> air_names, const MultiStarkVerifyingKey& vk) {
  if (air_names.size() != vk.per_air.size())
    throw InputError(
        fmt::format("proof file: {} AIR names for a verifying key of {} AIRs", air_names.size(), vk.per_air.size()));
  std::vector<uint8_t> out(kProofFileMagic.begin(), kProofFileMagic.end());
  ByteWriter w(out);
  w.u32(kProofFileVersion);
  w.u32(uint32_t(air_names.size()));
  for (size_t a = 0; a < air_names.size(); ++a) {
    const std::string& name = air_names[a];
    if (std::string p = name_problem(name); !p.empty())
      throw InputError(fmt::format("proof file: AIR {} name '{}': {}", a, name, p));
    put_bytes(w, out, std::span(reinterpret_cast<const uint8_t*>(name.data()), name.size()), "a name");
  }
  put_bytes(w, out, encode_vk_postcard(vk), "the verifying key");
  return out;
}

std::vector<uint8_t> encode_proof_file(const ProofFile& file) {
  std::vector<uint8_t> out = proof_file_head(file.air_names, file.vk);
  ByteWriter w(out);
  put_bytes(w, out, file.proof, "the proof");
  return out;
}

EncodedProofFile encode_proof_file(std::span<const uint8_t> head, const Proof& proof) {
  const uint64_t n = encoded_size(proof);
  EncodedProofFile f;
  f.bytes.reserve(head.size() + 4 + n);
  f.bytes.assign(head.begin(), head.end());
  ByteWriter w(f.bytes);
  w.usize(n);  // the proof's length (InputError where it does not fit a u32)
  f.proof_at = f.bytes.size();
  encode_append(proof, f.bytes);
  if (f.bytes.size() - f.proof_at != n)  // the sizer and the encoder walk the same field lists
    throw std::logic_error(
        fmt::format("proof file: the proof encoded to {} bytes, its size said {}", f.bytes.size() - f.proof_at, n));
  return f;
}

ProofFile decode_proof_file(std::span<const uint8_t> bytes) {
  ByteReader r(bytes);
  if (bytes.size() < kProofFileMagic.size() ||
      !std::equal(kProofFileMagic.begin(), kProofFileMagic.end(), bytes.begin()))
    r.fail("proof file: magic",
           fmt::format("the file does not start with \"{}\": not a vkstark proof file", kProofFileMagic));
  for (size_t i = 0; i < kProofFileMagic.size(); ++i) r.u8("proof file: magic");
  const uint32_t version = r.u32("proof file: format version");
  if (version != kProofFileVersion)
    r.fail("proof file: format version", fmt::format("{}, this build reads version {}", version, kProofFileVersion));

  ProofFile file;
  const uint64_t airs = r.count("proof file: AIR count", 5);  // a length and one byte at least
  for (uint64_t a = 0; a < airs; ++a) {
    const uint32_t n = r.u32({"proof file: AIR {} name length", a});
    if (n == 0 || n > kProofFileMaxNameBytes)
      r.fail({"proof file: AIR {} name length", a}, fmt::format("{}, expected 1 to {}", n, kProofFileMaxNameBytes));
    const auto raw = r.bytes(n, {"proof file: AIR {} name", a});
    std::string name(raw.begin(), raw.end());
    if (std::string p = name_problem(name); !p.empty()) r.fail({"proof file: AIR {} name", a}, p);
    file.air_names.push_back(std::move(name));
  }

  const uint32_t vk_len = r.u32("proof file: verifying key length");
  file.vk = decode_vk_postcard(r.bytes(vk_len, "proof file: verifying key"));  // DecodeError "verifying key: ..."
  if (file.vk.per_air.size() != airs)
    r.fail("proof file: AIR count",
           fmt::format("{} names for a verifying key of {} AIRs", airs, file.vk.per_air.size()));

  const uint32_t proof_len = r.u32("proof file: proof length");
  const auto proof = r.bytes(proof_len, "proof file: proof");
  file.proof.assign(proof.begin(), proof.end());
  r.expect_end("proof file: end");
  return file;
}

}  // namespace vkstark
