// Parity of the GKR kernels (kernels/gkr.hpp): on each executor the outputs must equal a
// straightforward host reference written here from the headers' formulas, bit for bit. Inputs are
// random with edge values (0, 1, p-1), views sit at offsets inside larger buffers, sizes run over 1,
// 2^k, 2^k - 1 and others where the kernel leaves them free (pairs, partial counts), and over every
// fused layer count of the fraction tree. Bad Args are rejected when the graph is built, with the
// same message on every executor (check()).
#include <algorithm>
#include <bit>
#include <span>
#include <string>
#include <vector>

#include "kernels/gkr.hpp"
#include "tests/parity/executor_fixture.hpp"

using namespace vkstark;
using namespace vkstark::testing;

namespace {

// Host references.

// The fraction tree above 2n nodes, `layers` layers, in the kernel's output order.
void fraction_layers_ref(std::span<const Fp4> p_in, std::span<const Fp4> q_in, uint32_t layers, std::vector<Fp4>& p_out,
                         std::vector<Fp4>& q_out) {
  const uint64_t n = p_in.size() / 2, last = n >> (layers - 1);
  p_out.assign(2 * n - last, Fp4());
  q_out.assign(2 * n - last, Fp4());
  std::vector<Fp4> p(p_in.begin(), p_in.end()), q(q_in.begin(), q_in.end());
  for (uint32_t i = 0; i < layers; ++i) {
    const uint64_t nodes = p.size() / 2;
    std::vector<Fp4> np(nodes), nq(nodes);
    for (uint64_t t = 0; t < nodes; ++t) {
      np[t] = p[2 * t] * q[2 * t + 1] + p[2 * t + 1] * q[2 * t];
      nq[t] = q[2 * t] * q[2 * t + 1];
      p_out[nodes - last + t] = np[t];
      q_out[nodes - last + t] = nq[t];
    }
    p = std::move(np);
    q = std::move(nq);
  }
}

Fp4 eq_ref(uint64_t y, std::span<const Fp4> x) {
  Fp4 e = Fp4::one();
  for (size_t k = 0; k < x.size(); ++k) e *= ((y >> k) & 1) ? x[k] : Fp4::one() - x[k];
  return e;
}

// T(x) = (1 - x) T(0) + x T(1), written differently from the bodies on purpose.
Fp4 line(const Fp4& t0, const Fp4& t1, uint32_t x) {
  const Fp fx = Fp::from_canonical_unchecked(x);
  return t0 * (Fp::one() - fx) + t1 * fx;
}

// partials[3p + x - 1] over the pairs of part p (blocks of 64 at 64 p + k 64 P).
std::vector<Fp4> partials_ref(std::span<const Fp4> p, std::span<const Fp4> q, std::span<const Fp4> eq,
                              const Fp4& lambda, uint64_t pairs, uint64_t parts) {
  std::vector<Fp4> out(3 * parts);
  for (uint64_t y = 0; y < pairs; ++y) {
    const uint64_t part = (y / kGkrLanes) % parts;
    for (uint32_t x = 1; x <= 3; ++x) {
      const Fp4 a = line(p[4 * y], p[4 * y + 2], x), c = line(p[4 * y + 1], p[4 * y + 3], x);
      const Fp4 b = line(q[4 * y], q[4 * y + 2], x), e = line(q[4 * y + 1], q[4 * y + 3], x);
      out[3 * part + x - 1] += eq[y] * (a * e + c * b + lambda * b * e);
    }
  }
  return out;
}

// The fold of the previous sub-round's variable: entry 2z + b from 4z + b and 4z + 2 + b.
std::vector<Fp4> fold_ref(std::span<const Fp4> t, const Fp4& rho) {
  std::vector<Fp4> out(t.size() / 2);
  for (uint64_t i = 0; i < out.size(); ++i) {
    const uint64_t z = i / 2, b = i % 2;
    out[i] = (Fp4::one() - rho) * t[4 * z + b] + rho * t[4 * z + 2 + b];
  }
  return out;
}

std::vector<uint64_t> pair_counts() { return {1, 2, 3, 7, 8, 64, 65, 255, 256, 1000, 4097, 16384}; }

}  // namespace

