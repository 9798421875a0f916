// Parity of the stacked-reduction kernels (kernels/stacked_reduction.hpp): on each executor the
// outputs must equal a host reference written here bit for bit. The references follow the
// headers' formulas term by term (no per-slice grouping, no incremental powers) or, for the
// univariate kernels, derive the same values another way through stages/common/poly.hpp (eq_D as a
// polynomial product with in_{l,n}, eq_D at points). Inputs are random with edge values (0, 1,
// p-1), views sit at offsets inside larger buffers, and l_skip, heights, slice and part counts are
// small, including the degenerate ones (l_skip 0, one chunk per slice, one part). Round 0's chain
// on the trace is also checked against its former definition on the RS message (dft.hpp).
#include <algorithm>
#include <span>
#include <string>
#include <vector>

#include "kernels/basic.hpp"
#include "kernels/field/dft.hpp"
#include "kernels/stacked_reduction.hpp"
#include "stages/common/poly.hpp"
#include "tests/parity/executor_fixture.hpp"

using namespace vkstark;
using namespace vkstark::testing;

namespace {

Fp inv_pow2(uint32_t k) { return Fp::from_canonical(2).inverse().pow(k); }

// Polynomial product, coefficients low first.
std::vector<Fp4> poly_mul(const std::vector<Fp4>& a, const std::vector<Fp4>& b) {
  std::vector<Fp4> c(a.size() + b.size() - 1);
  for (size_t i = 0; i < a.size(); ++i)
    for (size_t j = 0; j < b.size(); ++j) c[i + j] += a[i] * b[j];
  return c;
}

// Coefficients of in_{l,n}(Z) = eq_D^(-n)(Z^(2^(l+n)), 1) = 2^n sum_{k < 2^-n} Z^(k 2^(l+n)); 1 for n >= 0.
std::vector<Fp4> in_poly(uint32_t l, uint32_t h) {
  if (h >= l) return {Fp4::one()};
  std::vector<Fp4> c((uint64_t(1) << l) - (uint64_t(1) << h) + 1);
  for (uint64_t k = 0; k < (uint64_t(1) << (l - h)); ++k) c[k << h] = Fp4(inv_pow2(l - h));
  return c;
}

// iDFT_N by its definition: a[k] = N^-1 sum_i v[i] omega^(-i k), omega = two_adic_generator(log2 N).
std::vector<Fp4> naive_idft(const std::vector<Fp4>& v, uint32_t l) {
  const uint64_t n = v.size();
  const Fp omega_inv = two_adic_generator(l).inverse();
  std::vector<Fp4> a(n);
  for (uint64_t k = 0; k < n; ++k) {
    for (uint64_t i = 0; i < n; ++i) a[k] += v[i] * omega_inv.pow((i * k) % n);
    a[k] = a[k] * inv_pow2(l);
  }
  return a;
}

// Slice weights of the header, with pow.
std::vector<Fp4> slice_weights(const Fp4& lambda, const std::vector<uint32_t>& rot) {
  std::vector<Fp4> w(2 * rot.size());
  for (size_t i = 0; i < rot.size(); ++i) {
    w[2 * i] = lambda.pow(2 * i);
    w[2 * i + 1] = rot[i] ? lambda.pow(2 * i + 1) : Fp4::zero();
  }
  return w;
}

// The D coordinate of the lifted point of a trace of height 2^h (lifted_point's L and rs[0]).
LiftedPoint d_point(uint32_t l, uint32_t h, const Fp4& r0) {
  std::vector<Fp4> r(1 + (h > l ? h - l : 0));
  r[0] = r0;
  LiftedPoint p = lifted_point(l, int32_t(h) - int32_t(l), r);
  p.rs.resize(1);
  return p;
}

std::vector<uint32_t> flags(size_t n, uint64_t seed) {
  std::vector<uint32_t> f(n);
  for (size_t i = 0; i < n; ++i) f[i] = ((i * 7 + seed) % 3) != 0 ? 1u : 0u;
  if (n > 0) f[0] = 1;
  if (n > 1) f[1] = 0;
  return f;
}

}  // namespace

class StackedReductionParity : public ExecutorTest {};
VKSTARK_INSTANTIATE_FOR_EXECUTORS(StackedReductionParity);

