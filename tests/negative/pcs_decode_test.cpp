// Decoding hostile bytes as a PCS proof (protocol.md 12.2, issue 8 findings 1 and 2):
// - a count is checked against the bytes left (and the params' shape where given), without overflow,
//   before anything is allocated: crafted inputs with a huge num_commits, zero-width rows or a
//   row count whose byte size overflows 64 bits fail fast, with a few KiB allocated, naming the field;
// - one canonical encoding: bytes a decoder accepts are encode() of what it returns (checked over
//   valid proofs and thousands of random mutations of them), so a mutation is never accepted as the
//   same proof, and the verifier rejects every one; first_merkle_depth is 0 with one WHIR round.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <new>
#include <optional>
#include <random>

#include "executors/cpu/cpu_executor.hpp"
#include "stages/encoding/codec.hpp"
#include "stages/opening/opening.hpp"
#include "tests/parity/executor_fixture.hpp"

// Counts the bytes allocated while `g_counting` is set: a decode's memory, bounded by its input.
// Not under AddressSanitizer, which owns operator new (and itself refuses absurd allocations).
namespace {
std::atomic<bool> g_counting{false};
std::atomic<uint64_t> g_allocated{0};
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kCountsAllocations = false;
#else
constexpr bool kCountsAllocations = true;
#endif
}  // namespace

#if !defined(__SANITIZE_ADDRESS__)
// GCC takes the replaced operators' malloc/free for a mismatch with new/delete once inlined.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void* operator new(std::size_t n) {
  if (g_counting.load(std::memory_order_relaxed)) g_allocated.fetch_add(n, std::memory_order_relaxed);
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
#pragma GCC diagnostic pop
#endif

using namespace vkstark;

namespace {

struct Fixture {
  SystemParams params;
  PcsProof proof;
  std::vector<uint32_t> widths;
  std::vector<uint8_t> bytes;
  PcsClaim claim;
};

// One commitment per entry of `sets`, each a list of (width, log_height) traces in sorted order.
Fixture prove(const SystemParams& params, const std::vector<std::vector<std::pair<uint32_t, uint32_t>>>& sets) {
  Fixture f;
  f.params = params;
  auto exec = make_cpu_executor();
  const uint32_t log_n = params.log_stacked_height() + params.log_blowup;
  prepare_ntt_twiddles(*exec, log_n);
  Graph g;
  Ntt ntt(g, log_n);
  std::vector<std::vector<TraceView>> views;
  std::vector<Buffer<Fp>> inputs;
  for (size_t c = 0; c < sets.size(); ++c) {
    views.emplace_back();
    for (size_t i = 0; i < sets[c].size(); ++i) {
      auto [width, log_height] = sets[c][i];
      inputs.push_back(g.input<Fp>(fmt::format("t{}.{}", c, i), uint64_t(width) << log_height));
      views.back().push_back({inputs.back(), width, log_height});
    }
  }
  PcsProofGraph pg = build_pcs_proof(g, ntt, views, params);
  auto p = exec->prepare(compile(g));
  for (size_t i = 0; i < inputs.size(); ++i)
    p->upload(inputs[i], vkstark::testing::field_values(inputs[i].count(), 7 + i));
  Trace t;
  p->run(t);
  f.proof = pg.decode(p->download(pg.layout.buffer()));
  for (const auto& c : pg.commitments) f.widths.push_back(c.layout.stacked_width());
  f.bytes = encode(f.proof);
  f.claim = {f.proof.roots, f.widths, f.proof.openings};
  return f;
}

// 4 WHIR rounds of k = 2 (8 variables), two commitments.
const Fixture& four_rounds() {
  static const Fixture f = prove(test_system_params_small(2, 6, 2), {{{3, 8}, {2, 1}}, {{1, 7}}});
  return f;
}
// A single WHIR round (k = 4 folds 4 of the 5 variables), one commitment.
const Fixture& one_round() {
  static const Fixture f = prove(test_system_params_small(2, 3, 4), {{{2, 5}, {1, 3}}});
  return f;
}

// Offsets into an encoded PcsProof (protocol.md 12.2 with the PcsProof framing of opening.hpp).
size_t num_commits_offset(const PcsProof& p) {
  const size_t R = p.whir.query_phase_pow_witnesses.size(), n_sc = p.whir.sumcheck_polys.size();
  return 12 + 32 * p.roots.size() + 16 * p.point.size() + 16 * p.openings.size() + 4 + 4 + 32 * n_sc + 4 +
         48 * (R - 1) + 4 * n_sc + 4 * R;
}
// first_merkle_depth comes before all codeword paths, which the final polynomial follows.
size_t codeword_paths_offset(const PcsProof& p) {
  size_t digests = 0;
  for (const auto& round : p.whir.codeword_merkle_proofs)
    for (const auto& path : round) digests += path.size();
  return encode(p).size() - 4 - 16 * p.whir.final_poly.size() - 32 * digests;
}
size_t first_merkle_depth_offset(const PcsProof& p) { return codeword_paths_offset(p) - 4; }

void put_u32(std::vector<uint8_t>& b, size_t at, uint32_t v) {
  for (int i = 0; i < 4; ++i) b[at + i] = static_cast<uint8_t>(v >> (8 * i));
}
uint32_t get_u32(const std::vector<uint8_t>& b, size_t at) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= uint32_t(b[at + i]) << (8 * i);
  return v;
}