class GkrKernelsParity : public ExecutorTest {};
VKSTARK_INSTANTIATE_FOR_EXECUTORS(GkrKernelsParity);

TEST_P(GkrKernelsParity, FractionLayersAreTheTreeAboveTheInput) {
  for (uint32_t log_n : {0u, 1u, 2u, 3u, 5u, 6u, 7u, 10u, 13u}) {
    const uint64_t n = uint64_t(1) << log_n;
    for (uint32_t layers = 1; layers <= std::min(kGkrMaxFusedLayers, log_n + 1); ++layers) {
      if (log_n >= 10 && layers != 1 && layers != 4 && layers != kGkrMaxFusedLayers) continue;
      const uint64_t out_n = 2 * n - (n >> (layers - 1));
      Graph g;
      auto p_in = g.input<Fp4>("p_in", 2 * n + 3), q_in = g.input<Fp4>("q_in", 2 * n + 1);
      auto p_out = g.output<Fp4>("p_out", out_n + 2), q_out = g.output<Fp4>("q_out", out_n + 5);
      g.dispatch<GkrFractionLayers>("tree", {.p_in = p_in.slice(3, 2 * n),
                                             .q_in = q_in.slice(1, 2 * n),
                                             .p_out = p_out.slice(2, out_n),
                                             .q_out = q_out.slice(5, out_n),
                                             .layers = layers});
      auto vp = ext_values(p_in.count(), 10 * log_n + layers),
           vq = ext_values(q_in.count(), 1000 + 10 * log_n + layers);
      auto p = run(g, [&](PreparedPlan& pp) {
        pp.upload(p_in, vp);
        pp.upload(q_in, vq);
      });
      std::vector<Fp4> want_p, want_q;
      fraction_layers_ref(std::span<const Fp4>(vp).subspan(3, 2 * n), std::span<const Fp4>(vq).subspan(1, 2 * n),
                          layers, want_p, want_q);
      auto got_p = p->download(p_out), got_q = p->download(q_out);
      ASSERT_EQ(std::vector<Fp4>(got_p.begin() + 2, got_p.end()), want_p) << "n=" << n << " layers=" << layers;
      ASSERT_EQ(std::vector<Fp4>(got_q.begin() + 5, got_q.end()), want_q) << "n=" << n << " layers=" << layers;
    }
  }
}

TEST_P(GkrKernelsParity, EqSuffixTablesHoldEqOverEverySuffix) {
  for (uint32_t n = 0; n <= 12; ++n) {
    const uint64_t size = (uint64_t(2) << n) - 1;
    Graph g;
    auto u = g.input<Fp4>("u", n + 2);
    auto out = g.output<Fp4>("out", size + 1);
    g.dispatch<EqSuffixTables>("eq", {.u = u.slice(2, n), .out = out.slice(1, size), .n = n});
    auto vu = ext_values(u.count(), 77 + n);
    auto p = run(g, [&](PreparedPlan& pp) { pp.upload(u, vu); });
    auto got = p->download(out);
    const std::span<const Fp4> coords = std::span<const Fp4>(vu).subspan(2, n);
    for (uint32_t r = 0; r <= n; ++r)
      for (uint64_t y = 0; y < (uint64_t(1) << r); ++y)
        ASSERT_EQ(got[1 + (uint64_t(1) << r) - 1 + y], eq_ref(y, coords.subspan(n - r, r)))
            << "n=" << n << " r=" << r << " y=" << y;
  }
}

