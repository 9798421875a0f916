// Specifies the host reference transforms of kernels/field/dft.hpp (protocol.md 1.2, 6.3): the fast
// DFT / iDFT agree with the O(n^2) definition for every size 2^0 .. 2^10 on random and edge values,
// over Fp and Fp4; the known answers of protocol.md 16.2 (DFT_8 and the RS message); round trips of
// the DFT, the subset-zeta / Möbius pair and the RS message; and rejection of bad sizes. Also the
// graph builders of stages/common/ntt.hpp, without an executor: task names, the ping-pong that ends in
// the destination, and the errors for arguments that do not describe the views. And the CPU
// executor's NTT kernels at every SIMD level this processor has: the same bits at each level.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "executors/executors.hpp"
#include "kernels/basic.hpp"
#include "kernels/field/dft.hpp"
#include "kernels/field/simd_level.hpp"
#include "runtime/error.hpp"
#include "stages/common/ntt.hpp"

using namespace vkstark;

namespace {

std::vector<Fp> values(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  const uint32_t edges[] = {0, 1, 2, Fp::P - 1, Fp::P - 2, Fp::P / 2, (1u << 31) % Fp::P};
  std::vector<Fp> v(n);
  for (auto& x : v) x = rng() % 4 == 0 ? Fp::from_canonical(edges[rng() % std::size(edges)]) : Fp::reduce(rng());
  return v;
}

std::vector<Fp4> ext_values(size_t n, uint64_t seed) {
  auto b = values(4 * n, seed);
  std::vector<Fp4> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = {b[4 * i], b[4 * i + 1], b[4 * i + 2], b[4 * i + 3]};
  return v;
}

std::vector<Fp> canonical(std::initializer_list<uint32_t> xs) {
  std::vector<Fp> v;
  for (uint32_t x : xs) v.push_back(Fp::from_canonical(x));
  return v;
}

std::vector<Fp> iota_1(size_t n) {
  std::vector<Fp> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = Fp::from_canonical(static_cast<uint32_t>(i + 1));
  return v;
}

}  // namespace

TEST(Dft, MatchesTheKnownAnswerForOneToEight) {
  auto a = iota_1(8);
  dft(a);
  EXPECT_EQ(a, canonical({36, 1976151680, 1139445628, 1710526337, 2013265917, 302739576, 873820285, 37114233}));
  EXPECT_EQ(naive_dft(std::span<const Fp>(iota_1(8))), a);
}

TEST(Dft, FastTransformMatchesTheDefinitionForEverySizeUpTo1024) {
  for (uint32_t log_n = 0; log_n <= 10; ++log_n) {
    const size_t n = size_t(1) << log_n;
    for (uint64_t seed : {1, 2}) {
      auto x = values(n, seed * 100 + log_n);
      auto fast = x;
      dft(fast);
      ASSERT_EQ(fast, naive_dft(std::span<const Fp>(x))) << "n=" << n;
    }
    // Edge vectors: all zeros, all p-1, a single 1 at the end (its DFT is the powers of omega^(n-1)).
    std::vector<Fp> zeros(n), top(n, Fp::from_canonical(Fp::P - 1)), last(n);
    last[n - 1] = Fp::one();
    for (auto* v : {&zeros, &top, &last}) {
      auto fast = *v;
      dft(fast);
      ASSERT_EQ(fast, naive_dft(std::span<const Fp>(*v))) << "n=" << n;
    }
  }
}

TEST(Dft, ExtensionFieldTransformIsTheBaseTransformOfEachCoefficient) {
  for (uint32_t log_n = 0; log_n <= 8; ++log_n) {
    const size_t n = size_t(1) << log_n;
    auto x = ext_values(n, 7 + log_n);
    auto fast = x;
    dft(fast);
    ASSERT_EQ(fast, naive_dft(std::span<const Fp4>(x))) << "n=" << n;
    for (int k = 0; k < 4; ++k) {
      std::vector<Fp> coeff(n);
      for (size_t i = 0; i < n; ++i) coeff[i] = x[i].c[k];
      dft(coeff);
      for (size_t i = 0; i < n; ++i) ASSERT_EQ(fast[i].c[k], coeff[i]) << "n=" << n << " i=" << i;
    }
    idft(fast);
    ASSERT_EQ(fast, x) << "n=" << n;
  }
}