// A shape-free PcsProof prefix: no roots, no point, no openings, then the WHIR proof up to
// num_commits for R rounds of k (zero values).
std::vector<uint8_t> crafted_prefix(uint32_t R, uint32_t k) {
  std::vector<uint8_t> out;
  ByteWriter w(out);
  for (int i = 0; i < 3; ++i) w.usize(0);
  w.f(Fp::zero());
  w.usize(R * k);
  for (uint32_t i = 0; i < 2 * R * k; ++i) w.ef(Fp4());
  w.usize(R - 1);
  for (uint32_t i = 0; i + 1 < R; ++i) w.digest(Digest{});
  for (uint32_t i = 0; i + 1 < R; ++i) w.ef(Fp4());
  for (uint32_t i = 0; i < R * k + R; ++i) w.f(Fp::zero());
  return out;
}

struct Outcome {
  std::string error;  // empty: accepted
  double ms = 0;
  uint64_t allocated = 0;
};
// Decodes without a shape, timing it and counting the bytes it allocates.
Outcome decode_measured(const std::vector<uint8_t>& bytes) {
  Outcome o;
  const auto start = std::chrono::steady_clock::now();
  g_allocated = 0;
  g_counting = true;
  try {
    (void)decode_pcs_proof(bytes);
  } catch (const DecodeError& e) {
    o.error = e.what();
  }
  g_counting = false;
  o.allocated = g_allocated;
  o.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return o;
}

void expect_fast_bounded_rejection(const std::vector<uint8_t>& bytes, const std::string& field) {
  Outcome o = decode_measured(bytes);
  EXPECT_NE(o.error.find(field), std::string::npos) << "error: " << o.error;
  EXPECT_LT(o.ms, 1000.0);
  if (kCountsAllocations) {
    EXPECT_LT(o.allocated, 64u << 10) << o.error;
  }
  // Verifying the bytes as a proof of a real shape: a rejection by the decoder, never an exception.
  VerifyResult v = verify_pcs_proof_bytes(four_rounds().claim, bytes, four_rounds().params);
  EXPECT_FALSE(v.ok);
  EXPECT_TRUE(v.in(RejectPhase::Decode)) << v.code << ": " << v.reason;
}

}  // namespace

TEST(PcsDecode, HugeNumCommitsIsRejectedBeforeAllocating) {
  std::vector<uint8_t> b = crafted_prefix(1, 2);
  ByteWriter w(b);
  w.usize(0xFFFFFFFF);  // num_commits
  w.usize(10);          // initial_num_queries
  b.resize(384);
  expect_fast_bounded_rejection(b, "WHIR proof: num_commits: 4294967295 items of 4 bytes");

  // In a valid proof, against the params' shape too.
  const Fixture& f = four_rounds();
  std::vector<uint8_t> bytes = f.bytes;
  const size_t at = num_commits_offset(f.proof);
  ASSERT_EQ(get_u32(bytes, at), 2u);
  put_u32(bytes, at, 0xFFFFFFFF);
  expect_fast_bounded_rejection(bytes, "WHIR proof: num_commits");
  try {
    (void)decode_pcs_proof(bytes, f.params, f.widths);
    FAIL();
  } catch (const DecodeError& e) {
    EXPECT_NE(std::string(e.what()).find("WHIR proof: num_commits: 4294967295, expected 2"), std::string::npos)
        << e.what();
  }
}

