// The CPU kernels' SIMD paths (kernels/cpu/detail: chunk_blocks, fp4_blocks, ntt_packed) at every
// level the processor has (VKSTARK_CPU_SIMD=avx2|scalar chooses one for a whole run): each
// dispatch below runs at the scalar level, then at every other, and must give the same words. The
// sizes leave vector tails, start views off vector boundaries and cut rows across task ranges. The
// scalar bodies themselves are checked against the host definitions by the parity suites.
#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <random>
#include <vector>

#include "executors/executors.hpp"
#include "kernels/basic.hpp"
#include "kernels/field/simd_level.hpp"
#include "kernels/stacked_reduction.hpp"
#include "kernels/whir.hpp"
#include "runtime/plan.hpp"

using namespace vkstark;

namespace {

std::vector<Fp> base_values(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Fp> v(n);
  for (Fp& x : v) x = Fp::from_canonical_unchecked(uint32_t(rng() % Fp::P));
  if (n > 2) {  // the edges of the field among them
    v[0] = Fp::zero();
    v[1] = -Fp::one();
  }
  return v;
}

std::vector<Fp4> ext_values(size_t n, uint64_t seed) {
  const std::vector<Fp> b = base_values(4 * n, seed);
  std::vector<Fp4> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = Fp4{b[4 * i], b[4 * i + 1], b[4 * i + 2], b[4 * i + 3]};
  return v;
}

template <class T>
std::vector<uint32_t> words_of(const std::vector<T>& v) {
  std::vector<uint32_t> w(v.size() * sizeof(T) / 4);
  std::memcpy(w.data(), v.data(), w.size() * 4);
  return w;
}

// A graph's inputs and how to read its outputs back (as words).
struct Dispatches {
  std::function<void(PreparedPlan&)> upload;
  std::function<std::vector<uint32_t>(const PreparedPlan&)> download;
};

struct RestoreSimdLevel {
  SimdLevel saved = cpu_simd_level();
  ~RestoreSimdLevel() { set_cpu_simd_level(saved); }
};

// `make` builds the graph afresh for each level.
void expect_every_level_gives_the_scalar_words(const std::function<Dispatches(Graph&)>& make) {
  RestoreSimdLevel restore;
  auto exec = make_executor("cpu");
  auto run_at = [&](SimdLevel level) {
    set_cpu_simd_level(level);
    Graph g;
    const Dispatches d = make(g);
    auto p = exec->prepare(compile(g));
    d.upload(*p);
    Trace trace;
    p->run(trace);
    return d.download(*p);
  };
  const std::vector<uint32_t> want = run_at(SimdLevel::Scalar);
  ASSERT_FALSE(want.empty());
  for (SimdLevel level : {SimdLevel::Avx2, SimdLevel::Avx512}) {
    if (level > detected_simd_level()) continue;
    EXPECT_EQ(run_at(level), want) << to_string(level);
  }
}

}  // namespace

TEST(CpuSimd, SliceSumsOfChunksOf16) {
  for (uint32_t log_chunks : {0u, 3u, 6u})
    for (uint32_t log_parts : {0u, 2u}) {
      if (log_parts > log_chunks) continue;
      SCOPED_TRACE(testing::Message() << "log_chunks " << log_chunks << " log_parts " << log_parts);
      const uint64_t slices = 3, c = uint64_t(1) << log_chunks, rows = slices << log_parts;
      expect_every_level_gives_the_scalar_words([&](Graph& g) {
        auto tr = g.input<Fp>("trace", slices * c * 16 + 3);
        auto eq = g.input<Fp4>("eq", c + 1);
        auto out = g.output<Fp4>("out", 2 * rows * 16);
        g.dispatch<StackedRound0SliceSums>("sums", {.trace = tr.slice(3, slices * c * 16),
                                                    .eq = eq.slice(1, c),
                                                    .sums = out.all(),
                                                    .l_skip = 4,
                                                    .log_chunks = log_chunks,
                                                    .log_parts = log_parts});
        return Dispatches{[=](PreparedPlan& p) {
                            p.upload(tr, base_values(tr.count(), 1));
                            p.upload(eq, ext_values(eq.count(), 2));
                          },
                          [=](const PreparedPlan& p) { return words_of(p.download(out)); }};
      });
    }
}