TEST_P(StackedReductionParity, SliceWeightsArePowersOfLambdaWithoutUnusedRotations) {
  for (uint32_t slices : {1u, 2u, 3u, 7u, 64u, 1000u}) {
    Graph g;
    auto lambda = g.input<Fp4>("lambda", 2);
    auto rot = g.input<uint32_t>("rot", slices + 1);
    auto w = g.output<Fp4>("w", 2 * slices + 3);
    g.dispatch<StackedSliceWeights>(
        "weights", {.lambda = lambda.slice(1, 1), .rot = rot.slice(1, slices), .weights = w.slice(3, 2 * slices)});
    auto vl = ext_values(2, slices);
    if (slices == 2) vl[1] = Fp4(Fp::from_canonical(Fp::P - 1));
    if (slices == 3) vl[1] = Fp4::zero();
    std::vector<uint32_t> vr = flags(slices + 1, slices);
    auto p = run(g, [&](PreparedPlan& pp) {
      pp.upload(lambda, vl);
      pp.upload(rot, vr);
    });
    auto got = p->download(w);
    const std::vector<Fp4> expect = slice_weights(vl[1], std::vector<uint32_t>(vr.begin() + 1, vr.end()));
    for (uint32_t i = 0; i < 2 * slices; ++i) ASSERT_EQ(got[3 + i], expect[i]) << "slices=" << slices << " i=" << i;
  }
}

TEST(StackedReductionKernels, PartCountHelpersFollowTheirBounds) {
  EXPECT_EQ(stacked_round0_log_parts(1, 0), 0u);
  EXPECT_EQ(stacked_round0_log_parts(3, 8), 0u);
  EXPECT_EQ(stacked_round0_log_parts(1, 9), 1u);
  EXPECT_EQ(stacked_round0_log_parts(1, 24), 16u);
  EXPECT_EQ(stacked_round0_log_parts(5, 20), 12u);    // 2^16 / 5 = 13107: 13 bits allowed, 12 by chunks
  EXPECT_EQ(stacked_round0_log_parts(1000, 20), 6u);  // 2^16 / 1000 = 65
  EXPECT_EQ(stacked_round0_log_parts(uint64_t(1) << 17, 20), 0u);
  EXPECT_EQ(stacked_round0_weigh_parts(1, 0), 1u);
  EXPECT_EQ(stacked_round0_weigh_parts(17, 0), 3u);
  EXPECT_EQ(stacked_round0_weigh_parts(uint64_t(1) << 20, 4), 4096u);
  EXPECT_EQ(stacked_round0_weigh_parts(uint64_t(1) << 20, 10), 64u);
}

TEST_P(StackedReductionParity, Round0SliceSumsAddEachPartsChunksUnderEAndD) {
  for (uint32_t l : {0u, 1u, 2u, 3u, 4u})
    for (uint32_t log_chunks : {0u, 1u, 3u, 9u})
      for (uint32_t slices : {1u, 2u, 5u}) {
        std::vector<uint32_t> log_parts_set;
        for (uint32_t lp : {0u, 1u, log_chunks, stacked_round0_log_parts(slices, log_chunks)})
          if (lp <= log_chunks && std::find(log_parts_set.begin(), log_parts_set.end(), lp) == log_parts_set.end())
            log_parts_set.push_back(lp);
        for (uint32_t log_parts : log_parts_set) {
          const uint64_t n = uint64_t(1) << l, c = uint64_t(1) << log_chunks, q = uint64_t(1) << log_parts;
          const uint64_t rows = slices * q;
          Graph g;
          auto tr = g.input<Fp>("trace", slices * c * n + 3);
          auto eq = g.input<Fp4>("eq", c + 1);
          auto out = g.output<Fp4>("out", 2 * rows * n + 1);
          g.dispatch<StackedRound0SliceSums>("slice_sums", {.trace = tr.slice(3, slices * c * n),
                                                            .eq = eq.slice(1, c),
                                                            .sums = out.slice(1, 2 * rows * n),
                                                            .l_skip = l,
                                                            .log_chunks = log_chunks,
                                                            .log_parts = log_parts});
          const uint64_t seed = 1000 * l + 100 * log_chunks + 10 * slices + log_parts;
          auto vt = field_values(tr.count(), seed);
          auto ve = ext_values(eq.count(), seed + 1);
          auto p = run(g, [&](PreparedPlan& pp) {
            pp.upload(tr, vt);
            pp.upload(eq, ve);
          });
          auto got = p->download(out);
          const uint64_t per_part = c / q;
          for (uint64_t row = 0; row < rows; ++row)
            for (uint64_t s = 0; s < n; ++s) {
              const uint64_t k = row / q, j = row % q;
              Fp4 se, sd;
              for (uint64_t x = j * per_part; x < (j + 1) * per_part; ++x) {
                const Fp4 e = ve[1 + x], d = ve[1 + (x + c - 1) % c] - e;
                const Fp v = vt[3 + (k * c + x) * n + s];
                se += e * v;
                sd += d * v;
              }
              ASSERT_EQ(got[1 + 2 * row * n + s], se)
                  << "l=" << l << " log_chunks=" << log_chunks << " log_parts=" << log_parts << " row=" << row;
              ASSERT_EQ(got[1 + (2 * row + 1) * n + s], sd)
                  << "l=" << l << " log_chunks=" << log_chunks << " log_parts=" << log_parts << " row=" << row;
            }
        }
      }
}

