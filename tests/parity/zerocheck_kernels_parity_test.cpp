// The kernels of round 0 of the batch constraint sumcheck (kernels/batch_constraint.hpp, protocol.md 9.3)
// and the host constants they take (stages/batch_constraint/round0.hpp):
//   * the constants are what they claim, against naive constructions: the extension weights are
//     the Lagrange basis on D at the coset points (eval_eq_uni), the interpolation matrix is the
//     inverse of the points' Vandermonde matrix (Gaussian elimination) and interpolates random
//     polynomials, the selector extension is the lifted selector columns extended naively;
//   * every kernel, on both executors, equals a naive host reference written here from the
//     formula of its header, bit for bit: random values with the edge values 0, 1, p - 1 (and the
//     largest Montgomery words, for the extension's lazy 64-bit sums), sizes 1 and 2^k, lifted
//     traces (H < N), both row shifts, every subset of functionals;
//   * the extension with the real weights is each chunk's PLE at the coset points (eval_ple);
//     ZerocheckEqPolys gives the coefficients of eq_sharp_uni_poly and eq_uni_poly.
#include <gtest/gtest.h>

#include <vector>

#include "kernels/batch_constraint.hpp"
#include "kernels/field/simd_level.hpp"
#include "stages/batch_constraint/round0.hpp"
#include "stages/common/poly.hpp"
#include "tests/parity/executor_fixture.hpp"

using namespace vkstark;
using namespace vkstark::testing;