TEST(CpuSimd, FoldChunksAndKernelTable) {
  for (uint32_t log_chunks : {0u, 2u, 7u}) {
    SCOPED_TRACE(testing::Message() << "log_chunks " << log_chunks);
    const uint64_t c = uint64_t(1) << log_chunks, slices = 5;
    expect_every_level_gives_the_scalar_words([&](Graph& g) {
      auto msg = g.input<Fp>("msg", 3 * 16 * c);
      auto w = g.input<Fp4>("w", 17);
      auto eq = g.input<Fp4>("eq", c + 1);
      auto co = g.input<Fp4>("coeffs", 2 * slices + 1);
      auto folded = g.output<Fp4>("folded", 3 * c);
      auto table = g.output<Fp4>("table", slices * c);
      g.dispatch<StackedFoldChunks>("fold", {.message = msg.all(), .weights = w.slice(1, 16), .out = folded.all()});
      g.dispatch<StackedKernelTable>(
          "table",
          {.eq = eq.slice(1, c), .coeffs = co.slice(1, 2 * slices), .table = table.all(), .log_chunks = log_chunks});
      return Dispatches{[=](PreparedPlan& p) {
                          p.upload(msg, base_values(msg.count(), 3));
                          p.upload(w, ext_values(w.count(), 4));
                          p.upload(eq, ext_values(eq.count(), 5));
                          p.upload(co, ext_values(co.count(), 6));
                        },
                        [=](const PreparedPlan& p) {
                          auto a = words_of(p.download(folded)), b = words_of(p.download(table));
                          a.insert(a.end(), b.begin(), b.end());
                          return a;
                        }};
    });
  }
}

TEST(CpuSimd, FoldsAndProductPartialsOfSumcheckPairs) {
  for (uint32_t pairs : {1u, 7u, 64u, 1000u}) {
    SCOPED_TRACE(testing::Message() << "pairs " << pairs);
    expect_every_level_gives_the_scalar_words([&](Graph& g) {
      auto f = g.input<Fp4>("f", 4 * pairs + 1);
      auto w = g.input<Fp4>("w", 4 * pairs + 1);
      auto alpha = g.input<Fp4>("alpha", 1);
      auto fd = g.output<Fp4>("fd", 2 * pairs);
      auto wd = g.output<Fp4>("wd", 2 * pairs);
      auto part = g.output<Fp4>("partials", 2 * 3);
      auto f1 = g.output<Fp4>("f1", 2 * pairs);
      auto f2 = g.output<Fp4>("f2", pairs);
      auto w2 = g.output<Fp4>("w2", pairs);
      auto prod = g.output<Fp4>("products", 2 * 2);
      g.dispatch<StackedFoldPartials>("fold_partials", {.f = f.slice(1, 4 * pairs),
                                                        .w = w.slice(1, 4 * pairs),
                                                        .alpha = alpha.all(),
                                                        .f_dst = fd.all(),
                                                        .w_dst = wd.all(),
                                                        .partials = part.all(),
                                                        .pairs = pairs});
      g.dispatch<FoldPairsFp4>("fold", {.src = f.slice(1, 4 * pairs), .alpha = alpha.all(), .dst = f1.all()});
      g.dispatch<FoldPairs2Fp4>("fold2", {.f = f.slice(1, 2 * pairs),
                                          .w = w.slice(1, 2 * pairs),
                                          .alpha = alpha.all(),
                                          .f_dst = f2.all(),
                                          .w_dst = w2.all()});
      g.dispatch<SumcheckProductPartials>(
          "products", {.f = f.slice(1, 2 * pairs), .w = w.slice(1, 2 * pairs), .partials = prod.all(), .pairs = pairs});
      return Dispatches{[=](PreparedPlan& p) {
                          p.upload(f, ext_values(f.count(), 7));
                          p.upload(w, ext_values(w.count(), 8));
                          p.upload(alpha, ext_values(1, 9));
                        },
                        [=](const PreparedPlan& p) {
                          std::vector<uint32_t> all;
                          for (const Buffer<Fp4>* b : {&fd, &wd, &part, &f1, &f2, &w2, &prod}) {
                            auto x = words_of(p.download(*b));
                            all.insert(all.end(), x.begin(), x.end());
                          }
                          return all;
                        }};
    });
  }
}

TEST(CpuSimd, BatchColumnsExtLazySums) {
  for (uint32_t width : {1u, 4u, 5u, 42u})
    for (uint32_t rows : {3u, 16u, 1000u}) {
      SCOPED_TRACE(testing::Message() << "width " << width << " rows " << rows);
      expect_every_level_gives_the_scalar_words([&](Graph& g) {
        const uint32_t stride = rows + 3;
        auto m = g.input<Fp>("m", uint64_t(width) * stride + 1);
        auto mu = g.input<Fp4>("mu", 1);
        auto acc = g.writable_input<Fp4>("acc", rows);
        auto out = g.output<Fp4>("out", rows);
        g.dispatch<BatchColumnsExt>("batch", {.matrix = m.slice(1, uint64_t(width) * stride),
                                              .mu = mu.all(),
                                              .acc = acc.all(),
                                              .width = width,
                                              .col_stride = stride,
                                              .first_power = 3});
        g.dispatch<CopyU32>("copy", {.src = acc.all().bitcast<uint32_t>(), .dst = out.all().bitcast<uint32_t>()});
        return Dispatches{[=](PreparedPlan& p) {
                            p.upload(m, base_values(m.count(), 10));
                            p.upload(mu, ext_values(1, 11));
                            p.upload(acc, ext_values(rows, 12));
                          },
                          [=](const PreparedPlan& p) { return words_of(p.download(out)); }};
      });
    }
}