TEST_P(StackedReductionParity, Round0WeighSumsTheWeightedRowsPerPart) {
  for (uint32_t l : {0u, 1u, 3u})
    for (uint32_t log_parts : {0u, 1u, 3u})
      for (uint32_t slices : {1u, 2u, 5u}) {
        const uint64_t n = uint64_t(1) << l, rows = uint64_t(slices) << log_parts;
        for (uint32_t parts : {1u, 3u, stacked_round0_weigh_parts(rows, l), uint32_t(rows) + 2}) {
          Graph g;
          auto in = g.input<Fp4>("sums", 2 * rows * n + 2);
          auto w = g.input<Fp4>("w", 2 * slices + 1);
          auto out = g.output<Fp4>("out", 3 * parts * n + 1);
          g.dispatch<StackedRound0Weigh>("weigh", {.sums = in.slice(2, 2 * rows * n),
                                                   .weights = w.slice(1, 2 * slices),
                                                   .partials = out.slice(1, 3 * parts * n),
                                                   .l_skip = l,
                                                   .log_parts = log_parts});
          const uint64_t seed = 1000 * l + 100 * log_parts + 10 * slices + parts;
          auto vi = ext_values(in.count(), seed);
          auto vw = ext_values(w.count(), seed + 1);
          vw[2] = Fp4::zero();  // a slice without rotation
          auto p = run(g, [&](PreparedPlan& pp) {
            pp.upload(in, vi);
            pp.upload(w, vw);
          });
          auto got = p->download(out);
          for (uint64_t pp = 0; pp < parts; ++pp)
            for (uint64_t s = 0; s < n; ++s) {
              Fp4 e0, e1, e2;
              for (uint64_t row = 0; row < rows; ++row) {
                if (row % parts != pp) continue;
                const uint64_t k = row / (uint64_t(1) << log_parts);
                const Fp4 se = vi[2 + 2 * row * n + s], sd = vi[2 + (2 * row + 1) * n + s];
                e0 += vw[1 + 2 * k] * se;
                e1 += vw[2 + 2 * k] * se;
                e2 += vw[2 + 2 * k] * sd;
              }
              const std::string at = "l=" + std::to_string(l) + " log_parts=" + std::to_string(log_parts) +
                                     " slices=" + std::to_string(slices) + " parts=" + std::to_string(parts) +
                                     " p=" + std::to_string(pp) + " s=" + std::to_string(s);
              ASSERT_EQ(got[1 + 3 * pp * n + s], e0) << at;
              ASSERT_EQ(got[1 + (3 * pp + 1) * n + s], e1) << at;
              ASSERT_EQ(got[1 + (3 * pp + 2) * n + s], e2) << at;
            }
        }
      }
}

TEST_P(StackedReductionParity, Round0SumsAddThePartsAndInverseDft) {
  for (uint32_t l : {0u, 1u, 2u, 4u})
    for (uint32_t parts : {1u, 2u, 32u}) {
      const uint64_t n = uint64_t(1) << l;
      Graph g;
      auto in = g.input<Fp4>("in", 3 * parts * n + 2);
      auto out = g.output<Fp4>("out", 3 * n + 1);
      g.dispatch<StackedRound0Sums>("sums",
                                    {.partials = in.slice(2, 3 * parts * n), .sums = out.slice(1, 3 * n), .l_skip = l});
      auto vi = ext_values(in.count(), 10 * l + parts);
      auto p = run(g, [&](PreparedPlan& pp) { pp.upload(in, vi); });
      auto got = p->download(out);
      for (uint64_t t = 0; t < 3; ++t) {
        std::vector<Fp4> v(n);
        for (uint64_t pp = 0; pp < parts; ++pp)
          for (uint64_t s = 0; s < n; ++s) v[s] += vi[2 + (3 * pp + t) * n + s];
        const std::vector<Fp4> expect = naive_idft(v, l);
        for (uint64_t a = 0; a < n; ++a)
          ASSERT_EQ(got[1 + t * n + a], expect[a]) << "l=" << l << " parts=" << parts << " t=" << t << " a=" << a;
      }
    }
}