TEST(PcsDecode, ZeroWidthRowsAreRejected) {
  std::vector<uint8_t> b = crafted_prefix(1, 2);
  ByteWriter w(b);
  w.usize(1);           // num_commits
  w.usize(0xFFFFFFFF);  // initial_num_queries: 2^32 - 1 empty rows would cost no byte
  w.usize(0);           // Merkle depth
  w.usize(0);           // width
  expect_fast_bounded_rejection(b, "WHIR proof: width of commitment 0: 0");
}

TEST(PcsDecode, RoundsWithoutQueriesAreRejected) {
  std::vector<uint8_t> b = crafted_prefix(1, 2);
  ByteWriter w(b);
  w.usize(3);  // num_commits
  w.usize(0);  // initial_num_queries
  b.resize(b.size() + 64);
  expect_fast_bounded_rejection(b, "WHIR proof: initial_num_queries: 0");
}

TEST(PcsDecode, RowCountsWhoseByteSizeOverflowsAreRejected) {
  // The review's input: k = 30, 2^31 queries of width 8 (2^31 * 2^30 * 8 * 4 bytes wraps to 0).
  {
    std::vector<uint8_t> b = crafted_prefix(1, 30);
    ByteWriter w(b);
    for (uint32_t v : {1u, 1u << 31, 1u, 8u}) w.usize(v);
    expect_fast_bounded_rejection(b, "WHIR proof: whir_sumcheck_polys length: 30 sumcheck rounds");
  }
  // The largest k supported params allow, and a width that makes the product overflow 64 bits.
  {
    std::vector<uint8_t> b = crafted_prefix(1, 24);
    ByteWriter w(b);
    for (uint32_t v : {1u, 1u << 31, 1u, 1u << 31}) w.usize(v);
    expect_fast_bounded_rejection(b, "WHIR proof: opened rows of commitment 0");
    EXPECT_NE(decode_measured(b).error.find("more than 2^64 needed"), std::string::npos) << decode_measured(b).error;
  }
  {
    std::vector<uint8_t> b = crafted_prefix(1, 24);
    ByteWriter w(b);
    for (uint32_t v : {1u, 1u << 31, 1u, 8u}) w.usize(v);
    expect_fast_bounded_rejection(b, "WHIR proof: opened rows of commitment 0: 2147483648 items of 536870912 bytes");
  }
  // Merkle paths of an absurd depth.
  {
    std::vector<uint8_t> b = crafted_prefix(1, 1);
    ByteWriter w(b);
    for (uint32_t v : {1u, 1u, 0xFFFFFFFFu, 1u}) w.usize(v);
    for (int i = 0; i < 2; ++i) w.f(Fp::one());  // one query of 2 rows of width 1
    expect_fast_bounded_rejection(b, "WHIR proof: Merkle paths of commitment 0");
  }
}

