// The proof file of the vkstark command (product/proof_file.hpp): a round trip keeps the names, the
// verifying key and the proof bytes; every truncation, a foreign magic, another version, a name
// that is not printable ASCII, a name count other than the key's AIR count and trailing bytes are
// refused with a DecodeError naming the field; no single changed byte crashes the decoder. Also the
// proof's part sizes (stages/proof/proof.hpp), which vkstark info prints: they add up to the encoding.
#include <gtest/gtest.h>

#include "executors/executors.hpp"
#include "product/airs/fibonacci.hpp"
#include "product/proof_file.hpp"
#include "stages/air/keygen.hpp"
#include "stages/proof/proof.hpp"
#include "stages/prover.hpp"
#include "stages/verifier.hpp"

using namespace vkstark;

namespace {

struct Fixture {
  ProvingKey pk;
  Proof proof;
  ProofFile file;
};

const Fixture& fixture() {
  static const Fixture f = [] {
    Fixture x;
    auto exec = make_executor("cpu");
    auto air = std::make_shared<FibonacciAir>();
    const std::vector<std::shared_ptr<const Air>> airs{air};
    x.pk = keygen(airs, test_system_params_small(2, 8, 3), *exec);
    const FibonacciTrace fib = fibonacci_trace(Fp(), Fp::one(), 64);
    AirWithTraces t;
    t.air = air;
    t.common = fib.main;
    t.public_values = fib.public_values;
    StarkProver prover(x.pk, *exec);
    x.proof = prover.prove({std::optional<AirWithTraces>(std::move(t))});
    x.file.air_names = {air->name()};
    x.file.vk = x.pk.vk;
    x.file.proof = encode(x.proof);
    return x;
  }();
  return f;
}

// The DecodeError message of decoding `bytes`; "" when they decode.
std::string decode_error(const std::vector<uint8_t>& bytes) {
  try {
    (void)decode_proof_file(bytes);
  } catch (const DecodeError& e) {
    return e.what();
  }
  return "";
}

void expect_error(const std::vector<uint8_t>& bytes, const std::string& what) {
  const std::string e = decode_error(bytes);
  EXPECT_NE(e.find(what), std::string::npos) << "error: '" << e << "', expected '" << what << "'";
}

}  // namespace

TEST(ProofFile, RoundTripKeepsEverything) {
  const ProofFile& f = fixture().file;
  const std::vector<uint8_t> bytes = encode_proof_file(f);
  const ProofFile back = decode_proof_file(bytes);
  EXPECT_EQ(back, f);
  EXPECT_EQ(back.vk.pre_hash, f.vk.pre_hash);
  EXPECT_EQ(encode_proof_file(back), bytes);
  EXPECT_TRUE(verify_bytes(back.vk, back.proof).ok);
}

// A batch's way: the bytes before the proof made once, each proof encoded after them in place.
TEST(ProofFile, TheHeadAndAProofGiveTheSameBytes) {
  const Fixture& x = fixture();
  const std::vector<uint8_t> head = proof_file_head(x.file.air_names, x.file.vk);
  const EncodedProofFile e = encode_proof_file(head, x.proof);
  EXPECT_EQ(e.bytes, encode_proof_file(x.file));
  EXPECT_EQ(std::vector<uint8_t>(e.proof().begin(), e.proof().end()), x.file.proof);
  EXPECT_EQ(encoded_size(x.proof), x.file.proof.size());
  EXPECT_TRUE(verify_bytes(x.pk.vk, e.proof()).ok);
  EXPECT_THROW((void)proof_file_head({}, x.file.vk), InputError);  // no names for the key's AIR
}

TEST(ProofFile, EveryTruncationIsRefused) {
  const std::vector<uint8_t> bytes = encode_proof_file(fixture().file);
  for (size_t n = 0; n < bytes.size(); ++n) {
    const std::vector<uint8_t> cut(bytes.begin(), bytes.begin() + n);
    EXPECT_NE(decode_error(cut), "") << "decoded with " << n << " of " << bytes.size() << " bytes";
  }
}

TEST(ProofFile, TrailingBytesAreRefused) {
  std::vector<uint8_t> bytes = encode_proof_file(fixture().file);
  bytes.push_back(0);
  expect_error(bytes, "proof file: end");
}

TEST(ProofFile, ForeignFilesAndOtherVersionsAreNamed) {
  std::vector<uint8_t> bytes = encode_proof_file(fixture().file);
  std::vector<uint8_t> other = bytes;
  other[0] = 'V';
  expect_error(other, "not a vkstark proof file");
  expect_error(encode_vk_file(fixture().pk.vk), "not a vkstark proof file");
  expect_error({}, "not a vkstark proof file");
  other = bytes;
  other[kProofFileMagic.size()] = 2;  // version 2
  expect_error(other, "proof file: format version: 2, this build reads version 1");
}

TEST(ProofFile, NamesAreCheckedBothWays) {
  ProofFile f = fixture().file;
  f.air_names = {"fib", "extra"};
  EXPECT_THROW((void)encode_proof_file(f), InputError);
  f.air_names = {"bad\x1b[31mname"};
  EXPECT_THROW((void)encode_proof_file(f), InputError);
  f.air_names = {""};
  EXPECT_THROW((void)encode_proof_file(f), InputError);
  f.air_names = {std::string(kProofFileMaxNameBytes + 1, 'a')};
  EXPECT_THROW((void)encode_proof_file(f), InputError);

  // An escape byte in a stored name.
  f.air_names = {"fibonacci"};
  std::vector<uint8_t> bytes = encode_proof_file(f);
  const size_t name_at = kProofFileMagic.size() + 4 + 4 + 4;  // magic, version, count, length
  ASSERT_EQ(bytes[name_at], 'f');
  bytes[name_at] = 0x1b;
  expect_error(bytes, "proof file: AIR 0 name: byte 0 is not printable ASCII");
  // A name count the key does not have: the count says 2, then the key's bytes read as a name.
  bytes = encode_proof_file(f);
  bytes[kProofFileMagic.size() + 4] = 2;
  EXPECT_NE(decode_error(bytes), "");
}

TEST(ProofFile, NoChangedByteCrashes) {
  const std::vector<uint8_t> bytes = encode_proof_file(fixture().file);
  const size_t header = bytes.size() - fixture().file.proof.size();  // everything before the proof
  size_t refused = 0;
  for (size_t i = 0; i < header; ++i) {
    std::vector<uint8_t> b = bytes;
    b[i] ^= 0x5a;
    if (!decode_error(b).empty())
      ++refused;
    else
      EXPECT_NE(decode_proof_file(b), fixture().file) << "byte " << i;
  }
  EXPECT_GT(refused, header / 2);
}

TEST(ProofPartSizes, AddUpToTheEncoding) {
  const Proof& p = fixture().proof;
  const ProofPartSizes s = proof_part_sizes(p);
  EXPECT_EQ(s.total(), encode(p).size());
  EXPECT_GT(s.header, 0u);
  EXPECT_GT(s.gkr, 0u);
  EXPECT_GT(s.batch_constraint, 0u);
  EXPECT_GT(s.stacking, 0u);
  EXPECT_GT(s.whir, s.stacking);
}