// The round-0 chain on the trace in evaluation form gives the sums of the former definition on
// the RS message: per chunk subset-zeta(iDFT_N(trace chunk)) (rs_message_chunks), the weighted
// chunk sums W_t of the header, then the subset-Möbius transform over the l bits; and so does the
// chain on the RS message with StackedRound0Sums::mobius.
TEST_P(StackedReductionParity, Round0ChainOnTheTraceEqualsMobiusOfMessageSums) {
  for (uint32_t l : {0u, 2u, 3u})
    for (uint32_t log_chunks : {0u, 2u, 9u})
      for (uint32_t slices : {1u, 3u}) {
        const uint64_t n = uint64_t(1) << l, c = uint64_t(1) << log_chunks;
        const uint32_t log_parts = stacked_round0_log_parts(slices, log_chunks);
        const uint64_t rows = uint64_t(slices) << log_parts;
        const uint32_t parts = stacked_round0_weigh_parts(rows, l);
        Graph g;
        auto tr = g.input<Fp>("trace", slices * c * n + 1);
        auto eq = g.input<Fp4>("eq", c);
        auto w = g.input<Fp4>("w", 2 * slices);
        auto rs = g.transient<Fp4>("rows", 2 * rows * n);
        auto partials = g.transient<Fp4>("partials", 3 * parts * n);
        auto out = g.output<Fp4>("out", 3 * n);
        auto message = g.input<Fp>("message", slices * c * n);
        auto rs_m = g.transient<Fp4>("rows.message", 2 * rows * n);
        auto partials_m = g.transient<Fp4>("partials.message", 3 * parts * n);
        auto out_m = g.output<Fp4>("out.message", 3 * n);
        g.dispatch<StackedRound0SliceSums>(
            "slice_sums.message",
            {.trace = message, .eq = eq, .sums = rs_m, .l_skip = l, .log_chunks = log_chunks, .log_parts = log_parts});
        g.dispatch<StackedRound0Weigh>(
            "weigh.message", {.sums = rs_m, .weights = w, .partials = partials_m, .l_skip = l, .log_parts = log_parts});
        g.dispatch<StackedRound0Sums>("sums.message",
                                      {.partials = partials_m, .sums = out_m, .l_skip = l, .mobius = 1});
        g.dispatch<StackedRound0SliceSums>("slice_sums", {.trace = tr.slice(1, slices * c * n),
                                                          .eq = eq,
                                                          .sums = rs,
                                                          .l_skip = l,
                                                          .log_chunks = log_chunks,
                                                          .log_parts = log_parts});
        g.dispatch<StackedRound0Weigh>(
            "weigh", {.sums = rs, .weights = w, .partials = partials, .l_skip = l, .log_parts = log_parts});
        g.dispatch<StackedRound0Sums>("sums", {.partials = partials, .sums = out, .l_skip = l});
        const uint64_t seed = 100 * l + 10 * log_chunks + slices;
        auto vt = field_values(tr.count(), seed);
        auto ve = ext_values(c, seed + 1);
        auto vw = ext_values(2 * slices, seed + 2);
        vw[1] = Fp4::zero();
        std::vector<Fp> msg(vt.begin() + 1, vt.end());
        rs_message_chunks(msg, l);
        auto p = run(g, [&](PreparedPlan& pp) {
          pp.upload(tr, vt);
          pp.upload(eq, ve);
          pp.upload(w, vw);
          pp.upload(message, msg);
        });
        auto got = p->download(out);
        auto got_m = p->download(out_m);
        std::vector<Fp4> expect(3 * n);
        for (uint64_t k = 0; k < slices; ++k)
          for (uint64_t x = 0; x < c; ++x) {
            const Fp4 e = ve[x], d = ve[(x + c - 1) % c] - e;
            const Fp4 wt[3] = {vw[2 * k] * e, vw[2 * k + 1] * e, vw[2 * k + 1] * d};
            for (uint64_t t = 0; t < 3; ++t)
              for (uint64_t s = 0; s < n; ++s) expect[t * n + s] += wt[t] * msg[(k * c + x) * n + s];
          }
        for (uint64_t t = 0; t < 3; ++t) subset_mobius(std::span<Fp4>(expect).subspan(t * n, n), 0, l);
        for (uint64_t i = 0; i < 3 * n; ++i) {
          ASSERT_EQ(got[i], expect[i]) << "l=" << l << " log_chunks=" << log_chunks << " slices=" << slices
                                       << " i=" << i;
          ASSERT_EQ(got_m[i], expect[i]) << "over the message: l=" << l << " log_chunks=" << log_chunks
                                         << " slices=" << slices << " i=" << i;
        }
      }
}