TEST_P(GkrKernelsParity, SumcheckPartialsAreTheRoundPolynomialOfEachPart) {
  for (uint64_t pairs : pair_counts())
    for (uint32_t parts : {sumcheck_partial_count(pairs), 1u, 3u}) {
      Graph g;
      auto p_in = g.input<Fp4>("p", 4 * pairs + 1), q_in = g.input<Fp4>("q", 4 * pairs + 2);
      auto eq = g.input<Fp4>("eq", pairs + 3), lambda = g.input<Fp4>("lambda", 2);
      auto partials = g.output<Fp4>("partials", 3 * parts + 1);
      g.dispatch<GkrSumcheckPartials>("partials", {.p = p_in.slice(1, 4 * pairs),
                                                   .q = q_in.slice(2, 4 * pairs),
                                                   .eq = eq.slice(3, pairs),
                                                   .lambda = lambda.slice(1, 1),
                                                   .partials = partials.slice(1, 3 * parts),
                                                   .pairs = uint32_t(pairs)});
      auto vp = ext_values(p_in.count(), pairs), vq = ext_values(q_in.count(), pairs + 1);
      auto veq = ext_values(eq.count(), pairs + 2), vl = ext_values(2, pairs + 3);
      auto p = run(g, [&](PreparedPlan& pp) {
        pp.upload(p_in, vp);
        pp.upload(q_in, vq);
        pp.upload(eq, veq);
        pp.upload(lambda, vl);
      });
      auto got = p->download(partials);
      auto want = partials_ref(std::span<const Fp4>(vp).subspan(1), std::span<const Fp4>(vq).subspan(2),
                               std::span<const Fp4>(veq).subspan(3), vl[1], pairs, parts);
      ASSERT_EQ(std::vector<Fp4>(got.begin() + 1, got.end()), want) << "pairs=" << pairs << " parts=" << parts;
    }
}

TEST_P(GkrKernelsParity, FoldSumcheckPartialsFoldThenSumTheFoldedTables) {
  for (uint64_t pairs : pair_counts())
    for (uint32_t parts : {sumcheck_partial_count(pairs), 2u}) {
      Graph g;
      auto p_in = g.input<Fp4>("p", 8 * pairs + 1), q_in = g.input<Fp4>("q", 8 * pairs);
      auto eq = g.input<Fp4>("eq", pairs), ch = g.input<Fp4>("challenges", 3);
      auto p_dst = g.output<Fp4>("p_dst", 4 * pairs + 2), q_dst = g.output<Fp4>("q_dst", 4 * pairs);
      auto partials = g.output<Fp4>("partials", 3 * parts);
      g.dispatch<GkrFoldSumcheckPartials>("fold", {.p = p_in.slice(1, 8 * pairs),
                                                   .q = q_in.all(),
                                                   .rho = ch.slice(2, 1),
                                                   .eq = eq.all(),
                                                   .lambda = ch.slice(0, 1),
                                                   .p_dst = p_dst.slice(2, 4 * pairs),
                                                   .q_dst = q_dst.all(),
                                                   .partials = partials.all(),
                                                   .pairs = uint32_t(pairs)});
      auto vp = ext_values(p_in.count(), 5 * pairs), vq = ext_values(q_in.count(), 5 * pairs + 1);
      auto veq = ext_values(eq.count(), 5 * pairs + 2), vch = ext_values(3, 5 * pairs + 3);
      auto p = run(g, [&](PreparedPlan& pp) {
        pp.upload(p_in, vp);
        pp.upload(q_in, vq);
        pp.upload(eq, veq);
        pp.upload(ch, vch);
      });
      const auto want_p = fold_ref(std::span<const Fp4>(vp).subspan(1), vch[2]), want_q = fold_ref(vq, vch[2]);
      auto got_p = p->download(p_dst), got_q = p->download(q_dst);
      ASSERT_EQ(std::vector<Fp4>(got_p.begin() + 2, got_p.end()), want_p) << "pairs=" << pairs;
      ASSERT_EQ(got_q, want_q) << "pairs=" << pairs;
      ASSERT_EQ(p->download(partials), partials_ref(want_p, want_q, veq, vch[0], pairs, parts))
          << "pairs=" << pairs << " parts=" << parts;
    }
}

