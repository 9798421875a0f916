// Parity of the Merkle-opening kernels (kernels/merkle.hpp) and the WHIR kernels (kernels/whir.hpp):
// on each executor the outputs must equal a straightforward host reference written here (the
// per-entry formulas of the headers) bit for bit. Inputs are random with edge values (0, 1, p-1),
// views sit at offsets inside larger buffers, sizes are 1, 2^k, 2^k - 1 where the kernel leaves
// them free, and m runs from 0 to 12 for the tables. The Merkle openings are gathered from a real
// tree built on the host and verified against its root.
#include <algorithm>
#include <span>
#include <string>
#include <vector>

#include "kernels/basic.hpp"
#include "kernels/hash/hash.hpp"
#include "kernels/merkle.hpp"
#include "kernels/whir.hpp"
#include "tests/parity/executor_fixture.hpp"

using namespace vkstark;
using namespace vkstark::testing;

namespace {

// An Output buffer holding a copy of `in` (for InOut views: Inputs are read-only).
template <class T>
Buffer<T> copy_of(Graph& g, const Buffer<T>& in, const std::string& name) {
  auto out = g.output<T>(name, in.count());
  g.dispatch<CopyU32>(name + ".copy",
                      {.src = in.all().template bitcast<uint32_t>(), .dst = out.all().template bitcast<uint32_t>()});
  return out;
}

std::vector<Fp4> base_values_as_ext(size_t n, uint64_t seed) {
  auto b = field_values(n, seed);
  return {b.begin(), b.end()};
}

std::vector<Digest> digests(size_t n, uint64_t seed) {
  auto flat = field_values(8 * n, seed);
  std::vector<Digest> d(n);
  for (size_t i = 0; i < n; ++i) std::copy(flat.begin() + 8 * i, flat.begin() + 8 * i + 8, d[i].begin());
  return d;
}

// Host references.
Fp4 eq_ref(uint64_t b, std::span<const Fp4> x) {
  Fp4 e = Fp4::one();
  for (size_t k = 0; k < x.size(); ++k) e *= ((b >> k) & 1) ? x[k] : Fp4::one() - x[k];
  return e;
}
Fp4 mobius_eq_ref(uint64_t b, std::span<const Fp4> u) {
  Fp4 e = Fp4::one();
  for (size_t k = 0; k < u.size(); ++k) e *= ((b >> k) & 1) ? u[k] : Fp4::one() - u[k] - u[k];
  return e;
}
std::vector<Fp4> pow_point(const Fp4& z, uint32_t m) {
  std::vector<Fp4> x(m);
  for (uint32_t k = 0; k < m; ++k) x[k] = z.pow(uint64_t(1) << k);
  return x;
}

// Leaf groups as protocol.md 2.4 combines them: adjacent pairs first.
Digest tree_compress(std::vector<Digest> level) {
  while (level.size() > 1) {
    for (size_t i = 0; i < level.size() / 2; ++i) level[i] = compress(level[2 * i], level[2 * i + 1]);
    level.resize(level.size() / 2);
  }
  return level[0];
}

}  // namespace

class WhirKernelsParity : public ExecutorTest {};
VKSTARK_INSTANTIATE_FOR_EXECUTORS(WhirKernelsParity);

// ---------------------------------------------------------------------------------------------
// Merkle openings