TEST(Dft, InverseUndoesTheForwardTransform) {
  for (uint32_t log_n : {0u, 1u, 5u, 12u, 16u}) {
    auto x = values(size_t(1) << log_n, log_n);
    auto y = x;
    dft(y);
    idft(y);
    ASSERT_EQ(y, x) << "log_n=" << log_n;
    idft(y);
    dft(y);
    ASSERT_EQ(y, x) << "log_n=" << log_n;
  }
}

TEST(Dft, InverseOfTheTransformOfOnesIsTheFirstUnitVector) {
  std::vector<Fp> ones(16, Fp::one());
  idft(ones);
  std::vector<Fp> e0(16);
  e0[0] = Fp::one();
  EXPECT_EQ(ones, e0);
}

TEST(Dft, RejectsLengthsThatAreNotPowersOfTwo) {
  std::vector<Fp> v(6);
  EXPECT_THROW(dft(v), InputError);
  EXPECT_THROW(idft(v), InputError);
  EXPECT_THROW((void)naive_dft(std::span<const Fp>(v)), InputError);
  std::vector<Fp> empty;
  EXPECT_THROW(dft(empty), InputError);
  EXPECT_THROW(Radix2Dft(28), InputError);
  std::vector<Fp> eight(8);
  EXPECT_THROW(Radix2Dft(2).forward(eight), InputError);
}

TEST(SubsetZeta, SumsOverSubsets) {
  // a'[S] = sum_{T subset of S} a[T] over bits [0, 3).
  auto a = values(8, 3);
  auto z = a;
  subset_zeta(z, 0, 3);
  for (uint32_t s = 0; s < 8; ++s) {
    Fp acc;
    for (uint32_t t = 0; t < 8; ++t)
      if ((t & s) == t) acc += a[t];
    ASSERT_EQ(z[s], acc) << "S=" << s;
  }
}

TEST(SubsetZeta, MobiusIsItsInverseOnAnyBitRange) {
  for (auto [lo, hi] : {std::pair{0u, 10u}, {0u, 0u}, {3u, 7u}, {9u, 10u}}) {
    auto a = values(1 << 10, lo * 31 + hi);
    auto b = a;
    subset_zeta(b, lo, hi);
    if (hi > lo) {
      ASSERT_NE(b, a);
    }
    subset_mobius(b, lo, hi);
    ASSERT_EQ(b, a) << "[" << lo << ", " << hi << ")";
  }
  auto e = ext_values(64, 5);
  auto f = e;
  subset_zeta(f, 0, 6);
  subset_mobius(f, 0, 6);
  EXPECT_EQ(f, e);
  std::vector<Fp> odd(12);
  EXPECT_THROW(subset_zeta(odd, 0, 3), InputError);
}

TEST(RsMessage, MatchesTheKnownAnswerForOneToEight) {
  auto column = iota_1(8);
  rs_message_chunks(column, 2);
  EXPECT_EQ(column, canonical({1006632963, 1870835219, 2, 1, 1006632967, 1870835223, 6, 5}));
  rs_message_chunks_inverse(column, 2);
  EXPECT_EQ(column, iota_1(8));
}

TEST(RsMessage, IsTheChunkwiseInverseDftFollowedBySubsetZeta) {
  for (uint32_t l = 0; l <= 6; ++l) {
    auto column = values(size_t(4) << l, 40 + l);
    auto expect = column;
    for (size_t at = 0; at < expect.size(); at += size_t(1) << l) {
      std::span<Fp> chunk(expect.data() + at, size_t(1) << l);
      auto coeffs = naive_dft(std::span<const Fp>(chunk));  // DFT, then reverse 1..n-1 and scale: iDFT
      const Fp n_inv = Fp::from_canonical(uint32_t(1) << l).inverse();
      for (size_t i = 0; i < chunk.size(); ++i) chunk[i] = coeffs[(chunk.size() - i) % chunk.size()] * n_inv;
      subset_zeta(chunk, 0, l);
    }
    auto got = column;
    rs_message_chunks(got, l);
    ASSERT_EQ(got, expect) << "l=" << l;
    rs_message_chunks_inverse(got, l);
    ASSERT_EQ(got, column) << "l=" << l;
  }
  std::vector<Fp> short_column(6);
  EXPECT_THROW(rs_message_chunks(short_column, 2), InputError);
}