TEST_P(StackedReductionParity, Round0PolyMultipliesEachClassByItsKernels) {
  for (uint32_t l : {0u, 1u, 2u, 3u})
    for (std::vector<uint32_t> classes : {std::vector<uint32_t>{l}, std::vector<uint32_t>{l + 3, l + 1, l},
                                          std::vector<uint32_t>{l + 2, l, l / 2, 0}}) {
      const uint64_t n = uint64_t(1) << l, h_count = classes.size();
      Graph g;
      auto cls = g.input<uint32_t>("classes", h_count + 1);
      auto r = g.input<Fp4>("r", 3);
      auto sums = g.input<Fp4>("sums", 3 * n * h_count + 1);
      auto out = g.output<Fp4>("out", 2 * n);
      g.dispatch<StackedRound0Poly>("poly", {.classes = cls.slice(1, h_count),
                                             .r = r.slice(1, 2),
                                             .sums = sums.slice(1, 3 * n * h_count),
                                             .coeffs = out.slice(1, 2 * n - 1),
                                             .l_skip = l});
      std::vector<uint32_t> vc = {99};
      vc.insert(vc.end(), classes.begin(), classes.end());
      const uint64_t seed = 10 * l + h_count;
      auto vr = ext_values(3, seed);
      auto vs = ext_values(sums.count(), seed + 1);
      auto p = run(g, [&](PreparedPlan& pp) {
        pp.upload(cls, vc);
        pp.upload(r, vr);
        pp.upload(sums, vs);
      });
      auto got = p->download(out);
      // Reference: per class, in_h(Z) eq_D^(L)(y, Z) as a product of polynomials (eq_uni_poly), the
      // rotated one at omega_L y, and eq_D(omega_l r_0, 1) eq_D(Z, 1).
      const Fp4 r0 = vr[1];
      std::vector<Fp4> expect(2 * n - 1);
      const Fp4 kd = eval_eq_uni_at_one(l, r0 * two_adic_generator(l));
      for (uint64_t h = 0; h < h_count; ++h) {
        const LiftedPoint lp = d_point(l, classes[h], r0);
        const std::vector<Fp4> in = in_poly(l, classes[h]);
        const std::vector<Fp4> keq = poly_mul(in, eq_uni_poly(lp.L, lp.rs[0]));
        const std::vector<Fp4> krot = poly_mul(in, eq_uni_poly(lp.L, lp.rs[0] * two_adic_generator(lp.L)));
        std::vector<Fp4> kdp(n, kd * inv_pow2(l));
        const Fp4* v = vs.data() + 1 + 3 * n * h;
        const std::vector<Fp4> v0(v, v + n), v1(v + n, v + 2 * n), v2(v + 2 * n, v + 3 * n);
        for (const auto& [vv, kk] : {std::pair{&v0, &keq}, {&v1, &krot}, {&v2, &kdp}}) {
          const std::vector<Fp4> prod = poly_mul(*vv, *kk);
          ASSERT_LE(prod.size(), 2 * n - 1);
          for (size_t m = 0; m < prod.size(); ++m) expect[m] += prod[m];
        }
      }
      for (uint64_t m = 0; m < 2 * n - 1; ++m) ASSERT_EQ(got[1 + m], expect[m]) << "l=" << l << " m=" << m;
      // And as values: at a random z, the kernels evaluated directly.
      const Fp4 z = ext_values(1, seed + 2)[0];
      Fp4 at_z;
      for (uint64_t h = 0; h < h_count; ++h) {
        const int32_t nn = int32_t(classes[h]) - int32_t(l);
        const LiftedPoint lp = d_point(l, classes[h], r0);
        const Fp4* v = vs.data() + 1 + 3 * n * h;
        const Fp4 in = eval_in_uni(l, nn, z);
        at_z +=
            horner(std::span<const Fp4>(v, n), z) * in * eval_eq_uni(lp.L, z, lp.rs[0]) +
            horner(std::span<const Fp4>(v + n, n), z) * in * eval_eq_uni(lp.L, z, lp.rs[0] * two_adic_generator(lp.L)) +
            horner(std::span<const Fp4>(v + 2 * n, n), z) * kd * eval_eq_uni_at_one(l, z);
      }
      EXPECT_EQ(horner(std::span<const Fp4>(got.data() + 1, 2 * n - 1), z), at_z) << "l=" << l;
    }
}

TEST_P(StackedReductionParity, FoldWeightsAreEqOfTheBitsAtThePowersOfZ) {
  for (uint32_t l : {0u, 1u, 3u, 6u}) {
    Graph g;
    auto z = g.input<Fp4>("z", 2);
    auto out = g.output<Fp4>("out", (1u << l) + 1);
    g.dispatch<StackedFoldWeights>("weights", {.z = z.slice(1, 1), .out = out.slice(1, 1u << l), .l_skip = l});
    auto vz = ext_values(2, l);
    if (l == 1) vz[1] = Fp4::one();
    auto p = run(g, [&](PreparedPlan& pp) { pp.upload(z, vz); });
    auto got = p->download(out);
    for (uint64_t b = 0; b < (1u << l); ++b) {
      Fp4 e = Fp4::one();
      for (uint32_t k = 0; k < l; ++k) {
        const Fp4 x = vz[1].pow(uint64_t(1) << k);
        e *= ((b >> k) & 1) ? x : Fp4::one() - x;
      }
      ASSERT_EQ(got[1 + b], e) << "l=" << l << " b=" << b;
    }
  }
}

