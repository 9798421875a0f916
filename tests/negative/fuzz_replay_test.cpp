// The committed fuzz inputs, replayed without clang (README, Fuzzing): every file under
// tests/fuzz_corpus/<target>/ and tests/fuzz_regressions/<target>/ goes through the checks its
// libFuzzer target runs (fuzz/checks.hpp: canonical decoding, a verifier accepting the seed proof
// and nothing else and rejecting with a code of its phases, no exception but DecodeError from a
// decoder); the seeds must be accepted, one per shape and target, and claims.inc must match the
// shapes.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>

#include "fuzz/checks.hpp"

using namespace vkstark;
namespace fs = std::filesystem;

namespace {

const fs::path kTests = fs::path(VKSTARK_SOURCE_DIR) / "tests";

std::vector<uint8_t> read_file(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

std::vector<fs::path> files_in(const fs::path& dir) {
  std::vector<fs::path> out;
  if (fs::is_directory(dir))
    for (const auto& e : fs::directory_iterator(dir))
      if (e.is_regular_file()) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

using Check = fuzz::FuzzOutcome (*)(std::span<const uint8_t>);
struct Target {
  const char* name;
  Check check;
  size_t (*seeds)();  // one seed per shape or fixture
  // The phase of the last rejection for a seed with a bit of its end flipped (a value of WHIR's
  // final polynomial, which the transcript observes before the last round's proof of work and
  // queries: which WHIR check fails first depends on the seed), and the code for a byte appended.
  // None: no verifier rejects, the decoder alone does.
  RejectPhase flipped = RejectPhase::None;
  RejectCode trailing = {};
};
size_t shape_count() { return fuzz::fuzz_shapes().size(); }
size_t stark_fixture_count() { return fuzz::stark_fuzz_fixtures().size(); }
const Target kTargets[] = {
    {"pcs_proof", fuzz::check_pcs_proof_input, shape_count, RejectPhase::Whir, DecodeReject::TrailingBytes},
    {"whir_proof", fuzz::check_whir_proof_input, shape_count, RejectPhase::Whir},
    {"stark_proof", fuzz::check_stark_proof_input, stark_fixture_count, RejectPhase::Whir, DecodeReject::TrailingBytes},
    {"vk_file", fuzz::check_vk_file_input, stark_fixture_count},
    {"proof_file", fuzz::check_proof_file_input, stark_fixture_count, RejectPhase::Whir}};
// Decoders without a verifier: "accepted" is "decoded", so a mutated seed may be accepted.
size_t batch_input_kinds() { return 3; }  // a trace file, a manifest, a proving input
size_t vk_air_kinds() { return 1; }       // the selector only sets the debug check's trace heights
size_t spirv_kinds() { return 1; }        // the selector only sets the workgroup size
const Target kDecoderTargets[] = {{"batch_inputs", fuzz::check_batch_input, batch_input_kinds},
                                  {"vk_air", fuzz::check_vk_air_input, vk_air_kinds},
                                  {"spirv", fuzz::check_spirv_input, spirv_kinds}};

}  // namespace

TEST(FuzzReplay, ClaimsMatchTheShapes) {
  const auto& shapes = fuzz::fuzz_shapes();  // aborts on a mismatch of names or count
  ASSERT_EQ(shapes.size(), fuzz::fuzz_shape_list().size());
  for (const fuzz::FuzzShape& s : shapes) {
    EXPECT_EQ(s.claim.roots.size(), s.traces.size()) << s.name;
    EXPECT_NO_THROW(s.params.validate()) << s.name;
  }
}

TEST(FuzzReplay, EverySeedIsAcceptedWithoutViolation) {
  for (const Target& t : kTargets) {
    std::set<uint8_t> selectors;
    for (const fs::path& p : files_in(kTests / "fuzz_corpus" / t.name)) {
      const std::vector<uint8_t> bytes = read_file(p);
      ASSERT_FALSE(bytes.empty()) << p;
      selectors.insert(bytes[0]);
      const fuzz::FuzzOutcome o = t.check(bytes);
      EXPECT_EQ(o.violation, "") << p;
      EXPECT_TRUE(o.accepted) << p << " is not a valid proof (regenerate with fuzz_make_corpus)";
    }
    EXPECT_EQ(selectors.size(), t.seeds()) << t.name << ": one seed per shape";
  }
}

TEST(FuzzReplay, DecoderSeedsAreAcceptedWithoutViolation) {
  for (const Target& t : kDecoderTargets) {
    std::set<uint8_t> kinds;
    for (const fs::path& p : files_in(kTests / "fuzz_corpus" / t.name)) {
      const std::vector<uint8_t> bytes = read_file(p);
      ASSERT_FALSE(bytes.empty()) << p;
      kinds.insert(uint8_t(bytes[0] % t.seeds()));
      const fuzz::FuzzOutcome o = t.check(bytes);
      EXPECT_EQ(o.violation, "") << p;
      EXPECT_TRUE(o.accepted) << p << " does not decode (regenerate with fuzz_make_corpus)";
      // Truncated by one byte: never a violation (a manifest may still parse).
      EXPECT_EQ(t.check(std::span(bytes).first(bytes.size() - 1)).violation, "") << p;
    }
    EXPECT_EQ(kinds.size(), t.seeds()) << t.name << ": one seed per input kind";
  }
}

TEST(FuzzReplay, RegressionInputsRunWithoutViolation) {
  for (const Target& t : kDecoderTargets)
    for (const fs::path& p : files_in(kTests / "fuzz_regressions" / t.name))
      EXPECT_EQ(t.check(read_file(p)).violation, "") << p;
  for (const Target& t : kTargets)
    for (const fs::path& p : files_in(kTests / "fuzz_regressions" / t.name)) {
      const fuzz::FuzzOutcome o = t.check(read_file(p));
      EXPECT_EQ(o.violation, "") << p;
    }
}

// The checks themselves: a seed with one bit flipped, or a byte appended, is rejected, with the
// code of the check that sees the change.
TEST(FuzzReplay, AMutatedSeedIsRejected) {
  for (const Target& t : kTargets)
    for (const fs::path& p : files_in(kTests / "fuzz_corpus" / t.name)) {
      std::vector<uint8_t> bytes = read_file(p);
      bytes[bytes.size() - 5] ^= 1;  // in a proof's final polynomial, or a key's last fields
      const fuzz::FuzzOutcome o = t.check(bytes);
      EXPECT_FALSE(o.accepted) << p;
      EXPECT_EQ(o.violation, "") << p;
      EXPECT_EQ(o.rejected.phase, t.flipped) << p << ": " << o.rejected;
      bytes.push_back(0);  // trailing bytes
      EXPECT_FALSE(t.check(bytes).accepted) << p;
      std::vector<uint8_t> longer = read_file(p);
      longer.push_back(0);
      const fuzz::FuzzOutcome l = t.check(longer);
      EXPECT_FALSE(l.accepted) << p;
      EXPECT_EQ(l.violation, "") << p;
      EXPECT_EQ(l.rejected, t.trailing) << p;
    }
}