TEST(PcsDecode, FirstMerkleDepthIsZeroWithOneRound) {
  const Fixture& f = one_round();
  ASSERT_EQ(f.params.num_whir_rounds(), 1u);
  ASSERT_TRUE(verify_pcs_proof_bytes(f.claim, f.bytes, f.params).ok);
  const size_t at = first_merkle_depth_offset(f.proof);
  ASSERT_EQ(get_u32(f.bytes, at), 0u);
  for (uint32_t v : {1u, 2u, 0xFFFFFFFFu}) {
    std::vector<uint8_t> b = f.bytes;
    put_u32(b, at, v);
    try {
      (void)decode_pcs_proof(b);
      FAIL() << v;
    } catch (const DecodeError& e) {
      EXPECT_NE(std::string(e.what()).find("WHIR proof: first_merkle_depth"), std::string::npos) << e.what();
    }
    EXPECT_THROW((void)decode_pcs_proof(b, f.params, f.widths), DecodeError);
    VerifyResult r = verify_pcs_proof_bytes(f.claim, b, f.params);
    EXPECT_FALSE(r.ok) << v;
    EXPECT_NE(r.reason.find("first_merkle_depth"), std::string::npos) << r.reason;
    EXPECT_TRUE(r.is(DecodeReject::CountMismatch)) << r.code;  // the shape's depth is 0
  }
  // With several rounds it is the depth of round 1's paths, which the params fix.
  const Fixture& g = four_rounds();
  std::vector<uint8_t> b = g.bytes;
  const size_t at3 = first_merkle_depth_offset(g.proof);
  ASSERT_EQ(get_u32(b, at3), g.proof.whir.codeword_merkle_proofs[0][0].size());
  put_u32(b, at3, get_u32(b, at3) + 1);
  EXPECT_THROW((void)decode_pcs_proof(b, g.params, g.widths), DecodeError);
  EXPECT_TRUE(verify_pcs_proof_bytes(g.claim, b, g.params).is(DecodeReject::CountMismatch));
}

TEST(PcsDecode, ValidProofsRoundTripByteForByte) {
  for (const Fixture* f : {&four_rounds(), &one_round()}) {
    EXPECT_EQ(decode_pcs_proof(f->bytes), f->proof);
    EXPECT_EQ(decode_pcs_proof(f->bytes, f->params, f->widths), f->proof);
    EXPECT_EQ(encode(decode_pcs_proof(f->bytes)), f->bytes);
    const Outcome o = decode_measured(f->bytes);  // the counter sees a real decode's memory
    EXPECT_TRUE(o.error.empty()) << o.error;
    if (kCountsAllocations) {
      EXPECT_GT(o.allocated, f->bytes.size() / 2);
      EXPECT_LT(o.allocated, 16 * f->bytes.size());
    }
  }
}

TEST(PcsDecode, ErrorsNameTheField) {
  const Fixture& f = four_rounds();
  auto error_of = [](const std::vector<uint8_t>& b) {
    try {
      (void)decode_pcs_proof(b);
    } catch (const DecodeError& e) {
      return std::string(e.what());
    }
    return std::string("(accepted)");
  };
  std::vector<uint8_t> b = f.bytes;
  put_u32(b, b.size() - 16, Fp::P);  // the last final_poly coefficient's first element
  EXPECT_EQ(error_of(b), fmt::format("WHIR proof: final_poly[{}]: 2013265921 is not a field element (>= p)",
                                     f.proof.whir.final_poly.size() - 1));
  // Truncated inside the last round's paths: 28 bytes short of them.
  const auto& paths = f.proof.whir.codeword_merkle_proofs;
  const size_t last = paths.size(), path_bytes = 32 * paths.back()[0].size(), n = paths.back().size();
  const size_t paths_end = f.bytes.size() - 4 - 16 * f.proof.whir.final_poly.size();
  b.assign(f.bytes.begin(), f.bytes.begin() + paths_end - 28);
  EXPECT_EQ(error_of(b),
            fmt::format("WHIR proof: round {} Merkle paths: {} items of {} bytes: {} bytes left, {} needed", last, n,
                        path_bytes, n * path_bytes - 28, n * path_bytes));
  // A value >= p inside a path names the round, the query and the path.
  b = f.bytes;
  put_u32(b, codeword_paths_offset(f.proof) + 32 * paths[0][0].size() + 8, 0xffffffffu);
  EXPECT_EQ(error_of(b), "WHIR proof: round 1 query 1 Merkle path: 4294967295 is not a field element (>= p)");
}