TEST_P(WhirKernelsParity, GatherRowsCopiesTheLeafGroupOfEachQuery) {
  for (bool row_major : {false, true})
    for (uint32_t width : {1u, 3u, 8u})
      for (uint32_t log_rows : {0u, 1u, 5u})
        for (uint32_t k : {0u, 1u, 3u}) {
          if (k > log_rows) continue;
          const uint32_t rows = 1u << log_rows, rpq = 1u << k, qs = rows >> k, queries = 7;
          const uint32_t rs = row_major ? width : 1, cs = row_major ? 1 : rows;
          Graph g;
          auto idx = g.input<uint32_t>("idx", queries + 2);
          auto m = g.input<Fp>("m", rows * width + 5);
          auto out = g.output<Fp>("out", queries * rpq * width + 3);
          g.dispatch<GatherRows>("gather", {.idx = idx.slice(2, queries),
                                            .matrix = m.slice(5, rows * width),
                                            .out = out.slice(3, queries * rpq * width),
                                            .width = width,
                                            .rows_per_query = rpq,
                                            .query_stride = qs,
                                            .row_stride = rs,
                                            .col_stride = cs});
          std::vector<uint32_t> vidx(queries + 2);
          for (uint32_t q = 0; q < vidx.size(); ++q) vidx[q] = (q * 2654435761u + log_rows) % qs;
          vidx[2] = qs - 1;  // the last leaf group
          auto vm = field_values(m.count(), 100 * width + 10 * log_rows + k);
          auto p = run(g, [&](PreparedPlan& pp) {
            pp.upload(idx, vidx);
            pp.upload(m, vm);
          });
          auto got = p->download(out);
          for (uint32_t q = 0; q < queries; ++q)
            for (uint32_t t = 0; t < rpq; ++t)
              for (uint32_t c = 0; c < width; ++c)
                ASSERT_EQ(got[3 + (q * rpq + t) * width + c], vm[5 + (vidx[2 + q] + t * qs) * rs + c * cs])
                    << "row_major=" << row_major << " width=" << width << " log_rows=" << log_rows << " k=" << k
                    << " q=" << q << " t=" << t << " c=" << c;
        }
}

// A column tile's rows land at its columns of rows out_stride wide.
TEST_P(WhirKernelsParity, GatherRowsOfAColumnTileFillItsColumnsOfTheRows) {
  const uint32_t rows = 16, width = 3, total = 8, first = 2, rpq = 2, qs = rows / rpq, queries = 5;
  Graph g;
  auto idx = g.input<uint32_t>("idx", queries);
  auto m = g.input<Fp>("m", rows * width);
  auto out = g.output<Fp>("out", queries * rpq * total);
  g.dispatch<FillU32>("zero", {.out = out.all().bitcast<uint32_t>(), .value = 0});
  g.dispatch<GatherRows>("gather", {.idx = idx,
                                    .matrix = m,
                                    .out = out.slice(first, queries * rpq * total - first),
                                    .width = width,
                                    .rows_per_query = rpq,
                                    .query_stride = qs,
                                    .row_stride = 1,
                                    .col_stride = rows,
                                    .out_stride = total});
  const std::vector<uint32_t> vidx = {0, 7, 3, 3, 5};
  const auto vm = field_values(m.count(), 91);
  auto p = run(g, [&](PreparedPlan& pp) {
    pp.upload(idx, vidx);
    pp.upload(m, vm);
  });
  const auto got = p->download(out);
  for (uint32_t i = 0; i < queries * rpq; ++i)
    for (uint32_t c = 0; c < total; ++c) {
      const bool mine = c >= first && c < first + width;
      const Fp want = mine ? vm[(vidx[i / rpq] + (i % rpq) * qs) + (c - first) * rows] : Fp();
      ASSERT_EQ(got[i * total + c], want) << "row " << i << " column " << c;
    }
}

TEST_P(WhirKernelsParity, GatherPathsGivesPathsThatVerifyAgainstTheRoot) {
  for (uint32_t depth : {1u, 2u, 5u, 8u}) {
    const uint32_t leaves = 1u << depth, nodes = 2 * leaves - 1, queries = 13;
    // The tree of kernels/merkle.hpp: layer 0 at [0, leaves), each layer right after the one below.
    std::vector<Digest> tree = digests(leaves, depth);
    for (uint32_t off = 0, n = leaves; n > 1; off += n, n /= 2)
      for (uint32_t i = 0; i < n / 2; ++i) tree.push_back(compress(tree[off + 2 * i], tree[off + 2 * i + 1]));
    ASSERT_EQ(tree.size(), nodes);
    Graph g;
    auto idx = g.input<uint32_t>("idx", queries);
    auto t = g.input<Digest>("tree", nodes + 1);
    auto out = g.output<Digest>("paths", queries * depth + 1);
    g.dispatch<GatherPaths>("paths", {.idx = idx,
                                      .tree = t.slice(1, nodes),
                                      .out = out.slice(1, queries * depth),
                                      .depth = depth,
                                      .leaves = leaves});
    std::vector<uint32_t> vidx(queries);
    for (uint32_t q = 0; q < queries; ++q) vidx[q] = (q * 40503u + 7) % leaves;
    vidx[0] = 0;
    vidx[1] = leaves - 1;
    std::vector<Digest> vt = digests(1, 99);
    vt.insert(vt.end(), tree.begin(), tree.end());
    auto p = run(g, [&](PreparedPlan& pp) {
      pp.upload(idx, vidx);
      pp.upload(t, vt);
    });
    auto got = p->download(out);
    for (uint32_t q = 0; q < queries; ++q) {
      Digest cur = tree[vidx[q]];
      uint32_t node = vidx[q];
      for (uint32_t d = 0; d < depth; ++d, node >>= 1) {
        const Digest& sibling = got[1 + q * depth + d];
        cur = (node & 1) ? compress(sibling, cur) : compress(cur, sibling);
      }
      ASSERT_EQ(cur, tree.back()) << "depth=" << depth << " q=" << q << " idx=" << vidx[q];
    }
  }
}

