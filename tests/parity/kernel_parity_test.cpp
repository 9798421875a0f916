// Parity of every arithmetic and hashing kernel: on each executor the output must equal the host
// reference (kernels/field, kernels/hash) bit for bit, on random and edge inputs and sizes 1, 2^k,
// 2^k - 1. Both executors matching the same reference is the CPU-vs-Vulkan parity.
#include "tests/parity/executor_fixture.hpp"

#include <fmt/format.h>

#include "kernels/basic.hpp"
#include "kernels/elementwise.hpp"
#include "kernels/hash/hash.hpp"
#include "kernels/hashing.hpp"

using namespace vkstark;
using namespace vkstark::testing;

class KernelParity : public ExecutorTest {
 protected:
  // Runs one binary kernel on views at offsets inside larger buffers and checks against `ref`.
  template <class K, class T, class Ref>
  void check_binary(std::vector<T> (*gen)(size_t, uint64_t), Ref ref) {
    for (uint32_t n : test_sizes()) {
      Graph g;
      auto a = g.input<T>("a", n + 3);
      auto b = g.input<T>("b", n);
      auto out = g.output<T>("out", n + 1);
      g.dispatch<K>("op", {.a = a.slice(3, n), .b = b, .out = out.slice(1, n)}, Grid{n});
      auto va = gen(n + 3, n), vb = gen(n, n + 100);
      auto p = run(g, [&](PreparedPlan& pp) {
        pp.upload(a, va);
        pp.upload(b, vb);
      });
      auto got = p->download(out);
      for (uint32_t i = 0; i < n; ++i)
        ASSERT_EQ(got[1 + i], ref(va[3 + i], vb[i])) << K::name << " n=" << n << " i=" << i;
    }
  }
};
VKSTARK_INSTANTIATE_FOR_EXECUTORS(KernelParity);

TEST_P(KernelParity, FpAddMatchesHost) {
  check_binary<FpAdd, Fp>(field_values, [](Fp x, Fp y) { return x + y; });
}
TEST_P(KernelParity, FpMulMatchesHost) {
  check_binary<FpMul, Fp>(field_values, [](Fp x, Fp y) { return x * y; });
}
TEST_P(KernelParity, Fp4AddMatchesHost) {
  check_binary<Fp4Add, Fp4>(ext_values, [](const Fp4& x, const Fp4& y) { return x + y; });
}
TEST_P(KernelParity, Fp4MulMatchesHost) {
  check_binary<Fp4Mul, Fp4>(ext_values, [](const Fp4& x, const Fp4& y) { return x * y; });
}

TEST_P(KernelParity, ScalingReadsTheChallengeFromABuffer) {
  for (uint32_t n : test_sizes()) {
    Graph g;
    auto a = g.input<Fp4>("a", n);
    auto c = g.input<Fp4>("challenges", 3);
    auto out = g.output<Fp4>("out", n);
    auto af = g.input<Fp>("af", n);
    auto cf = g.input<Fp>("cf", 2);
    auto outf = g.output<Fp>("outf", n);
    g.dispatch<Fp4Scale>("scale", {.a = a, .c = c.slice(2, 1), .out = out});
    g.dispatch<FpScale>("scale_base", {.a = af, .c = cf.slice(1, 1), .out = outf});
    auto va = ext_values(n, 1), vc = ext_values(3, 2);
    auto vaf = field_values(n, 3), vcf = field_values(2, 4);
    auto p = run(g, [&](PreparedPlan& pp) {
      pp.upload(a, va);
      pp.upload(c, vc);
      pp.upload(af, vaf);
      pp.upload(cf, vcf);
    });
    auto got = p->download(out);
    auto gotf = p->download(outf);
    for (uint32_t i = 0; i < n; ++i) {
      ASSERT_EQ(got[i], va[i] * vc[2]) << "n=" << n << " i=" << i;
      ASSERT_EQ(gotf[i], vaf[i] * vcf[1]) << "n=" << n << " i=" << i;
    }
  }
}

TEST_P(KernelParity, RepeatBroadcastsAndRepeatsAVector) {
  for (uint32_t n : test_sizes()) {
    for (uint32_t period : {1u, 3u, 8u}) {
      Graph g;
      auto a = g.input<Fp4>("a", period + 2);
      auto out = g.output<Fp4>("out", n);
      g.dispatch<Fp4Repeat>("repeat", {.a = a.slice(2, period), .out = out});
      auto va = ext_values(period + 2, 5);
      auto p = run(g, [&](PreparedPlan& pp) { pp.upload(a, va); });
      auto got = p->download(out);
      for (uint32_t i = 0; i < n; ++i) ASSERT_EQ(got[i], va[2 + i % period]) << "n=" << n << " period=" << period;
    }
  }
}