// One canonical encoding: whatever a decoder accepts re-encodes to the same bytes, so no mutation
// of a valid proof decodes to it, and the verifier rejects every mutation with a reason and a code:
// the shaped decoder's for bytes it rejects, a PCS or WHIR check's for a proof it decodes.
TEST(PcsDecode, AcceptedMutationsReencodeIdenticallyAndNeverVerify) {
  std::mt19937_64 rng(8);
  const uint32_t interesting[] = {0, 1, 2, 3, 0x77ffffff, Fp::P, 0x80000000u, 0xffffffffu};
  int decoded = 0, trials = 0;
  for (const Fixture* f : {&four_rounds(), &one_round()}) {
    for (int trial = 0; trial < 1500; ++trial, ++trials) {
      std::vector<uint8_t> b = f->bytes;
      const size_t at = rng() % (b.size() - 3);
      switch (rng() % 6) {
        case 0:
          b[at] ^= static_cast<uint8_t>(1 + rng() % 255);
          break;
        case 1:
          put_u32(b, at & ~size_t(3), interesting[rng() % std::size(interesting)]);
          break;
        case 2:
          put_u32(b, at & ~size_t(3), static_cast<uint32_t>(rng()));
          break;
        case 3:
          b.resize(at);
          break;
        case 4:
          b.insert(b.begin() + (at & ~size_t(3)), 4, static_cast<uint8_t>(rng()));
          break;
        default:
          b.erase(b.begin() + (at & ~size_t(3)), b.begin() + (at & ~size_t(3)) + 4);
          break;
      }
      if (b == f->bytes) continue;
      const Outcome o = decode_measured(b);
      if (kCountsAllocations) {
        ASSERT_LT(o.allocated, 16 * b.size() + (64u << 10)) << o.error;
      }
      if (o.error.empty()) {
        ++decoded;
        ASSERT_EQ(encode(decode_pcs_proof(b)), b) << "trial " << trial;
      }
      std::optional<DecodeReject> decode_error;
      try {
        ASSERT_EQ(encode(decode_pcs_proof(b, f->params, f->widths)), b) << "trial " << trial;
      } catch (const DecodeError& e) {
        decode_error = e.code();
      }
      VerifyResult v = verify_pcs_proof_bytes(f->claim, b, f->params);
      ASSERT_FALSE(v.ok) << "trial " << trial;
      ASSERT_FALSE(v.reason.empty());
      if (decode_error)
        ASSERT_EQ(v.code, RejectCode(*decode_error)) << "trial " << trial << ": " << v.reason;
      else
        ASSERT_TRUE(v.in(RejectPhase::Pcs) || v.in(RejectPhase::Whir)) << "trial " << trial << ": " << v.code;
    }
  }
  EXPECT_GT(decoded, trials / 10);  // the mutations reach the verifier, not only the decoder
}

TEST(ByteReader, RequireComputesTheByteCountWithoutOverflow) {
  const std::vector<uint8_t> bytes(64);
  ByteReader r(bytes);
  EXPECT_NO_THROW(r.require(2, 32, "x"));
  EXPECT_THROW(r.require(3, 32, "x"), DecodeError);
  EXPECT_NO_THROW(r.require(0, UINT64_MAX, "x"));
  EXPECT_NO_THROW(r.require(1u << 20, 0, "x"));
  // 2^62 * 8 wraps to 0 in 64 bits.
  try {
    r.require(uint64_t(1) << 62, 8, {"round {} query {} Merkle path", 2, 17});
    FAIL();
  } catch (const DecodeError& e) {
    EXPECT_STREQ(e.what(),
                 "round 2 query 17 Merkle path: 4611686018427387904 items of 8 bytes: 64 bytes left, more than 2^64 "
                 "needed");
  }
}

TEST(ByteReader, CountsAndValuesAreCheckedAgainstTheBytesLeft) {
  std::vector<uint8_t> bytes;
  ByteWriter w(bytes);
  w.usize(3);
  w.f(Fp::one());
  ByteReader r(bytes);
  try {
    (void)r.count("v length", 4);
    FAIL();
  } catch (const DecodeError& e) {
    EXPECT_STREQ(e.what(), "v length: 3 items of 4 bytes: 4 bytes left, 12 needed");
  }
  ByteReader r2(bytes);
  EXPECT_EQ(r2.expect("n", 3, 1), 3u);
  EXPECT_THROW(r2.expect_end("all"), DecodeError);
  try {
    (void)r2.digest("d");
    FAIL();
  } catch (const DecodeError& e) {
    EXPECT_STREQ(e.what(), "d: 4 bytes left, 32 needed");
  }
  EXPECT_EQ(r2.f("f"), Fp::one());
  EXPECT_NO_THROW(r2.expect_end("all"));
}