TEST_P(WhirKernelsParity, GatheredRowsAndPathsOpenARealCommitment) {
  // A column-major matrix committed as protocol.md 2.4 does, opened at a few query indices; the
  // opening is checked the way the verifier checks it.
  for (auto [log_rows, k, width] : {std::tuple{6u, 2u, 5u}, {4u, 4u, 3u}, {7u, 0u, 2u}, {5u, 1u, 16u}}) {
    const uint32_t rows = 1u << log_rows, rpq = 1u << k, qs = rows >> k, depth = log_rows - k, queries = 9;
    auto vm = field_values(rows * width, log_rows);
    std::vector<Digest> row_hash(rows);
    for (uint32_t r = 0; r < rows; ++r) {
      std::vector<Fp> row(width);
      for (uint32_t c = 0; c < width; ++c) row[c] = vm[c * rows + r];
      row_hash[r] = hash_slice(std::span<const Fp>(row));
    }
    std::vector<Digest> tree(qs);
    for (uint32_t q = 0; q < qs; ++q) {
      std::vector<Digest> group(rpq);
      for (uint32_t t = 0; t < rpq; ++t) group[t] = row_hash[q + t * qs];
      tree[q] = tree_compress(group);
    }
    for (uint32_t off = 0, n = qs; n > 1; off += n, n /= 2)
      for (uint32_t i = 0; i < n / 2; ++i) tree.push_back(compress(tree[off + 2 * i], tree[off + 2 * i + 1]));
    const Digest root = tree.back();

    Graph g;
    auto idx = g.input<uint32_t>("idx", queries);
    auto m = g.input<Fp>("m", rows * width);
    auto t = g.input<Digest>("tree", tree.size());
    auto rows_out = g.output<Fp>("rows", queries * rpq * width);
    auto paths_out = g.output<Digest>("paths", std::max(queries * depth, 1u));
    g.dispatch<GatherRows>("rows", {.idx = idx,
                                    .matrix = m,
                                    .out = rows_out,
                                    .width = width,
                                    .rows_per_query = rpq,
                                    .query_stride = qs,
                                    .row_stride = 1,
                                    .col_stride = rows});
    if (depth > 0)
      g.dispatch<GatherPaths>("paths", {.idx = idx, .tree = t, .out = paths_out, .depth = depth, .leaves = qs});
    std::vector<uint32_t> vidx(queries);
    for (uint32_t q = 0; q < queries; ++q) vidx[q] = (q * 2246822519u + 3) % qs;
    auto p = run(g, [&](PreparedPlan& pp) {
      pp.upload(idx, vidx);
      pp.upload(m, vm);
      pp.upload(t, tree);
    });
    auto got_rows = p->download(rows_out);
    auto got_paths = p->download(paths_out);
    for (uint32_t q = 0; q < queries; ++q) {
      std::vector<Digest> group(rpq);
      for (uint32_t r = 0; r < rpq; ++r)
        group[r] = hash_slice(std::span<const Fp>(got_rows.data() + (q * rpq + r) * width, width));
      Digest cur = tree_compress(group);
      uint32_t node = vidx[q];
      for (uint32_t d = 0; d < depth; ++d, node >>= 1) {
        const Digest& sibling = got_paths[q * depth + d];
        cur = (node & 1) ? compress(sibling, cur) : compress(cur, sibling);
      }
      ASSERT_EQ(cur, root) << "log_rows=" << log_rows << " k=" << k << " q=" << q;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Batching, tables, u_cube

TEST_P(WhirKernelsParity, BatchColumnsExtAccumulatesPowersOfMuTimesColumns) {
  for (uint32_t n : test_sizes())
    for (uint32_t width : {0u, 1u, 3u, 42u, 300u})  // 300: more than a workgroup's powers at a time
      for (uint32_t first_power : {0u, 5u}) {
        const uint32_t cs = n + 3;
        Graph g;
        auto m = g.input<Fp>("m", 2 + std::max(width, 1u) * cs);
        auto mu = g.input<Fp4>("mu", 2);
        auto acc_in = g.input<Fp4>("acc_in", n + 1);
        auto acc = copy_of(g, acc_in, "acc");
        g.dispatch<BatchColumnsExt>("batch", {.matrix = m.slice(2, m.count() - 2),
                                              .mu = mu.slice(1, 1),
                                              .acc = acc.slice(1, n),
                                              .width = width,
                                              .col_stride = cs,
                                              .first_power = first_power});
        auto vm = field_values(m.count(), n + width);
        auto vmu = ext_values(2, n);
        auto vacc = ext_values(n + 1, n + 7);
        auto p = run(g, [&](PreparedPlan& pp) {
          pp.upload(m, vm);
          pp.upload(mu, vmu);
          pp.upload(acc_in, vacc);
        });
        auto got = p->download(acc);
        ASSERT_EQ(got[0], vacc[0]);
        for (uint32_t b = 0; b < n; ++b) {
          Fp4 expect = vacc[1 + b];
          for (uint32_t c = 0; c < width; ++c) expect += vmu[1].pow(first_power + c) * vm[2 + c * cs + b];
          ASSERT_EQ(got[1 + b], expect) << "n=" << n << " width=" << width << " first_power=" << first_power
                                        << " b=" << b;
        }
      }
}

// The 16-byte form: columns bound as entries of four rows, the same sums; column strides one run
// of four past the rows and the matrix four entries into its buffer.
TEST_P(WhirKernelsParity, BatchColumnsExtVecMatchesTheFourByteForm) {
  for (uint32_t n : {4u, 8u, 64u, 1024u, 4100u})
    for (uint32_t width : {1u, 3u, 4u, 7u, 42u, 300u})
      for (uint32_t first_power : {0u, 5u}) {
        const uint32_t cs = n + 4;
        Graph g;
        auto m = g.input<Fp>("m", 4 + width * cs);
        auto mu = g.input<Fp4>("mu", 2);
        auto acc_in = g.input<Fp4>("acc_in", n + 4);
        auto acc = copy_of(g, acc_in, "acc");
        g.dispatch<BatchColumnsExtVec>("batch", {.matrix = m.slice(4, width * cs).bitcast<Fp4>(),
                                                 .mu = mu.slice(1, 1),
                                                 .acc = acc.slice(4, n),
                                                 .width = width,
                                                 .col_stride = cs / 4,
                                                 .first_power = first_power});
        auto vm = field_values(m.count(), 7 * n + width);
        auto vmu = ext_values(2, n + 1);
        auto vacc = ext_values(n + 4, n + 9);
        auto p = run(g, [&](PreparedPlan& pp) {
          pp.upload(m, vm);
          pp.upload(mu, vmu);
          pp.upload(acc_in, vacc);
        });
        auto got = p->download(acc);
        for (uint32_t b = 0; b < 4; ++b) ASSERT_EQ(got[b], vacc[b]);
        for (uint32_t b = 0; b < n; ++b) {
          Fp4 expect = vacc[4 + b];
          for (uint32_t c = 0; c < width; ++c) expect += vmu[1].pow(first_power + c) * vm[4 + c * cs + b];
          ASSERT_EQ(got[4 + b], expect) << "n=" << n << " width=" << width << " first_power=" << first_power
                                        << " b=" << b;
        }
      }
}

TEST_P(WhirKernelsParity, BatchColumnsExtVecRefusesRowsNotInFours) {
  Graph g;
  auto m = g.input<Fp>("m", 64);
  auto mu = g.input<Fp4>("mu", 1);
  auto acc = copy_of(g, g.input<Fp4>("acc_in", 6), "acc");
  try {
    g.dispatch<BatchColumnsExtVec>("batch", {.matrix = m.all().bitcast<Fp4>(),
                                             .mu = mu.all(),
                                             .acc = acc.all(),
                                             .width = 2,
                                             .col_stride = 2,
                                             .first_power = 0});
    FAIL() << "accepted 6 rows";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("acc.count 6 is not a multiple of 4"), std::string::npos) << e.what();
  }
}

TEST_P(WhirKernelsParity, EqAndMobiusEqTablesMatchTheProductFormulas) {
  constexpr uint32_t kMaxM = 12;
  Graph g;
  auto u = g.input<Fp4>("u", kMaxM + 1);
  std::vector<Buffer<Fp4>> eq, mob;
  for (uint32_t m = 0; m <= kMaxM; ++m) {
    eq.push_back(g.output<Fp4>("eq" + std::to_string(m), (1u << m) + 1));
    mob.push_back(g.output<Fp4>("mobius" + std::to_string(m), (1u << m) + 1));
    g.dispatch<EqTable>("eq" + std::to_string(m),
                        {.u = u.slice(1, std::max(m, 1u)), .out = eq[m].slice(1, 1u << m), .m = m});
    g.dispatch<MobiusEqTable>("mobius" + std::to_string(m),
                              {.u = u.slice(1, std::max(m, 1u)), .out = mob[m].slice(1, 1u << m), .m = m});
  }
  auto vu = ext_values(kMaxM + 1, 5);
  vu[2] = Fp4::zero();
  vu[3] = Fp4::one();
  vu[4] = Fp4(Fp::from_canonical(Fp::P - 1));
  auto p = run(g, [&](PreparedPlan& pp) { pp.upload(u, vu); });
  for (uint32_t m = 0; m <= kMaxM; ++m) {
    auto got_eq = p->download(eq[m]), got_mob = p->download(mob[m]);
    std::span<const Fp4> um(vu.data() + 1, m);
    for (uint64_t b = 0; b < (1u << m); ++b) {
      ASSERT_EQ(got_eq[1 + b], eq_ref(b, um)) << "m=" << m << " b=" << b;
      ASSERT_EQ(got_mob[1 + b], mobius_eq_ref(b, um)) << "m=" << m << " b=" << b;
    }
  }
}

TEST_P(WhirKernelsParity, UCubeRepeatsTheSquaresOfU0ThenTheRest) {
  for (uint32_t l_skip : {0u, 1u, 2u, 5u})
    for (uint32_t n : {0u, 1u, 4u}) {
      if (l_skip + n == 0) continue;
      Graph g;
      auto u = g.input<Fp4>("u", n + 2);
      auto cube = g.output<Fp4>("cube", l_skip + n + 1);
      g.dispatch<UCube>("cube", {.u = u.slice(1, n + 1), .cube = cube.slice(1, l_skip + n), .l_skip = l_skip});
      auto vu = ext_values(n + 2, 10 * l_skip + n);
      auto p = run(g, [&](PreparedPlan& pp) { pp.upload(u, vu); });
      auto got = p->download(cube);
      for (uint32_t j = 0; j < l_skip; ++j)
        ASSERT_EQ(got[1 + j], vu[1].pow(uint64_t(1) << j)) << "l_skip=" << l_skip << " n=" << n << " j=" << j;
      for (uint32_t i = 1; i <= n; ++i)
        ASSERT_EQ(got[l_skip + i], vu[1 + i]) << "l_skip=" << l_skip << " n=" << n << " i=" << i;
    }
}

// ---------------------------------------------------------------------------------------------
// Sumcheck, reductions, folding

TEST_P(WhirKernelsParity, SumcheckProductPartialsSumBlocksOf64PairsIntoAtMost256Partials) {
  std::vector<std::pair<uint32_t, uint32_t>> cases;  // (half, partials)
  for (uint32_t half : test_sizes())
    for (uint32_t parts : {1u, 3u, sumcheck_partial_count(half)}) cases.emplace_back(half, parts);
  cases.emplace_back(1u << 16, 256u);  // many blocks per partial
  cases.emplace_back(64u * 256u + 1u, 256u);
  cases.emplace_back(1u << 15, 7u);
  for (auto [half, parts] : cases) {
    Graph g;
    auto f = g.input<Fp4>("f", 2 * half + 1);
    auto w = g.input<Fp4>("w", 2 * half + 2);
    auto partials = g.output<Fp4>("partials", 2 * parts + 1);
    g.dispatch<SumcheckProductPartials>("partials", {.f = f.slice(1, 2 * half),
                                                     .w = w.slice(2, 2 * half),
                                                     .partials = partials.slice(1, 2 * parts),
                                                     .pairs = half});
    auto vf = ext_values(f.count(), half), vw = ext_values(w.count(), half + 1);
    auto p = run(g, [&](PreparedPlan& pp) {
      pp.upload(f, vf);
      pp.upload(w, vw);
    });
    auto got = p->download(partials);
    std::vector<Fp4> expect(2 * parts);
    for (uint32_t y = 0; y < half; ++y) {
      const Fp4 f0 = vf[1 + 2 * y], f1 = vf[2 + 2 * y], w0 = vw[2 + 2 * y], w1 = vw[3 + 2 * y];
      const Fp two = Fp::from_canonical(2);
      const uint32_t part = (y / 64) % parts;
      expect[2 * part] += f1 * w1;
      expect[2 * part + 1] += (f0 + two * (f1 - f0)) * (w0 + two * (w1 - w0));
    }
    for (uint32_t i = 0; i < 2 * parts; ++i)
      ASSERT_EQ(got[1 + i], expect[i]) << "half=" << half << " partials=" << parts << " i=" << i;
  }
}

TEST(SumcheckProductPartials, CountsArePerBlockOf64PairsUpTo256) {
  EXPECT_EQ(sumcheck_partial_count(0), 1u);
  EXPECT_EQ(sumcheck_partial_count(1), 1u);
  EXPECT_EQ(sumcheck_partial_count(64), 1u);
  EXPECT_EQ(sumcheck_partial_count(65), 2u);
  EXPECT_EQ(sumcheck_partial_count(64 * 256), 256u);
  EXPECT_EQ(sumcheck_partial_count(uint64_t(1) << 30), 256u);
  Graph g;
  auto f = g.input<Fp4>("f", 2048);
  auto partials = g.transient<Fp4>("partials", 514);
  EXPECT_THROW(g.dispatch<SumcheckProductPartials>("too_many", {.f = f, .w = f, .partials = partials, .pairs = 1024}),
               GraphError);
}

TEST_P(WhirKernelsParity, ReduceFp4SumsEveryGridXthRowPerColumn) {
  std::vector<std::tuple<uint32_t, uint32_t, uint32_t>> cases;  // (n, width, grid)
  for (uint32_t n : test_sizes())
    for (uint32_t width : {1u, 2u, 3u})
      for (uint32_t grid : {1u, 5u, 256u, n}) cases.emplace_back(n, width, grid);
  cases.emplace_back(100000u, 1u, 3u);  // narrow grid over many rows
  cases.emplace_back(20000u, 2u, 1u);
  cases.emplace_back(50000u, 1u, 4096u);
  for (auto [n, width, grid] : cases) {
    Graph g;
    auto in = g.input<Fp4>("in", n * width + 3);
    auto out = g.output<Fp4>("out", grid * width + 1);
    g.dispatch<ReduceFp4>("reduce",
                          {.in = in.slice(3, n * width), .out = out.slice(1, grid * width), .n = n, .width = width});
    auto vin = ext_values(in.count(), n + width);
    auto p = run(g, [&](PreparedPlan& pp) { pp.upload(in, vin); });
    auto got = p->download(out);
    std::vector<Fp4> expect(grid * width);
    for (uint32_t j = 0; j < n; ++j)
      for (uint32_t c = 0; c < width; ++c) expect[(j % grid) * width + c] += vin[3 + j * width + c];
    for (uint32_t i = 0; i < grid * width; ++i)
      ASSERT_EQ(got[1 + i], expect[i]) << "n=" << n << " width=" << width << " grid=" << grid << " i=" << i;
  }
}

TEST_P(WhirKernelsParity, FoldPairsFp4FoldsTheFirstVariable) {
  for (uint32_t n : test_sizes()) {
    Graph g;
    auto src = g.input<Fp4>("src", 2 * n + 1);
    auto alpha = g.input<Fp4>("alpha", 3);
    auto dst = g.output<Fp4>("dst", n + 2);
    g.dispatch<FoldPairsFp4>("fold", {.src = src.slice(1, 2 * n), .alpha = alpha.slice(2, 1), .dst = dst.slice(2, n)});
    auto vsrc = ext_values(src.count(), n), valpha = ext_values(3, n + 1);
    auto p = run(g, [&](PreparedPlan& pp) {
      pp.upload(src, vsrc);
      pp.upload(alpha, valpha);
    });
    auto got = p->download(dst);
    for (uint32_t y = 0; y < n; ++y)
      ASSERT_EQ(got[2 + y], vsrc[1 + 2 * y] + valpha[2] * (vsrc[2 + 2 * y] - vsrc[1 + 2 * y]))
          << "n=" << n << " y=" << y;
  }
}

TEST_P(WhirKernelsParity, FoldPairs2Fp4FoldsBothTablesAtOneAlpha) {
  for (uint32_t n : test_sizes()) {
    Graph g;
    auto f = g.input<Fp4>("f", 2 * n + 1);
    auto w = g.input<Fp4>("w", 2 * n + 3);
    auto alpha = g.input<Fp4>("alpha", 3);
    auto f_dst = g.output<Fp4>("f_dst", n + 2);
    auto w_dst = g.output<Fp4>("w_dst", n);
    g.dispatch<FoldPairs2Fp4>("fold", {.f = f.slice(1, 2 * n),
                                       .w = w.slice(3, 2 * n),
                                       .alpha = alpha.slice(2, 1),
                                       .f_dst = f_dst.slice(2, n),
                                       .w_dst = w_dst});
    auto vf = ext_values(f.count(), n), vw = ext_values(w.count(), n + 7), valpha = ext_values(3, n + 1);
    auto p = run(g, [&](PreparedPlan& pp) {
      pp.upload(f, vf);
      pp.upload(w, vw);
      pp.upload(alpha, valpha);
    });
    auto got_f = p->download(f_dst), got_w = p->download(w_dst);
    const Fp4 a = valpha[2];
    for (uint32_t y = 0; y < n; ++y) {
      ASSERT_EQ(got_f[2 + y], vf[1 + 2 * y] + a * (vf[2 + 2 * y] - vf[1 + 2 * y])) << "n=" << n << " y=" << y;
      ASSERT_EQ(got_w[y], vw[3 + 2 * y] + a * (vw[4 + 2 * y] - vw[3 + 2 * y])) << "n=" << n << " y=" << y;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Univariate evaluation, query points, eq(pow) weights

TEST_P(WhirKernelsParity, EvalPolyPartialsSumToTheValueAtZ) {
  for (uint32_t n : test_sizes())
    for (uint32_t chunk : {1u, 3u, 16u, n}) {
      const uint32_t grid = (n + chunk - 1) / chunk + 2;  // two chunks past the end: zero
      Graph g;
      auto coeffs = g.input<Fp4>("coeffs", n + 1);
      auto z = g.input<Fp4>("z", 2);
      auto partials = g.output<Fp4>("partials", grid + 1);
      g.dispatch<EvalPolyPartials>("eval", {.coeffs = coeffs.slice(1, n),
                                            .z = z.slice(1, 1),
                                            .partials = partials.slice(1, grid),
                                            .n = n,
                                            .chunk = chunk});
      auto vc = ext_values(n + 1, n + chunk), vz = ext_values(2, n);
      auto p = run(g, [&](PreparedPlan& pp) {
        pp.upload(coeffs, vc);
        pp.upload(z, vz);
      });
      auto got = p->download(partials);
      Fp4 total = Fp4::zero(), sum = Fp4::zero(), zj = Fp4::one();
      std::vector<Fp4> expect(grid);
      for (uint32_t j = 0; j < n; ++j, zj *= vz[1]) {
        expect[j / chunk] += vc[1 + j] * zj;
        total += vc[1 + j] * zj;
      }
      for (uint32_t i = 0; i < grid; ++i) {
        ASSERT_EQ(got[1 + i], expect[i]) << "n=" << n << " chunk=" << chunk << " i=" << i;
        sum += got[1 + i];
      }
      ASSERT_EQ(sum, total);
    }
}

TEST_P(WhirKernelsParity, QueryPointsArePowersOfTheDomainGenerator) {
  for (uint32_t log_domain : {0u, 1u, 2u, 5u, 13u, 20u, 27u}) {
    const uint32_t queries = 20;
    Graph g;
    auto idx = g.input<uint32_t>("idx", queries + 1);
    auto points = g.output<Fp4>("points", queries + 2);
    g.dispatch<QueryPoints>(
        "points", {.idx = idx.slice(1, queries), .points = points.slice(2, queries), .log_domain = log_domain});
    std::vector<uint32_t> vidx(queries + 1);
    const uint64_t domain = uint64_t(1) << log_domain;
    for (uint32_t q = 0; q < vidx.size(); ++q) vidx[q] = uint32_t((q * 2654435761ull + log_domain) % domain);
    vidx[1] = 0;
    vidx[2] = uint32_t(domain - 1);
    auto p = run(g, [&](PreparedPlan& pp) { pp.upload(idx, vidx); });
    auto got = p->download(points);
    const Fp gen = two_adic_generator(log_domain);
    for (uint32_t q = 0; q < queries; ++q)
      ASSERT_EQ(got[2 + q], Fp4(gen.pow(vidx[1 + q]))) << "log_domain=" << log_domain << " q=" << q;
  }
}

TEST_P(WhirKernelsParity, EqPowAccumulateAddsGammaWeightedEqOfPowPoints) {
  // Up to 2^10 entries (a workgroup of 256 shares the bits from the eighth up) and 40 points (the
  // Vulkan kernel stages them 16 at a time).
  for (uint32_t m = 0; m <= 10; ++m)
    for (uint32_t num_points : {1u, 2u, 5u, 17u, 40u}) {
      const uint32_t n = 1u << m;
      Graph g;
      auto w_in = g.input<Fp4>("w_in", n + 1);
      auto w = copy_of(g, w_in, "w");
      auto points = g.input<Fp4>("points", num_points + 1);
      auto gamma = g.input<Fp4>("gamma", 2);
      g.dispatch<EqPowAccumulate>(
          "eq_pow", {.w = w.slice(1, n), .points = points.slice(1, num_points), .gamma = gamma.slice(1, 1), .m = m});
      // Point 0 in the extension field (z0), the others mostly base-field query points, with edges.
      auto vp = base_values_as_ext(num_points + 1, 10 * m + num_points);
      auto ext = ext_values(num_points + 1, m);
      vp[1] = ext[1];
      if (num_points >= 5) {
        vp[2] = Fp4::zero();
        vp[3] = Fp4::one();
        vp[4] = ext[4];
      }
      auto vw = ext_values(n + 1, m + 3), vgamma = ext_values(2, num_points);
      auto p = run(g, [&](PreparedPlan& pp) {
        pp.upload(w_in, vw);
        pp.upload(points, vp);
        pp.upload(gamma, vgamma);
      });
      auto got = p->download(w);
      ASSERT_EQ(got[0], vw[0]);
      std::vector<std::vector<Fp4>> pows;
      for (uint32_t i = 0; i < num_points; ++i) pows.push_back(pow_point(vp[1 + i], m));
      for (uint64_t b = 0; b < n; ++b) {
        Fp4 expect = vw[1 + b];
        for (uint32_t i = 0; i < num_points; ++i) expect += vgamma[1].pow(i + 1) * eq_ref(b, pows[i]);
        ASSERT_EQ(got[1 + b], expect) << "m=" << m << " points=" << num_points << " b=" << b;
      }
    }
}
