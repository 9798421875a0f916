// Specifies kernels/hash: the Poseidon2 permutation, hash_slice, compress, the duplex-sponge
// transcript and grinding, against the known-answer values of protocol.md 16.2.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "kernels/field/simd_level.hpp"
#include "kernels/hash/hash.hpp"
#include "kernels/hash/poseidon2_batch.hpp"
#include "kernels/hash/transcript.hpp"
#include "kernels/known_answers.hpp"
#include "runtime/error.hpp"
#include "stages/pcs/merkle_verify.hpp"

using namespace vkstark;

namespace {
template <class R, size_t N>
void expect_canonical(const R& got, const std::array<uint32_t, N>& want) {
  ASSERT_EQ(std::size(got), N);
  size_t i = 0;
  for (const auto& x : got) {
    EXPECT_EQ(x.value(), want[i]) << "index " << i;
    ++i;
  }
}
std::vector<Fp> range(uint32_t from, uint32_t to_inclusive) {
  std::vector<Fp> v;
  for (uint32_t i = from; i <= to_inclusive; ++i) v.push_back(Fp::from_canonical(i));
  return v;
}
}  // namespace

TEST(Poseidon2, PermutesIotaToKnownAnswer) {
  Poseidon2State s;
  for (uint32_t i = 0; i < 16; ++i) s[i] = Fp::from_canonical(i);
  expect_canonical(poseidon2(s), kat::PERM_IOTA);
}

TEST(Poseidon2, PermutesZeroToKnownAnswer) { expect_canonical(poseidon2(Poseidon2State{}), kat::PERM_ZERO); }

TEST(Poseidon2, ConstantsMatchAppendixA) {
  // First/last values of protocol.md 2.1, canonical.
  EXPECT_EQ(Fp::from_mont(poseidon2_detail::RC_EXT_INIT[0]).value(), 1774958255u);
  EXPECT_EQ(Fp::from_mont(poseidon2_detail::RC_EXT_TERM[63]).value(), 1619482808u);
  EXPECT_EQ(Fp::from_mont(poseidon2_detail::RC_INT[0]).value(), 1518359488u);
  EXPECT_EQ(Fp::from_mont(poseidon2_detail::RC_INT[12]).value(), 605745517u);
  EXPECT_EQ(Fp::from_mont(poseidon2_detail::DIAG[0]).value(), Fp::P - 2);
}

TEST(HashSlice, EmptyInputIsTheZeroDigest) {
  Digest d = hash_slice(std::span<const Fp>());
  for (Fp x : d) EXPECT_TRUE(x.is_zero());
}

TEST(HashSlice, KnownAnswers) {
  expect_canonical(hash_slice(range(1, 1)), kat::HASH_SLICE_1);
  expect_canonical(hash_slice(range(1, 8)), kat::HASH_SLICE_1_TO_8);
  expect_canonical(hash_slice(range(1, 9)), kat::HASH_SLICE_1_TO_9);
  expect_canonical(hash_slice(range(0, 15)), kat::HASH_SLICE_0_TO_15);
}

TEST(HashSlice, ExtensionRowsHashTheirFlattenedCoefficients) {
  std::vector<Fp4> row = {Fp4::from_canonical(1, 2, 3, 4), Fp4::from_canonical(5, 6, 7, 8),
                          Fp4::from_canonical(9, 0, 0, 0)};
  std::vector<Fp> flat = range(1, 9);
  flat.insert(flat.end(), 3, Fp::zero());
  EXPECT_EQ(hash_slice(std::span<const Fp4>(row)), hash_slice(std::span<const Fp>(flat)));
}

TEST(Compress, IsTheTruncatedPermutation) {
  Digest l, r;
  for (uint32_t i = 0; i < 8; ++i) {
    l[i] = Fp::from_canonical(i);
    r[i] = Fp::from_canonical(8 + i);
  }
  Digest d = compress(l, r);
  for (int i = 0; i < 8; ++i) EXPECT_EQ(d[i].value(), kat::PERM_IOTA[i]);
}

TEST(Transcript, FreshSampleExt) {
  DuplexSponge t;
  expect_canonical(t.sample_ext().c, kat::SPONGE_FRESH_4);
}

TEST(Transcript, ObserveThreeThenTenSamples) {
  DuplexSponge t;
  for (Fp v : range(1, 3)) t.observe(v);
  std::vector<Fp> got;
  for (int i = 0; i < 10; ++i) got.push_back(t.sample());
  expect_canonical(got, kat::SPONGE_123_10);
}

TEST(Transcript, FullBlockObserveThenTwoSamples) {
  DuplexSponge t;
  for (Fp v : range(0, 7)) t.observe(v);
  std::vector<Fp> got = {t.sample(), t.sample()};
  expect_canonical(got, kat::SPONGE_0_TO_7_2);
}