// The message is the coefficient table of g with q^(Z, x) = g(Z, Z^2, ..., Z^(2^(l-1)), x)
// (protocol.md 6.3): evaluating sum_S mu[S] prod_{k in S} z^(2^k) at z = omega^i gives back chunk[i].
TEST(RsMessage, MessageEvaluatesBackToTheChunkOnTheSubgroup) {
  const uint32_t l = 4;
  auto chunk = values(16, 99);
  auto mu = chunk;
  rs_message_chunks(mu, l);
  // Möbius turns the hypercube evaluations back into multilinear coefficients c_S; then
  // g(z, z^2, z^4, z^8) = sum_S c_S z^S.
  auto coeffs = mu;
  subset_mobius(coeffs, 0, l);
  const Fp omega = two_adic_generator(l);
  for (uint32_t i = 0; i < 16; ++i) {
    const Fp z = omega.pow(i);
    Fp acc;
    for (uint32_t s = 0; s < 16; ++s) acc += coeffs[s] * z.pow(s);
    ASSERT_EQ(acc, chunk[i]) << "i=" << i;
  }
}

namespace {
std::vector<std::string> task_names(const Graph& g) {
  std::vector<std::string> names;
  for (const Task& t : g.tasks()) names.push_back(t.name);
  return names;
}
}  // namespace

TEST(NttGraph, DefaultPassesRunFourStagesInRegistersWithSixteenByteAccesses) {
  Graph g;
  Ntt ntt(g, 22);
  auto src = g.input<Fp>("message", 42 << 20);
  auto dst = g.output<Fp>("codeword", 42 << 22);
  ntt.forward(src, 20, 1 << 20, dst, 22, 1 << 22, 42);
  EXPECT_EQ(task_names(g), (std::vector<std::string>{"ntt.forward.stages0-3", "ntt.forward.stages4-7",
                                                     "ntt.forward.stages8-11", "ntt.forward.stages12-15",
                                                     "ntt.forward.stages16-18", "ntt.forward.stages19-21"}));
  for (const Task& t : g.tasks()) {
    EXPECT_EQ(t.kernel->name, &t == &g.tasks()[0] ? NttStageVec0Fp::name : NttStageVecFp::name);
    EXPECT_EQ(t.grid.y, 42u);
  }
  EXPECT_EQ(g.tasks()[0].grid.x, (1u << 22) / 16 / 4);  // four groups of 16 an invocation
  EXPECT_EQ(g.tasks().back().bindings[1].buffer, dst.id());
}

TEST(NttGraph, WithoutSixteenByteAccessesPassesRunEightStagesInSharedMemory) {
  for (const bool vector : {false, true}) {
    Graph g;
    Ntt ntt(g, 22, {.vector_access = vector});
    auto src = g.input<Fp>("message", 1 + (42 << 20));
    auto dst = g.output<Fp>("codeword", 42 << 22);
    // vector_access off, or a source not in whole runs of four (it starts at entry 1)
    ntt.forward(src.slice(vector ? 1 : 0, 42 << 20), 20, 1 << 20, dst, 22, 1 << 22, 42);
    EXPECT_EQ(task_names(g),
              (std::vector<std::string>{"ntt.forward.stages0-7", "ntt.forward.stages8-14", "ntt.forward.stages15-21"}));
    for (const Task& t : g.tasks()) {
      EXPECT_EQ(t.kernel->name, NttStageSharedFp::name);
      EXPECT_EQ(t.grid.y, 42u);
    }
    // Stage 0..7: tiles of 8 groups of 256 entries (2048 entries in shared memory).
    EXPECT_EQ(g.tasks()[0].grid.x, (1u << 22) / 2048 * NttStageSharedFp::workgroup_size);
    EXPECT_EQ(g.tasks().back().bindings[1].buffer, dst.id());
  }
}