// Edge tables: all zeros, all ones, all p - 1 (and challenges likewise) give the reference too.
TEST_P(GkrKernelsParity, ConstantTablesOfZeroOneAndMinusOne) {
  for (uint32_t v : {0u, 1u, Fp::P - 1}) {
    const Fp4 x = Fp4(Fp::from_canonical(v), Fp::from_canonical(v), Fp(), Fp::from_canonical(v));
    const uint64_t pairs = 64;
    Graph g;
    auto t = g.input<Fp4>("t", 8 * pairs);
    auto eq = g.input<Fp4>("eq", pairs), ch = g.input<Fp4>("ch", 1);
    auto p_dst = g.output<Fp4>("p_dst", 4 * pairs), q_dst = g.output<Fp4>("q_dst", 4 * pairs);
    auto partials = g.output<Fp4>("partials", 3), tree_p = g.output<Fp4>("tree_p", 8 * pairs - 8 * pairs / 128),
         tree_q = g.output<Fp4>("tree_q", 8 * pairs - 8 * pairs / 128);
    g.dispatch<GkrFoldSumcheckPartials>("fold", {.p = t,
                                                 .q = t,
                                                 .rho = ch,
                                                 .eq = eq,
                                                 .lambda = ch,
                                                 .p_dst = p_dst,
                                                 .q_dst = q_dst,
                                                 .partials = partials,
                                                 .pairs = uint32_t(pairs)});
    g.dispatch<GkrFractionLayers>("tree", {.p_in = t, .q_in = t, .p_out = tree_p, .q_out = tree_q, .layers = 7});
    std::vector<Fp4> vt(8 * pairs, x), veq(pairs, x), vch(1, x);
    auto p = run(g, [&](PreparedPlan& pp) {
      pp.upload(t, vt);
      pp.upload(eq, veq);
      pp.upload(ch, vch);
    });
    const auto folded = fold_ref(vt, x);
    EXPECT_EQ(p->download(p_dst), folded) << v;
    EXPECT_EQ(p->download(partials), partials_ref(folded, folded, veq, x, pairs, 1)) << v;
    std::vector<Fp4> want_p, want_q;
    fraction_layers_ref(vt, vt, 7, want_p, want_q);
    EXPECT_EQ(p->download(tree_p), want_p) << v;
    EXPECT_EQ(p->download(tree_q), want_q) << v;
  }
}

// check(): the message names the problem; the graph refuses the dispatch on every executor.
TEST(GkrKernelsCheck, BadArgsAreRejectedWhenTheGraphIsBuilt) {
  Graph g;
  auto a = g.input<Fp4>("a", 64), o = g.output<Fp4>("o", 64), o2 = g.output<Fp4>("o2", 64);
  auto expect_rejected = [&](auto add, const std::string& text) {
    try {
      add();
      ADD_FAILURE() << "accepted; expected: " << text;
    } catch (const GraphError& e) {
      EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
    }
  };
  expect_rejected(
      [&] {
        g.dispatch<GkrFractionLayers>("t", {.p_in = a.slice(0, 8),
                                            .q_in = a.slice(8, 8),
                                            .p_out = o.slice(0, 7),
                                            .q_out = o2.slice(0, 7),
                                            .layers = 4});
      },
      "last layer would be empty");
  expect_rejected(
      [&] {
        g.dispatch<GkrFractionLayers>("t", {.p_in = a.slice(0, 6),
                                            .q_in = a.slice(8, 6),
                                            .p_out = o.slice(0, 3),
                                            .q_out = o2.slice(0, 3),
                                            .layers = 1});
      },
      "a power of two");
  expect_rejected(
      [&] {
        g.dispatch<GkrFractionLayers>("t", {.p_in = a.slice(0, 8),
                                            .q_in = a.slice(8, 8),
                                            .p_out = o.slice(0, 4),
                                            .q_out = o2.slice(0, 4),
                                            .layers = 0});
      },
      "layers 0");
  expect_rejected([&] { g.dispatch<EqSuffixTables>("e", {.u = a.slice(0, 3), .out = o.slice(0, 8), .n = 3}); },
                  "out has 8 elements, 15 expected");
  expect_rejected(
      [&] {
        g.dispatch<GkrSumcheckPartials>("s", {.p = a.slice(0, 8),
                                              .q = a.slice(8, 8),
                                              .eq = a.slice(16, 2),
                                              .lambda = a.slice(18, 1),
                                              .partials = o.slice(0, 4),
                                              .pairs = 2});
      },
      "not triples");
  expect_rejected(
      [&] {
        g.dispatch<GkrFoldSumcheckPartials>("f", {.p = a.slice(0, 16),
                                                  .q = a.slice(16, 16),
                                                  .rho = a.slice(32, 2),
                                                  .eq = a.slice(36, 2),
                                                  .lambda = a.slice(38, 1),
                                                  .p_dst = o.slice(0, 8),
                                                  .q_dst = o2.slice(0, 8),
                                                  .partials = o.slice(8, 3),
                                                  .pairs = 2});
      },
      "rho has 2 elements, 1 expected");
}