TEST(Transcript, ObserveExtAndCommitObserveCoefficientsInOrder) {
  DuplexSponge a, b;
  a.observe_ext(Fp4::from_canonical(1, 2, 3, 4));
  Digest d;
  for (uint32_t i = 0; i < 8; ++i) d[i] = Fp::from_canonical(10 + i);
  a.observe_commit(d);
  for (Fp v : range(1, 4)) b.observe(v);
  for (Fp v : range(10, 17)) b.observe(v);
  EXPECT_EQ(a, b);
  EXPECT_EQ(a.sample_ext(), b.sample_ext());
}

TEST(Transcript, SampleBitsMasksTheCanonicalValue) {
  DuplexSponge a, b;
  uint32_t bits = a.sample_bits(10);
  EXPECT_EQ(bits, b.sample().value() & 1023u);
  EXPECT_EQ(a.sample_bits(0), 0u);
  EXPECT_NO_THROW(a.sample_bits(30));
}

TEST(Transcript, SampleBitsRejectsMoreBitsThanTheFieldHolds) {
  DuplexSponge t;
  EXPECT_THROW(t.sample_bits(31), InputError);
  EXPECT_THROW(t.sample_bits(32), InputError);
  EXPECT_THROW(t.grind(31), InputError);
}

TEST(Grinding, SmallestEightBitWitnessFromFreshSpongeIs164) {
  DuplexSponge t;
  Fp w = t.grind(8);
  EXPECT_EQ(w.value(), kat::POW8_WITNESS);
  EXPECT_EQ(t.sample().value(), kat::POW8_NEXT_SAMPLE);
}

TEST(Grinding, WitnessIsTheSmallestValidOne) {
  std::mt19937_64 rng(3);
  for (uint32_t bits : {1u, 3u, 6u, 10u}) {
    for (int absorbed = 0; absorbed < 9; absorbed += 4) {
      DuplexSponge t;
      for (int i = 0; i < absorbed; ++i) t.observe(Fp::reduce(rng()));
      DuplexSponge before = t;
      Fp w = t.grind(bits);
      for (uint32_t c = 0; c < w.value(); ++c) {
        DuplexSponge copy = before;
        ASSERT_FALSE(copy.check_witness(bits, Fp::from_canonical(c))) << "smaller witness " << c << " bits " << bits;
      }
      DuplexSponge verifier = before;
      ASSERT_TRUE(verifier.check_witness(bits, w));
      EXPECT_EQ(verifier, t) << "grind leaves the transcript where check_witness does";
    }
  }
}

TEST(Grinding, ZeroBitsTouchesNothing) {
  DuplexSponge t;
  t.observe(Fp::one());
  DuplexSponge before = t;
  EXPECT_EQ(t.grind(0), Fp::zero());
  EXPECT_EQ(t, before);
  EXPECT_TRUE(t.check_witness(0, Fp::from_canonical(12345)));
  EXPECT_EQ(t, before);
}

TEST(Grinding, CheckWitnessRejectsAWrongWitness) {
  DuplexSponge t;
  DuplexSponge v = t;
  Fp w = t.grind(8);
  EXPECT_FALSE(v.check_witness(8, w + Fp::one()));
}

TEST(Transcript, FromStateValidatesIndices) {
  DuplexSponge t;
  t.observe(Fp::one());
  EXPECT_EQ(DuplexSponge::from_state(t.state(), t.absorb_idx(), t.sample_idx()), t);
  EXPECT_THROW(DuplexSponge::from_state(t.state(), 8, 0), InputError);
  EXPECT_THROW(DuplexSponge::from_state(t.state(), 0, 9), InputError);
}

TEST(KnownAnswers, EveryHostCheckPasses) {
  auto checks = kat::host_checks();
  EXPECT_EQ(checks.size(), 14u);
  for (const auto& c : checks) EXPECT_TRUE(c.ok()) << c.name;
}

TEST(Poseidon2Batch, EverySimdPathMatchesTheScalarPermutation) {
  const SimdLevel saved = cpu_simd_level();
  std::mt19937_64 rng(17);
  // Every level this processor has (set through the test hook), sizes around the SIMD widths (8 and
  // 16), edge values in the states.
  for (SimdLevel level : {SimdLevel::Scalar, SimdLevel::Avx2, SimdLevel::Avx512}) {
    if (level > detected_simd_level()) continue;
    set_cpu_simd_level(level);
    ASSERT_EQ(poseidon2_batch_isa(), to_string(level));
    for (size_t n : {0u, 1u, 7u, 8u, 15u, 16u, 17u, 33u, 100u}) {
      std::vector<Poseidon2State> a(n);
      for (auto& s : a)
        for (auto& x : s) {
          uint64_t r = rng() % 4;
          x = r == 0 ? Fp::zero() : r == 1 ? Fp::from_canonical(Fp::P - 1) : Fp::reduce(rng());
        }
      std::vector<Poseidon2State> b = a;
      poseidon2_permute_batch(std::span<Poseidon2State>(a));
      for (auto& s : b) poseidon2_permute(s);
      ASSERT_EQ(a, b) << "n = " << n << " isa " << poseidon2_batch_isa();
    }
  }
  set_cpu_simd_level(saved);
}