TEST_P(StackedReductionParity, FoldChunksDotsEachChunkWithTheWeights) {
  for (uint32_t n : {1u, 2u, 4u, 16u})
    for (uint32_t chunks : test_sizes()) {
      Graph g;
      auto msg = g.input<Fp>("msg", chunks * n + 1);
      auto w = g.input<Fp4>("w", n + 2);
      auto out = g.output<Fp4>("out", chunks + 1);
      g.dispatch<StackedFoldChunks>(
          "fold", {.message = msg.slice(1, chunks * n), .weights = w.slice(2, n), .out = out.slice(1, chunks)});
      auto vm = field_values(msg.count(), n + chunks);
      auto vw = ext_values(w.count(), n);
      auto p = run(g, [&](PreparedPlan& pp) {
        pp.upload(msg, vm);
        pp.upload(w, vw);
      });
      auto got = p->download(out);
      for (uint64_t j = 0; j < chunks; ++j) {
        Fp4 e;
        for (uint64_t s = 0; s < n; ++s) e += vw[2 + s] * vm[1 + j * n + s];
        ASSERT_EQ(got[1 + j], e) << "n=" << n << " chunks=" << chunks << " j=" << j;
      }
    }
}

TEST_P(StackedReductionParity, SliceCoeffsAreTheKernelsAtU0) {
  for (uint32_t l : {0u, 1u, 2u, 4u}) {
    std::vector<uint32_t> heights;
    for (uint32_t h = 0; h <= l + 3; ++h) heights.push_back(h);
    heights.push_back(l);
    const uint64_t s = heights.size();
    Graph g;
    auto lh = g.input<uint32_t>("heights", s + 1);
    auto r = g.input<Fp4>("r", 2);
    auto u = g.input<Fp4>("u", 3);
    auto w = g.input<Fp4>("w", 2 * s + 1);
    auto out = g.output<Fp4>("out", 2 * s + 2);
    g.dispatch<StackedSliceCoeffs>("coeffs", {.log_heights = lh.slice(1, s),
                                              .r = r.slice(1, 1),
                                              .u = u.slice(2, 1),
                                              .weights = w.slice(1, 2 * s),
                                              .coeffs = out.slice(2, 2 * s),
                                              .l_skip = l});
    std::vector<uint32_t> vh = {7};
    vh.insert(vh.end(), heights.begin(), heights.end());
    auto vr = ext_values(2, l), vu = ext_values(3, l + 1), vw = ext_values(w.count(), l + 2);
    vw[2] = Fp4::zero();
    auto p = run(g, [&](PreparedPlan& pp) {
      pp.upload(lh, vh);
      pp.upload(r, vr);
      pp.upload(u, vu);
      pp.upload(w, vw);
    });
    auto got = p->download(out);
    const Fp4 r0 = vr[1], u0 = vu[2];
    for (uint64_t i = 0; i < s; ++i) {
      const int32_t nn = int32_t(heights[i]) - int32_t(l);
      const LiftedPoint lp = d_point(l, heights[i], r0);
      const Fp4 in = eval_in_uni(l, nn, u0);
      const Fp4 a = in * (vw[1 + 2 * i] * eval_eq_uni(lp.L, u0, lp.rs[0]) +
                          vw[2 + 2 * i] * eval_eq_uni(lp.L, u0, lp.rs[0] * two_adic_generator(lp.L)));
      const Fp4 b = nn >= 1 ? vw[2 + 2 * i] * eval_eq_uni(l, u0, Fp4::one()) *
                                  eval_eq_uni(l, r0 * two_adic_generator(l), Fp4::one())
                            : Fp4::zero();
      ASSERT_EQ(got[2 + 2 * i], a) << "l=" << l << " h=" << heights[i];
      ASSERT_EQ(got[3 + 2 * i], b) << "l=" << l << " h=" << heights[i];
    }
  }
}

TEST_P(StackedReductionParity, KernelTableCombinesEqAndItsPredecessorDifference) {
  for (uint32_t log_chunks : {0u, 1u, 4u, 7u})
    for (uint32_t slices : {1u, 3u, 64u}) {
      const uint64_t c = uint64_t(1) << log_chunks;
      Graph g;
      auto eq = g.input<Fp4>("eq", c + 1);
      auto co = g.input<Fp4>("coeffs", 2 * slices + 1);
      auto out = g.output<Fp4>("out", slices * c + 1);
      g.dispatch<StackedKernelTable>("table", {.eq = eq.slice(1, c),
                                               .coeffs = co.slice(1, 2 * slices),
                                               .table = out.slice(1, slices * c),
                                               .log_chunks = log_chunks});
      auto ve = ext_values(eq.count(), log_chunks), vc = ext_values(co.count(), slices);
      auto p = run(g, [&](PreparedPlan& pp) {
        pp.upload(eq, ve);
        pp.upload(co, vc);
      });
      auto got = p->download(out);
      for (uint64_t k = 0; k < slices; ++k)
        for (uint64_t x = 0; x < c; ++x) {
          const Fp4 e = ve[1 + x], prev = ve[1 + (x + c - 1) % c];
          ASSERT_EQ(got[1 + k * c + x], vc[1 + 2 * k] * e + vc[2 + 2 * k] * (prev - e))
              << "log_chunks=" << log_chunks << " k=" << k << " x=" << x;
        }
    }
}