TEST(NttGraph, RegisterPassesTakeSixteenByteAccessesWhereTheColumnsAreWholeRunsOfFour) {
  for (const bool vector : {true, false}) {
    for (const uint64_t offset : {0u, 1u, 4u}) {  // the source's first entry
      Graph g;
      Ntt ntt(g, 12, {.max_log_radix = 4, .vector_access = vector});
      auto src = g.input<Fp>("message", 4 + (3 << 11));
      auto dst = g.output<Fp>("codeword", 3 << 12);
      ntt.forward(src.slice(offset, 3 << 11), 11, 1 << 11, dst, 12, 1 << 12, 3);
      ASSERT_EQ(g.tasks().size(), 3u);  // stages 0-3 from the message, 4-7 and 8-11 between scratch and codeword
      const bool whole = offset % 4 == 0;
      EXPECT_EQ(g.tasks()[0].kernel->name, vector && whole ? NttStageVec0Fp::name : NttStageFp::name)
          << "offset " << offset << " vector_access " << vector;
      for (size_t t = 1; t < 3; ++t)
        EXPECT_EQ(g.tasks()[t].kernel->name, vector ? NttStageVecFp::name : NttStageFp::name);
      if (vector && whole) {
        EXPECT_EQ(g.tasks()[0].grid.x, (1u << 12) / 16 / 4);  // 4 groups of 16 an invocation
      }
    }
  }
  // Stage 1 cannot: four consecutive outputs are two groups at two k.
  Graph g;
  Ntt ntt(g, 8, {.max_log_radix = 1});
  auto src = g.input<Fp>("x", 256);
  auto dst = g.output<Fp>("y", 256);
  ntt.forward(src, 8, 256, dst, 8, 256, 1);
  ASSERT_EQ(g.tasks().size(), 8u);
  EXPECT_EQ(g.tasks()[0].kernel->name, NttStageFp::name);  // stage 0 at radix 2
  EXPECT_EQ(g.tasks()[1].kernel->name, NttStageFp::name);  // stage 1
  EXPECT_EQ(g.tasks()[2].kernel->name, NttStageVecFp::name);
}

TEST(NttGraph, NamesEachPassByItsStagesAndEndsInTheDestination) {
  Graph g;
  Ntt ntt(g, 22, {.max_log_radix = 4});
  ntt.add_setup();
  auto src = g.input<Fp>("message", 42 << 20);
  auto dst = g.output<Fp>("codeword", 42 << 22);
  ntt.forward(src, 20, 1 << 20, dst, 22, 1 << 22, 42, "rs_code_matrix.ntt");
  EXPECT_EQ(task_names(g),
            (std::vector<std::string>{"ntt.twiddles.22", "rs_code_matrix.ntt.stages0-3", "rs_code_matrix.ntt.stages4-7",
                                      "rs_code_matrix.ntt.stages8-11", "rs_code_matrix.ntt.stages12-15",
                                      "rs_code_matrix.ntt.stages16-18", "rs_code_matrix.ntt.stages19-21"}));
  const auto& tasks = g.tasks();
  // Six passes: scratch, dst, scratch, dst, scratch, dst. The source is only read.
  EXPECT_EQ(tasks.back().bindings[1].buffer, dst.id());
  EXPECT_NE(tasks[1].bindings[1].buffer, dst.id());
  for (const Task& t : tasks)
    for (const Binding& b : t.bindings)
      if (b.buffer == src.id()) {
        EXPECT_EQ(b.access, Access::Read) << t.name;
      }
  EXPECT_EQ(g.buffers()[ntt.twiddles().id()].lifetime, Lifetime::Persistent);
  EXPECT_EQ(g.buffers()[ntt.twiddles().id()].name, "ntt.twiddles.22");
}

TEST(NttGraph, RadixTwoOptionGivesOneStagePerDispatch) {
  Graph g;
  Ntt ntt(g, 3, {.max_log_radix = 1});
  auto x = g.input<Fp4>("x", 8);
  auto y = g.output<Fp4>("y", 8);
  ntt.inverse(x, 8, y, 3, 8, 1);
  EXPECT_EQ(task_names(g),
            (std::vector<std::string>{"ntt.inverse.stage0", "ntt.inverse.stage1", "ntt.inverse.stage2"}));
  EXPECT_EQ(g.tasks()[0].bindings[1].buffer, y.id());  // odd number of passes: first pass into dst
  Graph g0;
  Ntt ntt0(g0, 0);
  auto a = g0.input<Fp>("a", 3);
  auto b = g0.output<Fp>("b", 3);
  ntt0.forward(a, 0, 1, b, 0, 1, 3);
  EXPECT_EQ(task_names(g0), std::vector<std::string>{"ntt.forward.copy"});
}