// The single-state path (the transcript's, AVX-512: the state in one vector) at every level, on
// states with edge values, and chained as a transcript chains it.
TEST(Poseidon2One, EverySimdPathMatchesTheScalarPermutation) {
  const SimdLevel saved = cpu_simd_level();
  std::mt19937_64 rng(23);
  for (SimdLevel level : {SimdLevel::Scalar, SimdLevel::Avx2, SimdLevel::Avx512}) {
    if (level > detected_simd_level()) continue;
    set_cpu_simd_level(level);
    for (int t = 0; t < 200; ++t) {
      Poseidon2State a;
      for (auto& x : a) {
        const uint64_t r = rng() % 4;
        x = r == 0 ? Fp::zero() : r == 1 ? Fp::from_canonical(Fp::P - 1) : Fp::reduce(rng());
      }
      Poseidon2State b = a;
      for (int k = 0; k < 3; ++k) {
        poseidon2_permute_one(a);
        poseidon2_permute(b);
      }
      ASSERT_EQ(a, b) << "state " << t << " level " << to_string(level);
    }
  }
  set_cpu_simd_level(saved);
}

// The verifiers' batched hashing (stages/pcs/merkle_verify.hpp) against the one-at-a-time functions.
TEST(MerkleBatch, RowHashesLeafGroupsAndPathsMatchTheScalarFunctions) {
  std::mt19937_64 rng(5);
  auto fp = [&] { return Fp::reduce(rng()); };
  for (uint32_t width : {1u, 4u, 7u, 8u, 9u, 16u, 42u}) {
    const size_t n = 37;
    std::vector<Fp> rows(n * width);
    for (Fp& x : rows) x = fp();
    const std::vector<Digest> got = hash_rows_batch(rows, width, n);
    for (size_t i = 0; i < n; ++i)
      ASSERT_EQ(got[i], hash_slice(std::span<const Fp>(rows.data() + i * width, width))) << "width " << width;
  }
  for (uint32_t k : {0u, 1u, 3u}) {
    std::vector<Digest> rows(5u << k);
    for (Digest& d : rows)
      for (Fp& x : d) x = fp();
    const std::vector<Digest> got = leaf_group_digests(rows, k);
    ASSERT_EQ(got.size(), 5u);
    for (size_t g = 0; g < 5; ++g)
      EXPECT_EQ(got[g], leaf_group_digest(std::span<const Digest>(rows.data() + (g << k), size_t(1) << k)));
  }
  // Paths of a random tree of depth 6: every leaf's path verifies; a changed sibling, a wrong leaf
  // or an index too large fails, at that query.
  const size_t depth = 6;
  std::vector<std::vector<Digest>> levels(1, std::vector<Digest>(size_t(1) << depth));
  for (Digest& d : levels[0])
    for (Fp& x : d) x = fp();
  while (levels.back().size() > 1) {
    std::vector<Digest> next;
    for (size_t i = 0; i < levels.back().size(); i += 2)
      next.push_back(compress(levels.back()[i], levels.back()[i + 1]));
    levels.push_back(next);
  }
  const Digest root = levels.back()[0];
  std::vector<uint64_t> idx;
  std::vector<Digest> leaves;
  std::vector<std::vector<Digest>> paths;
  for (uint64_t q = 0; q < 20; ++q) {
    const uint64_t i = rng() % (1u << depth);
    idx.push_back(i);
    leaves.push_back(levels[0][i]);
    paths.emplace_back();
    for (size_t l = 0; l < depth; ++l) paths.back().push_back(levels[l][(i >> l) ^ 1]);
    ASSERT_TRUE(merkle_verify(root, i, leaves.back(), paths.back()));
  }
  auto path_of = [&](size_t q) { return std::span<const Digest>(paths[q]); };
  EXPECT_EQ(merkle_verify_batch(root, idx, leaves, path_of, depth), size_t(-1));
  paths[7][3][0] += Fp::one();
  EXPECT_EQ(merkle_verify_batch(root, idx, leaves, path_of, depth), 7u);
  paths[7][3][0] -= Fp::one();
  leaves[12][5] += Fp::one();
  EXPECT_EQ(merkle_verify_batch(root, idx, leaves, path_of, depth), 12u);
  leaves[12][5] -= Fp::one();
  idx[4] |= uint64_t(1) << depth;
  EXPECT_EQ(merkle_verify_batch(root, idx, leaves, path_of, depth), 4u);
}