TEST_P(KernelParity, FillAndCopyMoveWords) {
  for (uint32_t n : test_sizes()) {
    Graph g;
    auto src = g.input<uint32_t>("src", n);
    auto out = g.output<uint32_t>("out", 2 * n);
    g.dispatch<FillU32>("fill", {.out = out.slice(n, n), .value = 0xDEADBEEFu});
    g.dispatch<CopyU32>("copy", {.src = src, .dst = out.slice(0, n)});
    std::vector<uint32_t> v(n);
    for (uint32_t i = 0; i < n; ++i) v[i] = i * 2654435761u;
    auto p = run(g, [&](PreparedPlan& pp) { pp.upload(src, v); });
    auto got = p->download(out);
    for (uint32_t i = 0; i < n; ++i) {
      ASSERT_EQ(got[i], v[i]);
      ASSERT_EQ(got[n + i], 0xDEADBEEFu);
    }
  }
}

TEST_P(KernelParity, Poseidon2PermuteMatchesHost) {
  for (uint32_t n : {1u, 2u, 15u, 16u, 17u, 100u}) {
    Graph g;
    auto states = g.input<Fp>("states", 16 * n);
    auto out = g.output<Fp>("out", 16 * n);
    g.dispatch<CopyU32>("copy", {.src = states.all().bitcast<uint32_t>(), .dst = out.all().bitcast<uint32_t>()});
    g.dispatch<Poseidon2Permute>("permute", {.states = out});
    auto v = field_values(16 * n, n);
    // Edge states first: all 0, all p - 1, all 1 (the S-box's signed products at their bounds).
    const uint32_t edges[] = {0, Fp::P - 1, 1};
    for (uint32_t s = 0; s < std::min<uint32_t>(n, 3); ++s)
      std::fill(v.begin() + 16 * s, v.begin() + 16 * s + 16, Fp::from_canonical(edges[s]));
    auto p = run(g, [&](PreparedPlan& pp) { pp.upload(states, v); });
    auto got = p->download(out);
    for (uint32_t s = 0; s < n; ++s) {
      Poseidon2State st;
      std::copy(v.begin() + 16 * s, v.begin() + 16 * s + 16, st.begin());
      poseidon2_permute(st);
      for (int j = 0; j < 16; ++j) ASSERT_EQ(got[16 * s + j], st[j]) << "state " << s << " lane " << j;
    }
  }
}

TEST_P(KernelParity, HashRowsOfRowMajorAndColumnMajorMatrices) {
  // Widths cover the sponge cases: empty, partial block, exact blocks, long rows.
  for (uint32_t width : {0u, 1u, 7u, 8u, 9u, 16u, 42u}) {
    for (uint32_t rows : {1u, 5u, 64u}) {
      Graph g;
      uint32_t n = std::max<uint32_t>(rows * width, 1);
      auto m = g.input<Fp>("m", n);
      auto by_row = g.output<Digest>("by_row", rows);
      auto by_col = g.output<Digest>("by_col", rows);
      g.dispatch<HashRows>("rows", {.matrix = m, .out = by_row, .width = width, .row_stride = width, .col_stride = 1});
      g.dispatch<HashRows>("cols", {.matrix = m, .out = by_col, .width = width, .row_stride = 1, .col_stride = rows});
      auto v = field_values(n, width * 1000 + rows);
      auto p = run(g, [&](PreparedPlan& pp) { pp.upload(m, v); });
      auto got_r = p->download(by_row), got_c = p->download(by_col);
      for (uint32_t r = 0; r < rows; ++r) {
        std::vector<Fp> row_major(width), col_major(width);
        for (uint32_t c = 0; c < width; ++c) {
          row_major[c] = v[r * width + c];
          col_major[c] = v[c * rows + r];
        }
        ASSERT_EQ(got_r[r], hash_slice(std::span<const Fp>(row_major))) << "width " << width << " row " << r;
        ASSERT_EQ(got_c[r], hash_slice(std::span<const Fp>(col_major))) << "width " << width << " row " << r;
      }
    }
  }
}