namespace {

Fp fp(uint64_t v) { return Fp::reduce(v); }

// z = g^c omega_N^k.
Fp coset_point(uint32_t l, uint32_t c, uint64_t k) { return fp(31).pow(c) * two_adic_generator(l).pow(k); }

// The inverse of a square matrix over Fp by Gauss-Jordan elimination (the naive reference).
std::vector<Fp> naive_inverse(std::vector<Fp> a, uint64_t n) {
  std::vector<Fp> inv(n * n);
  for (uint64_t i = 0; i < n; ++i) inv[i * n + i] = Fp::one();
  for (uint64_t col = 0; col < n; ++col) {
    uint64_t piv = col;
    while (a[piv * n + col].is_zero()) ++piv;
    for (uint64_t j = 0; j < n; ++j) {
      std::swap(a[piv * n + j], a[col * n + j]);
      std::swap(inv[piv * n + j], inv[col * n + j]);
    }
    const Fp s = a[col * n + col].inverse();
    for (uint64_t j = 0; j < n; ++j) {
      a[col * n + j] *= s;
      inv[col * n + j] *= s;
    }
    for (uint64_t r = 0; r < n; ++r) {
      if (r == col) continue;
      const Fp f = a[r * n + col];
      for (uint64_t j = 0; j < n; ++j) {
        a[r * n + j] -= f * a[col * n + j];
        inv[r * n + j] -= f * inv[col * n + j];
      }
    }
  }
  return inv;
}

// ---------------------------------------------------------------------------------------------
// Host constants

TEST(ZerocheckConstants, ExtensionWeightsAreTheLagrangeBasisAtTheCosetPoints) {
  for (uint32_t l = 0; l <= 5; ++l)
    for (uint32_t c = 1; c <= 4; ++c) {
      const std::vector<Fp> w = coset_extension_weights(l, c);
      const uint64_t n = uint64_t(1) << l;
      ASSERT_EQ(w.size(), n * n);
      for (uint64_t k = 0; k < n; ++k)
        for (uint64_t i = 0; i < n; ++i)
          ASSERT_EQ(Fp4(w[k * n + i]), eval_eq_uni(l, Fp4(two_adic_generator(l).pow(i)), Fp4(coset_point(l, c, k))))
              << "l " << l << " c " << c << " k " << k << " i " << i;
    }
}

TEST(ZerocheckConstants, InterpolationMatrixInvertsTheCosetVandermonde) {
  for (uint32_t l = 0; l <= 3; ++l)
    for (uint32_t cosets = 1; cosets <= 4; ++cosets) {
      const uint64_t n = uint64_t(1) << l, kk = cosets * n;
      std::vector<Fp> v(kk * kk);  // V[m][i] = z_m^i
      for (uint32_t c = 1; c <= cosets; ++c)
        for (uint64_t k = 0; k < n; ++k) {
          const Fp z = coset_point(l, c, k);
          for (uint64_t i = 0; i < kk; ++i) v[((c - 1) * n + k) * kk + i] = z.pow(i);
        }
      const std::vector<Fp> a = coset_interpolation_matrix(l, cosets);
      ASSERT_EQ(a, naive_inverse(v, kk)) << "l " << l << " cosets " << cosets;
      // A random polynomial of degree < C N back from its values at the points.
      const std::vector<Fp4> coeffs = ext_values(kk, 40 + l * 8 + cosets);
      std::vector<Fp4> values(kk);
      for (uint32_t c = 1; c <= cosets; ++c)
        for (uint64_t k = 0; k < n; ++k) values[(c - 1) * n + k] = horner(coeffs, Fp4(coset_point(l, c, k)));
      for (uint64_t i = 0; i < kk; ++i) {
        Fp4 got;
        for (uint64_t m = 0; m < kk; ++m) got += values[m] * a[i * kk + m];
        ASSERT_EQ(got, coeffs[i]) << "l " << l << " cosets " << cosets << " coefficient " << i;
      }
    }
}

TEST(ZerocheckConstants, SelectorsAreTheLiftedSelectorColumnsExtended) {
  for (uint32_t l : {0u, 1u, 3u})
    for (uint32_t h : {0u, 1u, 2u, 3u, 5u})
      for (uint32_t c : {1u, 3u}) {
        const uint64_t n = uint64_t(1) << l, H = uint64_t(1) << h, X = h > l ? H / n : 1, M = n * X;
        const std::vector<Fp> got = coset_selectors(l, h, c);
        ASSERT_EQ(got.size(), 3 * M);
        for (uint64_t k = 0; k < n; ++k)
          for (uint64_t x = 0; x < X; ++x) {
            Fp4 first, last, transition;
            for (uint64_t i = 0; i < n; ++i) {
              const uint64_t row = (x * n + i) % H;  // lifted rows repeat with period H
              const Fp4 li = eval_eq_uni(l, Fp4(two_adic_generator(l).pow(i)), Fp4(coset_point(l, c, k)));
              if (row == 0) first += li;
              if (row == H - 1) last += li;
              if (row != H - 1) transition += li;
            }
            const uint64_t p = k * X + x;
            ASSERT_EQ(Fp4(got[p]), first) << "l " << l << " h " << h << " c " << c << " p " << p;
            ASSERT_EQ(Fp4(got[M + p]), last) << "l " << l << " h " << h << " c " << c << " p " << p;
            ASSERT_EQ(Fp4(got[2 * M + p]), transition) << "l " << l << " h " << h << " c " << c << " p " << p;
          }
      }
}

// ---------------------------------------------------------------------------------------------
// Kernels on both executors

class ZerocheckKernels : public ExecutorTest {
 protected:
  // The whole extension, or the block of 2^log_block chunks from first_chunk.
  // `fft`: the device's table for N = 16 (then `weights` must be the coset's real ones).
  std::vector<Fp> extend(const std::vector<Fp>& in, const std::vector<Fp>& weights, uint64_t cols, uint32_t h,
                         uint32_t l, uint32_t shift, uint32_t first_chunk = 0, int log_block = -1,
                         const std::vector<Fp>& fft = {}) {
    Graph g;
    const uint32_t log_chunks = log_block >= 0 ? uint32_t(log_block) : (h > l ? h - l : 0);
    const uint64_t m = uint64_t(1) << (l + log_chunks);
    auto inb = g.input<Fp>("in", in.size());
    auto wb = g.input<Fp>("weights", weights.size());
    auto fb = g.input<Fp>("fft", std::max<size_t>(fft.size(), 1));
    auto out = g.output<Fp>("out", cols * m);
    g.dispatch<ZerocheckCosetExtend>("extend", {.in = inb,
                                                .weights = wb,
                                                .fft = fb.slice(0, fft.size()),
                                                .out = out,
                                                .log_height = h,
                                                .log_n = l,
                                                .shift = shift,
                                                .first_chunk = first_chunk,
                                                .log_chunks = log_chunks});
    auto p = run(g, [&](PreparedPlan& pp) {
      pp.upload(inb, in);
      pp.upload(wb, weights);
      pp.upload(fb, fft.empty() ? std::vector<Fp>(1) : fft);
    });
    return p->download(out);
  }
};
VKSTARK_INSTANTIATE_FOR_EXECUTORS(ZerocheckKernels);

// out[c M + k X + x] = sum_i W[k][i] in[c H + ((x N + i + shift) mod H)], by the formula.
std::vector<Fp> naive_extend(const std::vector<Fp>& in, const std::vector<Fp>& w, uint64_t cols, uint32_t h, uint32_t l,
                             uint32_t shift) {
  const uint64_t n = uint64_t(1) << l, H = uint64_t(1) << h, X = h > l ? H / n : 1, M = n * X;
  std::vector<Fp> out(cols * M);
  for (uint64_t c = 0; c < cols; ++c)
    for (uint64_t k = 0; k < n; ++k)
      for (uint64_t x = 0; x < X; ++x) {
        Fp acc;
        for (uint64_t i = 0; i < n; ++i) acc += w[k * n + i] * in[c * H + (x * n + i + shift) % H];
        out[c * M + k * X + x] = acc;
      }
  return out;
}

TEST_P(ZerocheckKernels, CosetExtendIsTheWeightedChunkSum) {
  uint64_t seed = 1;
  for (uint32_t l : {0u, 1u, 2u, 3u})
    for (uint32_t h : {0u, 1u, 3u, 5u, 7u})
      for (uint64_t cols : {1u, 3u})
        for (uint32_t shift : {0u, 1u}) {
          const uint64_t n = uint64_t(1) << l;
          const std::vector<Fp> in = field_values(cols << h, seed++);
          const std::vector<Fp> w = field_values(n * n, seed++);
          const std::vector<Fp> whole = naive_extend(in, w, cols, h, l, shift);
          ASSERT_EQ(extend(in, w, cols, h, l, shift), whole)
              << "l " << l << " h " << h << " cols " << cols << " shift " << shift;
          // Blocks of 2^b chunks: each block's points are the whole extension's at its chunks.
          const uint32_t log_x = h > l ? h - l : 0;
          for (uint32_t b = 0; b < log_x; ++b)
            for (uint32_t first : {0u, (1u << log_x) - (1u << b)}) {
              const std::vector<Fp> got = extend(in, w, cols, h, l, shift, first, int(b));
              const uint64_t X = uint64_t(1) << log_x, B = uint64_t(1) << b;
              for (uint64_t c = 0; c < cols; ++c)
                for (uint64_t k = 0; k < n; ++k)
                  for (uint64_t x = 0; x < B; ++x)
                    ASSERT_EQ(got[c * n * B + k * B + x], whole[c * n * X + k * X + first + x])
                        << "l " << l << " h " << h << " block 2^" << b << " from " << first;
            }
        }
}

// The largest Montgomery words everywhere: the lazy 64-bit sums at their bound, also for N = 128
// (43 folds per value).
TEST_P(ZerocheckKernels, CosetExtendOfTheLargestWords) {
  for (uint32_t l : {2u, 4u, 7u}) {
    const uint32_t h = l + 1;
    const uint64_t n = uint64_t(1) << l, cols = 2;
    const std::vector<Fp> in(cols << h, Fp::from_mont(Fp::P - 1));
    const std::vector<Fp> w(n * n, Fp::from_mont(Fp::P - 1));
    for (uint32_t shift : {0u, 1u})
      ASSERT_EQ(extend(in, w, cols, h, l, shift), naive_extend(in, w, cols, h, l, shift)) << "l " << l;
  }
}

// With the real weights, point (k, x) of coset c is chunk x's PLE at g^c omega^k (lifted traces:
// the chunk is the trace repeated).
TEST_P(ZerocheckKernels, CosetExtendWithTheCosetWeightsIsThePleAtTheCosetPoints) {
  for (uint32_t l : {1u, 3u})
    for (uint32_t h : {1u, 3u, 6u})
      for (uint32_t c : {1u, 2u})
        for (uint32_t shift : {0u, 1u}) {
          const uint64_t n = uint64_t(1) << l, H = uint64_t(1) << h, X = h > l ? H / n : 1, M = n * X, cols = 2;
          const std::vector<Fp> in = field_values(cols * H, 500 + h * 10 + l);
          const std::vector<Fp> got = extend(in, coset_extension_weights(l, c), cols, h, l, shift);
          for (uint64_t col = 0; col < cols; ++col)
            for (uint64_t x = 0; x < X; ++x) {
              std::vector<Fp> chunk(n);
              for (uint64_t i = 0; i < n; ++i) chunk[i] = in[col * H + (x * n + i + shift) % H];
              for (uint64_t k = 0; k < n; ++k) {
                const Fp4 z[] = {Fp4(coset_point(l, c, k))};
                ASSERT_EQ(Fp4(got[col * M + k * X + x]), eval_ple(chunk, l, z))
                    << "l " << l << " h " << h << " c " << c << " shift " << shift;
              }
            }
        }
}

// Many slices over few x (the last MLE rounds: 64 / X invocations share each x's slices; fewer
// slices than invocations too): one row of partial sums, the host's sum.
TEST_P(ZerocheckKernels, WeightedSumsOfManySlicesOverFewX) {
  uint64_t seed = 900;
  for (uint32_t S : {1u, 5u, 65u, 200u, kZerocheckMaxSlices})
    for (uint64_t X : {1u, 2u, 3u, 63u, 64u}) {
      const uint32_t n = 3;  // d values per functional, as in an MLE round
      const uint64_t M = n * X;
      const std::vector<Fp4> values = ext_values(3 * S * M, seed++), eq = ext_values(X, seed++);
      Graph g;
      auto vb = g.input<Fp4>("values", values.size());
      auto eb = g.input<Fp4>("eq", X);
      auto out = g.output<Fp4>("partials", 3 * n);
      g.dispatch<ZerocheckWeightedSums>("sums",
                                        {.values = vb, .eq = eb, .partials = out, .n = n, .present = 7, .slices = S});
      auto p = run(g, [&](PreparedPlan& pp) {
        pp.upload(vb, values);
        pp.upload(eb, eq);
      });
      const std::vector<Fp4> got = p->download(out);
      for (uint64_t f = 0; f < 3; ++f)
        for (uint64_t k = 0; k < n; ++k) {
          Fp4 want;
          for (uint64_t x = 0; x < X; ++x)
            for (uint32_t sl = 0; sl < S; ++sl) want += eq[x] * values[(f * S + sl) * M + k * X + x];
          ASSERT_EQ(got[f * n + k], want) << "S " << S << " X " << X << " f " << f << " k " << k;
        }
    }
}

TEST_P(ZerocheckKernels, WeightedSumsArePartialSumsOverTheirBlocksOfX) {
  uint64_t seed = 100;
  for (uint32_t l : {0u, 2u, 3u})
    for (uint64_t X : {1u, 2u, 64u, 100u, 1000u, 4097u})
      for (uint32_t rows : {1u, 2u, 5u})
        for (uint32_t present : {7u, 1u, 6u, 2u}) {
          const uint32_t S = 1 + (rows + present) % 3;  // slices 1, 2, 3
          const uint64_t n = uint64_t(1) << l, M = n * X;
          const std::vector<Fp4> values = ext_values(3 * S * M, seed++), eq = ext_values(X, seed++);
          Graph g;
          auto vb = g.input<Fp4>("values", values.size());
          auto eb = g.input<Fp4>("eq", X);
          auto out = g.output<Fp4>("partials", rows * 3 * n);
          g.dispatch<ZerocheckWeightedSums>(
              "sums", {.values = vb, .eq = eb, .partials = out, .n = 1u << l, .present = present, .slices = S});
          auto p = run(g, [&](PreparedPlan& pp) {
            pp.upload(vb, values);
            pp.upload(eb, eq);
          });
          const std::vector<Fp4> got = p->download(out);
          std::vector<Fp4> total(3 * n);
          for (uint64_t j = 0; j < rows; ++j)
            for (uint64_t f = 0; f < 3; ++f)
              for (uint64_t k = 0; k < n; ++k) {
                Fp4 want;  // x in the blocks of 64 at 64 (j + t rows)
                for (uint64_t x = 0; x < X; ++x)
                  if ((x / 64) % rows == j && ((present >> f) & 1))
                    for (uint32_t sl = 0; sl < S; ++sl) want += eq[x] * values[(f * S + sl) * M + k * X + x];
                const Fp4 v = got[(j * 3 + f) * n + k];
                ASSERT_EQ(v, want) << "l " << l << " X " << X << " rows " << rows << " present " << present;
                total[f * n + k] += v;
              }
          for (uint64_t f = 0; f < 3; ++f)
            for (uint64_t k = 0; k < n; ++k) {
              Fp4 want;
              if ((present >> f) & 1)
                for (uint64_t x = 0; x < X; ++x)
                  for (uint32_t sl = 0; sl < S; ++sl) want += eq[x] * values[(f * S + sl) * M + k * X + x];
              ASSERT_EQ(total[f * n + k], want);
            }
        }
}

TEST_P(ZerocheckKernels, InterpolateAppliesTheMatrixToTheScaledSums) {
  uint64_t seed = 300;
  for (uint32_t l : {0u, 2u})
    for (uint32_t cosets : {1u, 3u})
      for (uint32_t rows : {1u, 3u}) {
        const uint64_t n = uint64_t(1) << l, kk = cosets * n;
        const std::vector<Fp4> partials = ext_values(cosets * rows * 3 * n, seed++);
        const std::vector<Fp> matrix = field_values(kk * kk, seed++), scale = field_values(3 * cosets, seed++);
        Graph g;
        auto pb = g.input<Fp4>("partials", partials.size());
        auto mb = g.input<Fp>("matrix", matrix.size());
        auto sb = g.input<Fp>("scale", scale.size());
        auto out = g.output<Fp4>("coeffs", 3 * kk);
        g.dispatch<ZerocheckInterpolate>(
            "interpolate", {.partials = pb, .matrix = mb, .scale = sb, .coeffs = out, .log_n = l, .rows = rows});
        auto p = run(g, [&](PreparedPlan& pp) {
          pp.upload(pb, partials);
          pp.upload(mb, matrix);
          pp.upload(sb, scale);
        });
        const std::vector<Fp4> got = p->download(out);
        for (uint64_t f = 0; f < 3; ++f)
          for (uint64_t i = 0; i < kk; ++i) {
            Fp4 want;
            for (uint64_t c = 0; c < cosets; ++c)
              for (uint64_t k = 0; k < n; ++k) {
                Fp4 v;
                for (uint64_t j = 0; j < rows; ++j) v += partials[c * rows * 3 * n + (j * 3 + f) * n + k];
                want += v * scale[f * cosets + c] * matrix[i * kk + c * n + k];
              }
            ASSERT_EQ(got[f * kk + i], want) << "l " << l << " cosets " << cosets << " rows " << rows;
          }
      }
}

// Polynomial product, truncated to `len` coefficients.
std::vector<Fp4> product(const std::vector<Fp4>& a, const std::vector<Fp4>& b, uint64_t len) {
  std::vector<Fp4> out(len);
  for (uint64_t i = 0; i < a.size(); ++i)
    for (uint64_t j = 0; j < b.size(); ++j)
      if (i + j < len) out[i + j] += a[i] * b[j];
  return out;
}

TEST_P(ZerocheckKernels, Round0PolysAreTheProductsWithTheEqKernels) {
  uint64_t seed = 400;
  for (uint32_t l : {0u, 1u, 2u, 4u})
    for (uint32_t cosets : {1u, 2u, 3u})
      for (uint32_t degree = 0; degree <= cosets; ++degree)
        for (uint32_t d : {cosets, cosets + 1}) {
          const uint64_t n = uint64_t(1) << l, kk = cosets * n, len = (d + 1) * (n - 1) + 1;
          const std::vector<Fp4> coeffs = ext_values(3 * kk, seed++), eq = ext_values(2 * n, seed++);
          Graph g;
          auto cb = g.input<Fp4>("coeffs", coeffs.size());
          auto eb = g.input<Fp4>("eq", eq.size());
          auto out = g.output<Fp4>("polys", 3 * len);
          g.dispatch<ZerocheckRound0Polys>(
              "polys", {.coeffs = cb, .eq_polys = eb, .polys = out, .log_n = l, .trace_degree = degree});
          auto p = run(g, [&](PreparedPlan& pp) {
            pp.upload(cb, coeffs);
            pp.upload(eb, eq);
          });
          const std::vector<Fp4> got = p->download(out);
          const std::vector<Fp4> eq_sharp(eq.begin(), eq.begin() + n), eq_d(eq.begin() + n, eq.end());
          const std::vector<Fp4> q(coeffs.begin(), coeffs.begin() + kk),
              sp(coeffs.begin() + kk, coeffs.begin() + 2 * kk), sq(coeffs.begin() + 2 * kk, coeffs.end());
          // s'_zc = (Z^N - 1) q, truncated to degree (N - 1) + 1 coefficients.
          std::vector<Fp4> zn_minus_1(n + 1);
          zn_minus_1[0] = -Fp4::one();
          zn_minus_1[n] += Fp4::one();
          const std::vector<Fp4> szc = product(zn_minus_1, q, degree * (n - 1) + 1);
          const std::vector<Fp4> want[] = {product(eq_sharp, sp, len), product(eq_sharp, sq, len),
                                           product(eq_d, szc, len)};
          for (uint64_t f = 0; f < 3; ++f)
            for (uint64_t j = 0; j < len; ++j)
              ASSERT_EQ(got[f * len + j], want[f][j]) << "l " << l << " cosets " << cosets << " degree " << degree
                                                      << " d " << d << " f " << f << " j " << j;
        }
}

TEST_P(ZerocheckKernels, EqPolysAreTheSharpAndUnivariateKernelsCoefficients) {
  for (uint32_t l = 0; l <= 5; ++l) {
    const uint64_t n = uint64_t(1) << l;
    std::vector<Fp4> xi = ext_values(std::max<uint32_t>(l, 1), 600 + l);
    if (l == 2) xi[0] = Fp4::one();  // edge values: boolean and p - 1 coordinates
    if (l == 3) xi[1] = Fp4(Fp::from_canonical(Fp::P - 1));
    std::vector<Fp> inv_roots(n);
    for (uint64_t k = 0; k < n; ++k) inv_roots[k] = two_adic_generator(l).inverse().pow(k);
    Graph g;
    auto xb = g.input<Fp4>("xi", xi.size());
    auto out = g.output<Fp4>("out", 2 * n);
    g.dispatch<ZerocheckEqPolys>(
        "eq", {.xi = xb, .inv_roots = g.constant<Fp>("inv_roots", inv_roots), .out = out, .log_n = l});
    auto p = run(g, [&](PreparedPlan& pp) { pp.upload(xb, xi); });
    const std::vector<Fp4> got = p->download(out);
    const std::vector<Fp4> sharp = eq_sharp_uni_poly(std::span<const Fp4>(xi).subspan(0, l));
    const std::vector<Fp4> uni = eq_uni_poly(l, xi[0]);
    ASSERT_EQ(std::vector<Fp4>(got.begin(), got.begin() + n), sharp) << "l " << l;
    ASSERT_EQ(std::vector<Fp4>(got.begin() + n, got.end()), uni) << "l " << l;
  }
}

TEST_P(ZerocheckKernels, BatchRound0IsTheMuCombination) {
  uint64_t seed = 700;
  for (uint64_t traces : {1u, 2u, 5u})
    for (uint64_t len : {1u, 7u, 61u}) {
      const std::vector<Fp4> polys = ext_values(3 * traces * len, seed++);
      for (const Fp4& mu : {ext_values(1, seed++)[0], Fp4::one(), Fp4(Fp::from_canonical(Fp::P - 1)), Fp4()}) {
        Graph g;
        auto pb = g.input<Fp4>("polys", polys.size());
        auto mb = g.input<Fp4>("mu", 1);
        auto out = g.output<Fp4>("s0", len);
        g.dispatch<ZerocheckBatchRound0>("s0", {.polys = pb, .mu = mb, .coeffs = out});
        auto p = run(g, [&](PreparedPlan& pp) {
          pp.upload(pb, polys);
          pp.upload(mb, std::vector<Fp4>{mu});
        });
        const std::vector<Fp4> got = p->download(out);
        for (uint64_t j = 0; j < len; ++j) {
          Fp4 want;
          for (uint64_t t = 0; t < traces; ++t)
            want += mu.pow(2 * t) * polys[(3 * t) * len + j] + mu.pow(2 * t + 1) * polys[(3 * t + 1) * len + j] +
                    mu.pow(2 * traces + t) * polys[(3 * t + 2) * len + j];
          ASSERT_EQ(got[j], want) << "traces " << traces << " len " << len;
        }
      }
    }
}

// N = 16 (the app params' l_skip): both executors take the FFT path, with the coset's real
// weights; blocks of 1 to 512 chunks (several workgroups, a workgroup over several columns, partial
// blocks of CPU lanes), both shifts; on the CPU at every SIMD level the processor has.
TEST_P(ZerocheckKernels, CosetExtendOf16PointChunksIsTheWeightedChunkSum) {
  const SimdLevel saved = cpu_simd_level();
  std::vector<SimdLevel> levels;
  for (SimdLevel lv : {SimdLevel::Scalar, SimdLevel::Avx2, SimdLevel::Avx512})
    if (lv <= detected_simd_level() && (GetParam() == "cpu" || lv == saved)) levels.push_back(lv);
  for (SimdLevel level : levels) {
    set_cpu_simd_level(level);
    SCOPED_TRACE(std::string(to_string(level)));
    uint64_t seed = 100;
    const uint32_t l = 4;
    for (uint32_t h : {3u, 4u, 7u, 9u, 13u})
      for (uint32_t c : {1u, 3u})
        for (uint64_t cols : {1u, 5u})
          for (uint32_t shift : {0u, 1u}) {
            const std::vector<Fp> in = field_values(cols << h, seed++);
            const std::vector<Fp> w = coset_extension_weights(l, c), fft = coset_extension_fft(l, c);
            const std::vector<Fp> whole = naive_extend(in, w, cols, h, l, shift);
            ASSERT_EQ(extend(in, w, cols, h, l, shift, 0, -1, fft), whole)
                << "h " << h << " coset " << c << " cols " << cols << " shift " << shift;
            const uint32_t log_x = h > l ? h - l : 0;
            if (log_x < 2) continue;
            const uint64_t X = uint64_t(1) << log_x, B = X / 4, first = X / 2;
            const std::vector<Fp> got = extend(in, w, cols, h, l, shift, uint32_t(first), int(log_x - 2), fft);
            for (uint64_t col = 0; col < cols; ++col)
              for (uint64_t k = 0; k < 16; ++k)
                for (uint64_t x = 0; x < B; ++x)
                  ASSERT_EQ(got[col * 16 * B + k * B + x], whole[col * 16 * X + k * X + first + x])
                      << "h " << h << " block from " << first;
          }
  }
  set_cpu_simd_level(saved);
}

// Arguments the bodies would misread are rejected when the graph is built, on every executor.
TEST_P(ZerocheckKernels, ChecksRejectMisshapedArguments) {
  Graph g;
  auto in = g.input<Fp>("in", 8 * 4);
  auto w = g.input<Fp>("w", 16);
  auto out = g.output<Fp>("out", 8 * 4);
  EXPECT_THROW(g.dispatch<ZerocheckCosetExtend>(
                   "bad_shift",
                   {.in = in, .weights = w, .fft = w.slice(0, 0), .out = out, .log_height = 3, .log_n = 2, .shift = 2}),
               GraphError);
  EXPECT_THROW(g.dispatch<ZerocheckCosetExtend>(
                   "bad_in",
                   {.in = in.slice(0, 8), .weights = w, .fft = w.slice(0, 0), .out = out, .log_height = 3, .log_n = 2}),
               GraphError);
  EXPECT_THROW(g.dispatch<ZerocheckCosetExtend>("past_the_chunks", {.in = in,
                                                                    .weights = w,
                                                                    .fft = w.slice(0, 0),
                                                                    .out = out.slice(0, 16),
                                                                    .log_height = 3,
                                                                    .log_n = 2,
                                                                    .first_chunk = 1,
                                                                    .log_chunks = 1}),
               GraphError);
  EXPECT_NO_THROW(g.dispatch<ZerocheckCosetExtend>(
      "good",
      {.in = in, .weights = w, .fft = w.slice(0, 0), .out = out, .log_height = 3, .log_n = 2, .log_chunks = 1}));
  auto v = g.input<Fp4>("v", 3 * 4 * 2);
  auto eq = g.input<Fp4>("eq", 2);
  auto partials = g.output<Fp4>("partials", 12);
  EXPECT_THROW(g.dispatch<ZerocheckWeightedSums>("bad_present",
                                                 {.values = v, .eq = eq, .partials = partials, .n = 4, .present = 8}),
               GraphError);
  EXPECT_THROW(g.dispatch<ZerocheckWeightedSums>(
                   "bad_partials", {.values = v, .eq = eq, .partials = partials.slice(0, 5), .n = 4, .present = 7}),
               GraphError);
}

}  // namespace