TEST_P(StackedReductionParity, FoldPartialsFoldsThenSumsLikeSumcheckProductPartials) {
  std::vector<std::pair<uint32_t, uint32_t>> cases;  // (pairs, partials)
  for (uint32_t pairs : test_sizes())
    for (uint32_t parts : {1u, 3u, sumcheck_partial_count(pairs)}) cases.emplace_back(pairs, parts);
  cases.emplace_back(64u * 256u + 1u, 256u);
  for (auto [pairs, parts] : cases) {
    Graph g;
    auto f = g.input<Fp4>("f", 4 * pairs + 1);
    auto w = g.input<Fp4>("w", 4 * pairs + 2);
    auto alpha = g.input<Fp4>("alpha", 2);
    auto fd = g.output<Fp4>("fd", 2 * pairs + 1);
    auto wd = g.output<Fp4>("wd", 2 * pairs + 1);
    auto partials = g.output<Fp4>("partials", 2 * parts + 1);
    g.dispatch<StackedFoldPartials>("fold", {.f = f.slice(1, 4 * pairs),
                                             .w = w.slice(2, 4 * pairs),
                                             .alpha = alpha.slice(1, 1),
                                             .f_dst = fd.slice(1, 2 * pairs),
                                             .w_dst = wd.slice(1, 2 * pairs),
                                             .partials = partials.slice(1, 2 * parts),
                                             .pairs = pairs});
    auto vf = ext_values(f.count(), pairs), vw = ext_values(w.count(), pairs + 1), va = ext_values(2, parts);
    auto p = run(g, [&](PreparedPlan& pp) {
      pp.upload(f, vf);
      pp.upload(w, vw);
      pp.upload(alpha, va);
    });
    auto got_f = p->download(fd), got_w = p->download(wd), got = p->download(partials);
    std::vector<Fp4> ef(2 * pairs), ew(2 * pairs), expect(2 * parts);
    for (uint32_t y = 0; y < 2 * pairs; ++y) {
      ef[y] = vf[1 + 2 * y] + va[1] * (vf[2 + 2 * y] - vf[1 + 2 * y]);
      ew[y] = vw[2 + 2 * y] + va[1] * (vw[3 + 2 * y] - vw[2 + 2 * y]);
      ASSERT_EQ(got_f[1 + y], ef[y]) << "pairs=" << pairs << " y=" << y;
      ASSERT_EQ(got_w[1 + y], ew[y]) << "pairs=" << pairs << " y=" << y;
    }
    const Fp two = Fp::from_canonical(2);
    for (uint32_t y = 0; y < pairs; ++y) {
      const uint32_t pp = (y / kSumcheckLanes) % parts;
      expect[2 * pp] += ef[2 * y + 1] * ew[2 * y + 1];
      expect[2 * pp + 1] += (ef[2 * y + 1] * two - ef[2 * y]) * (ew[2 * y + 1] * two - ew[2 * y]);
    }
    for (uint32_t i = 0; i < 2 * parts; ++i)
      ASSERT_EQ(got[1 + i], expect[i]) << "pairs=" << pairs << " parts=" << parts << " i=" << i;
  }
}