TEST(NttGraph, TwoNttsOfOneSizeShareTheTwiddleTable) {
  Graph g;
  Ntt a(g, 10), b(g, 10), c(g, 11);
  EXPECT_EQ(a.twiddles().id(), b.twiddles().id());
  EXPECT_NE(a.twiddles().id(), c.twiddles().id());
  auto x = g.input<Fp>("x", 1024);
  auto y = g.output<Fp>("y", 1024);
  auto z = g.output<Fp>("z", 1024);
  a.forward(x, 10, 1024, y, 10, 1024, 1);
  b.forward(x, 10, 1024, z, 10, 1024, 1);  // second scratch gets its own name
}

TEST(NttGraph, RejectsArgumentsThatDoNotDescribeTheViews) {
  Graph g;
  EXPECT_THROW(Ntt(g, 28), InputError);
  EXPECT_THROW(Ntt(g, 4, {.max_log_radix = 9}), InputError);
  EXPECT_THROW(Ntt(g, 4, {.max_log_radix = 0}), InputError);
  Ntt ntt(g, 8);
  auto x = g.input<Fp>("x", 256);
  auto y = g.output<Fp>("y", 256);
  EXPECT_THROW(ntt.forward(x, 9, 512, y, 9, 512, 1), InputError);             // above max_log_n
  EXPECT_THROW(ntt.forward(x, 5, 32, y, 4, 16, 1), InputError);               // source longer than the transform
  EXPECT_THROW(ntt.forward(x, 8, 256, y, 8, 256, 2), GraphError);             // second column outside the views
  EXPECT_THROW(ntt.forward(x, 4, 8, y, 4, 16, 2), GraphError);                // overlapping source columns
  EXPECT_THROW(ntt.forward(x, 4, 16, y, 4, 16, 0), InputError);               // no columns
  EXPECT_THROW(ntt.forward(y, 4, 16, y.slice(8, 16), 4, 16, 1), GraphError);  // in place
  try {
    ntt.forward(x, 8, 256, y.slice(1, 255), 8, 256, 1, "codeword");
    FAIL() << "expected a GraphError";
  } catch (const GraphError& e) {
    EXPECT_NE(std::string(e.what()).find("codeword"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("'y'"), std::string::npos) << e.what();
  }
  EXPECT_THROW(add_rs_message(g, y, 11, 2048, 2048, 1), InputError);
  EXPECT_THROW(add_rs_message(g, y, 2, 254, 254, 1), InputError);
  EXPECT_THROW(add_subset_zeta(g, y.all(), 8, 256, 1, 3, 9), InputError);
  EXPECT_THROW(add_subset_zeta(g, y.all(), 8, 256, 1, 0, 8, "z", 0), InputError);
  EXPECT_THROW(add_transpose(g, x, y, 16, 17), GraphError);
}

namespace {

constexpr uint32_t kSimdTestMaxLogN = 12;

// Every level up to the processor's, and a guard that puts the level back afterwards.
std::vector<SimdLevel> available_levels() {
  std::vector<SimdLevel> levels;
  for (SimdLevel l : {SimdLevel::Scalar, SimdLevel::Avx2, SimdLevel::Avx512})
    if (l <= detected_simd_level()) levels.push_back(l);
  return levels;
}
struct RestoreSimdLevel {
  SimdLevel saved = cpu_simd_level();
  ~RestoreSimdLevel() { set_cpu_simd_level(saved); }
};

// Forward and inverse transforms of `batch` columns of Fp or Fp4 on the CPU executor, with passes
// of at most max_log_radix stages; the forward one zero-pads columns of 2^(log_n - 1).
template <class T>
std::vector<T> cpu_transforms(Executor& exec, uint32_t log_n, uint32_t batch, uint32_t max_log_radix,
                              const std::vector<T>& x) {
  const uint64_t n = uint64_t(1) << log_n;
  Graph g;
  Ntt ntt(g, kSimdTestMaxLogN, {.max_log_radix = max_log_radix});
  auto in = g.input<T>("x", batch * n);
  auto fwd = g.output<T>("forward", batch * n);
  auto inv = g.output<T>("inverse", batch * n);
  ntt.forward(in, log_n - 1, n, fwd, log_n, n, batch);
  ntt.inverse(in, n, inv, log_n, n, batch);
  auto p = exec.prepare(compile(g));
  p->upload(in, x);
  Trace trace;
  p->run(trace);
  auto out = p->download(fwd);
  auto back = p->download(inv);
  out.insert(out.end(), back.begin(), back.end());
  return out;
}

}  // namespace

TEST(NttCpuSimd, EveryAvailableLevelGivesTheBitsOfTheScalarBody) {
  RestoreSimdLevel restore;
  auto exec = make_executor("cpu");
  prepare_ntt_twiddles(*exec, kSimdTestMaxLogN);
  if (detected_simd_level() < SimdLevel::Avx512) {
    EXPECT_THROW(set_cpu_simd_level(SimdLevel::Avx512), InputError);
  }
  // Sizes with fewer and more groups than a wide block holds, every radix, both fields.
  for (uint32_t log_n : {3u, 4u, 7u, 11u, 12u})
    for (uint32_t radix : {1u, 2u, 3u, 4u, 5u, 6u, 7u, 8u}) {
      const uint32_t batch = 3;
      const uint64_t n = uint64_t(1) << log_n;
      auto x = values(batch * n, 10 * log_n + radix);
      auto xe = ext_values(batch * n, 10 * log_n + radix + 1);
      set_cpu_simd_level(SimdLevel::Scalar);
      const auto want = cpu_transforms(*exec, log_n, batch, radix, x);
      const auto want_e = cpu_transforms(*exec, log_n, batch, radix, xe);
      // The scalar body is the reference: check it once against the host transform.
      for (uint32_t c = 0; c < batch; ++c) {
        std::vector<Fp> col(x.begin() + c * n, x.begin() + c * n + n / 2);
        col.resize(n);
        dft(col);
        ASSERT_TRUE(std::equal(col.begin(), col.end(), want.begin() + c * n))
            << "log_n " << log_n << " radix " << radix;
      }
      for (SimdLevel level : available_levels()) {
        set_cpu_simd_level(level);
        ASSERT_EQ(cpu_simd_level(), level);
        EXPECT_EQ(cpu_transforms(*exec, log_n, batch, radix, x), want)
            << to_string(level) << " log_n " << log_n << " radix " << radix;
        EXPECT_EQ(cpu_transforms(*exec, log_n, batch, radix, xe), want_e)
            << to_string(level) << " Fp4, log_n " << log_n << " radix " << radix;
      }
    }
}

// The RS message of chunks of 16 runs over blocks of SIMD lanes (kernels/cpu/detail/chunk_blocks.inl):
// every level gives the host transform's bits, with a last block of fewer chunks than lanes and
// columns that do not start on a vector boundary.
TEST(RsMessageCpuSimd, EveryAvailableLevelGivesTheHostTransform) {
  RestoreSimdLevel restore;
  auto exec = make_executor("cpu");
  const uint32_t l = 4, batch = 3;
  const uint64_t col_len = uint64_t(37) << l, stride = col_len + 5;
  for (bool inverse : {false, true}) {
    const auto x = values(batch * stride, 300 + inverse);
    std::vector<Fp> want = x;
    for (uint32_t c = 0; c < batch; ++c) {
      std::vector<Fp> col(x.begin() + c * stride, x.begin() + c * stride + col_len);
      if (inverse)
        rs_message_chunks_inverse(col, l);
      else
        rs_message_chunks(col, l);
      std::copy(col.begin(), col.end(), want.begin() + c * stride);
    }
    for (SimdLevel level : available_levels()) {
      set_cpu_simd_level(level);
      Graph g;
      auto data = g.writable_input<Fp>("data", x.size());
      auto out = g.output<Fp>("out", x.size());
      if (inverse)
        add_rs_message_inverse(g, data.all(), l, col_len, stride, batch);
      else
        add_rs_message(g, data.all(), l, col_len, stride, batch);
      g.dispatch<CopyU32>("copy", {.src = data.all().bitcast<uint32_t>(), .dst = out.all().bitcast<uint32_t>()});
      auto p = exec->prepare(compile(g));
      p->upload(data, x);
      Trace trace;
      p->run(trace);
      EXPECT_EQ(p->download(out), want) << to_string(level) << (inverse ? " inverse" : "");
    }
  }
}