// A column-major matrix cut into column tiles (each its own buffer), absorbed tile by tile: the
// digests of hashing the whole rows at once, whatever the tile widths (blocks of 8 split across
// tiles included).
TEST_P(KernelParity, HashRowsAbsorbOverColumnTilesIsHashRows) {
  const std::vector<std::vector<uint32_t>> splits = {{1}, {8}, {3, 5}, {5, 4}, {8, 8, 1}, {7, 9, 3, 1, 22}, {1, 1, 1}};
  for (const auto& widths : splits)
    for (uint32_t rows : {1u, 33u}) {
      uint32_t width = 0;
      for (uint32_t w : widths) width += w;
      Graph g;
      std::vector<Buffer<Fp>> tiles;
      for (size_t t = 0; t < widths.size(); ++t)
        tiles.push_back(g.input<Fp>(fmt::format("tile{}", t), widths[t] * rows));
      auto state = g.transient<Fp>("state", 16 * rows);
      auto out = g.output<Digest>("out", rows);
      g.dispatch<FillU32>("state.zero", {.out = state.all().bitcast<uint32_t>(), .value = 0});  // declared, not read
      uint32_t first = 0;
      for (size_t t = 0; t < widths.size(); ++t) {
        const bool last = t + 1 == widths.size();
        g.dispatch<HashRowsAbsorb>(fmt::format("absorb{}", t), {.matrix = tiles[t],
                                                                .state = state,
                                                                .out = last ? out.all() : out.slice(0, 0),
                                                                .width = widths[t],
                                                                .row_stride = 1,
                                                                .col_stride = rows,
                                                                .first_column = first,
                                                                .last = last ? 1u : 0u});
        first += widths[t];
      }
      std::vector<std::vector<Fp>> v;
      for (size_t t = 0; t < widths.size(); ++t) v.push_back(field_values(widths[t] * rows, 77 * t + rows + width));
      auto p = run(g, [&](PreparedPlan& pp) {
        for (size_t t = 0; t < widths.size(); ++t) pp.upload(tiles[t], v[t]);
      });
      const auto got = p->download(out);
      for (uint32_t r = 0; r < rows; ++r) {
        std::vector<Fp> row;
        for (size_t t = 0; t < widths.size(); ++t)
          for (uint32_t c = 0; c < widths[t]; ++c) row.push_back(v[t][c * rows + r]);
        ASSERT_EQ(got[r], hash_slice(std::span<const Fp>(row)))
            << "width " << width << " tiles " << widths.size() << " row " << r;
      }
    }
}

TEST_P(KernelParity, MerkleCompressLevelsRejectsBadShapes) {
  Graph g;
  auto in = g.input<Digest>("in", 8);
  auto out3 = g.output<Digest>("out3", 7), out2 = g.output<Digest>("out2", 5);
  auto rejects = [&](uint32_t levels, View<Digest> out, std::string_view what) {
    try {
      g.dispatch<MerkleCompressLevels>("levels", {.in = in, .out = out, .levels = levels});
      ADD_FAILURE() << "no GraphError for levels " << levels;
    } catch (const GraphError& e) {
      EXPECT_NE(std::string_view(e.what()).find(what), std::string_view::npos) << e.what();
    }
  };
  rejects(0, out3, "levels 0");
  rejects(5, out3, "levels 5");
  rejects(4, out3, "not a positive multiple of 2^levels = 16");
  rejects(3, out2, "out");
  EXPECT_NO_THROW(g.dispatch<MerkleCompressLevels>("ok", {.in = in, .out = out3, .levels = 3}));
}

TEST_P(KernelParity, MerkleCompressLayerAdjacentAndStrided) {
  for (uint32_t out_n : {1u, 4u, 64u}) {
    for (uint32_t stride : {1u, 2u, 4u}) {
      if (stride > out_n) continue;
      Graph g;
      auto leaves = g.input<Digest>("leaves", 2 * out_n);
      auto out = g.output<Digest>("out", out_n);
      g.dispatch<MerkleCompressLayer>("layer", {.in = leaves, .out = out, .stride = stride});
      auto flat = field_values(16 * out_n, out_n + stride);
      std::vector<Digest> v(2 * out_n);
      for (size_t i = 0; i < v.size(); ++i) std::copy(flat.begin() + 8 * i, flat.begin() + 8 * i + 8, v[i].begin());
      auto p = run(g, [&](PreparedPlan& pp) { pp.upload(leaves, v); });
      auto got = p->download(out);
      for (uint32_t i = 0; i < out_n; ++i) {
        uint32_t left = 2 * (i / stride) * stride + i % stride;
        ASSERT_EQ(got[i], compress(v[left], v[left + stride])) << "i " << i << " stride " << stride;
      }
    }
  }
}