// The kernels' check(): Args a body would misread are refused when the graph is built.
TEST(StackedReductionKernels, RefuseArgsTheirBodiesWouldMisread) {
  Graph g;
  auto fp = g.input<Fp>("fp", 1024);
  auto ext = g.input<Fp4>("ext", 1024);
  auto word = g.input<uint32_t>("word", 16);
  auto out = g.output<Fp4>("out", 1024);
  auto expect_refused = [&](auto add, const char* what) { EXPECT_THROW(add(), GraphError) << what; };
  expect_refused(
      [&] {
        g.dispatch<StackedSliceWeights>(
            "w", {.lambda = ext.slice(0, 2), .rot = word.slice(0, 3), .weights = out.slice(0, 6)});
      },
      "two lambdas");
  expect_refused(
      [&] {
        g.dispatch<StackedSliceWeights>(
            "w", {.lambda = ext.slice(0, 1), .rot = word.slice(0, 3), .weights = out.slice(0, 5)});
      },
      "odd weights");
  auto slice_sums = [&](uint64_t trace, uint64_t eq, uint64_t sums, uint32_t l, uint32_t log_chunks,
                        uint32_t log_parts) {
    return [=, &g, &fp, &ext, &out] {
      g.dispatch<StackedRound0SliceSums>("ss", {.trace = fp.slice(0, trace),
                                                .eq = ext.slice(0, eq),
                                                .sums = out.slice(0, sums),
                                                .l_skip = l,
                                                .log_chunks = log_chunks,
                                                .log_parts = log_parts});
    };
  };
  // Accepted as a baseline: 4 slices of 2 chunks of 4 entries, 2 parts each.
  EXPECT_NO_THROW(slice_sums(32, 2, 64, 2, 1, 1)());
  expect_refused(slice_sums(31, 2, 64, 2, 1, 1), "trace not the slices' chunks");
  expect_refused(slice_sums(32, 3, 64, 2, 1, 1), "eq not 2^log_chunks");
  expect_refused(slice_sums(32, 2, 56, 2, 1, 1), "sums not whole slices of 2Nq");
  expect_refused(slice_sums(32, 2, 0, 2, 1, 1), "no sums");
  expect_refused(slice_sums(32, 2, 128, 2, 1, 2), "log_parts above log_chunks");
  expect_refused(slice_sums(32, 2, 64, 11, 1, 1), "l_skip above 10");
  expect_refused(slice_sums(32, 2, 64, 2, 25, 1), "log_chunks above 24");
  auto weigh = [&](uint64_t sums, uint64_t weights, uint64_t partials, uint32_t l, uint32_t log_parts) {
    return [=, &g, &ext, &out] {
      g.dispatch<StackedRound0Weigh>("wg", {.sums = ext.slice(0, sums),
                                            .weights = ext.slice(0, weights),
                                            .partials = out.slice(0, partials),
                                            .l_skip = l,
                                            .log_parts = log_parts});
    };
  };
  // Accepted as a baseline: 4 rows of 2 N = 8, 2 parts per slice (2 slices), 3 partials.
  EXPECT_NO_THROW(weigh(32, 4, 36, 2, 1)());
  expect_refused(weigh(32, 6, 36, 2, 1), "weights not one pair per slice");
  expect_refused(weigh(24, 4, 36, 2, 1), "rows not whole slices of parts");
  expect_refused(weigh(32, 4, 35, 2, 1), "partials not groups of 3N");
  expect_refused(weigh(32, 4, 0, 2, 1), "no partials");
  expect_refused(weigh(32, 4, 36, 11, 1), "l_skip above 10");
  expect_refused(weigh(32, 4, 36, 2, 25), "log_parts above 24");
  expect_refused(
      [&] {
        g.dispatch<StackedRound0Sums>("s", {.partials = ext.slice(0, 24), .sums = out.slice(0, 11), .l_skip = 2});
      },
      "sums not 3N");
  expect_refused(
      [&] {
        g.dispatch<StackedRound0Poly>("poly", {.classes = word.slice(0, 2),
                                               .r = ext.slice(0, 1),
                                               .sums = ext.slice(0, 12),
                                               .coeffs = out.slice(0, 7),
                                               .l_skip = 2});
      },
      "sums of one class for two");
  expect_refused(
      [&] {
        g.dispatch<StackedRound0Poly>("poly", {.classes = word.slice(0, 1),
                                               .r = ext.slice(0, 1),
                                               .sums = ext.slice(0, 12),
                                               .coeffs = out.slice(0, 8),
                                               .l_skip = 2});
      },
      "2N coefficients");
  expect_refused(
      [&] { g.dispatch<StackedFoldWeights>("fw", {.z = ext.slice(0, 1), .out = out.slice(0, 5), .l_skip = 2}); },
      "weights not 2^l");
  expect_refused(
      [&] {
        g.dispatch<StackedFoldChunks>("fc",
                                      {.message = fp.slice(0, 30), .weights = ext.slice(0, 4), .out = out.slice(0, 8)});
      },
      "message not whole chunks");
  expect_refused(
      [&] {
        g.dispatch<StackedSliceCoeffs>("sc", {.log_heights = word.slice(0, 3),
                                              .r = ext.slice(0, 1),
                                              .u = ext.slice(0, 1),
                                              .weights = ext.slice(0, 6),
                                              .coeffs = out.slice(0, 5),
                                              .l_skip = 2});
      },
      "coeffs not a pair per slice");
  expect_refused(
      [&] {
        g.dispatch<StackedKernelTable>(
            "kt", {.eq = ext.slice(0, 4), .coeffs = ext.slice(0, 6), .table = out.slice(0, 11), .log_chunks = 2});
      },
      "table not the slices' chunks");
  expect_refused(
      [&] {
        g.dispatch<StackedFoldPartials>("fp", {.f = ext.slice(0, 16),
                                               .w = ext.slice(0, 16),
                                               .alpha = ext.slice(0, 1),
                                               .f_dst = out.slice(0, 8),
                                               .w_dst = out.slice(8, 8),
                                               .partials = out.slice(16, 2),
                                               .pairs = 3});
      },
      "f not 4 pairs");
  expect_refused(
      [&] {
        g.dispatch<StackedFoldPartials>("fp", {.f = ext.slice(0, 16),
                                               .w = ext.slice(0, 16),
                                               .alpha = ext.slice(0, 1),
                                               .f_dst = out.slice(0, 8),
                                               .w_dst = out.slice(8, 8),
                                               .partials = out.slice(16, 3),
                                               .pairs = 4});
      },
      "odd partials");
}
