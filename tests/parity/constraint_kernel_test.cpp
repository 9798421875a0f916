// Specifies the constraint kernel (stages/compiler/constraint_kernel.hpp): the run-time kernel
// generated from an AIR's DAG gives, on every executor (Vulkan under validation), out[r] = sum_i
// lambda^i C_i(r) bit-identical to the host evaluator (eval_constraints_on_trace) on random rows
// and random lambda: the Fibonacci AIR (also against its constraints written out by hand), an AIR
// that reads every kind of variable (preprocessed, two cached parts, common, public values, all
// selectors, next rows), a large random DAG, the Keccak-f AIR, an AIR without public values or
// without constraints; heights 1, 2, 4, 2^10; kernels in many chunks adding into one or several
// partial sums; the lazy fold at its largest products.
// And what the graph builder rejects: wrong view sizes, a shape that is not the kernel's, a DAG that
// reads past its shape, too many parts.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <functional>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "product/airs/fibonacci.hpp"
#include "product/airs/keccak.hpp"
#include "product/airs/test_airs.hpp"
#include "runtime/error.hpp"
#include "stages/air/dag.hpp"
#include "stages/air/eval.hpp"
#include "stages/compiler/constraint_kernel.hpp"
#include "tests/parity/executor_fixture.hpp"

using namespace vkstark;
using namespace vkstark::testing;

namespace {

// An AIR that reads every kind of variable: a preprocessed part, two cached parts and the common
// part (local and next rows of each), public values, the three selectors, constants, every node kind.
class EveryReadAir final : public Air {
 public:
  std::string name() const override { return "every-read"; }
  AirShape shape() const override {
    return {.preprocessed_width = 3, .cached_widths = {2, 4}, .common_width = 5, .num_public_values = 3};
  }
  void eval(AirBuilder& b) const override {
    const Window pre = b.preprocessed(), c0 = b.cached(0), c1 = b.cached(1), m = b.main();
    const Expr pv0 = b.public_value(0), pv1 = b.public_value(1), pv2 = b.public_value(2);
    b.when_first_row().assert_eq(m.local(0), pv0);
    b.when_last_row().assert_eq(c1.local(3), pv1 * pre.local(2));
    b.when_transition().assert_eq(m.next(1), m.local(0) + c0.local(1) * c1.next(2));
    b.assert_bool(pre.local(0));
    b.assert_zero(-(pre.next(1) * c0.next(0)) + Expr(7) - m.local(4) * m.local(4) * m.local(3));
    b.when(pre.local(1)).when(c1.local(0) - Expr(3)).assert_eq(m.next(2), c0.local(0) - pv2);
    b.assert_zero(xor3(c1.local(1), m.local(2), pre.next(2)) + andn(m.next(4), c1.next(3)));
    b.assert_zero(m.local(3));                          // a bare variable as a constraint
    b.assert_zero(b.is_transition() * Expr(-5) + pv2);  // a selector times a constant
    b.assert_zero(m.next(3) * Expr(1) - m.next(0) * m.next(0) * m.next(0));
    // Interaction-only nodes: the constraint kernel evaluates none of them.
    b.send(0, {m.local(1) * c0.local(0) + Expr(9)}, pre.local(1) * Expr(2));
  }
};

// The same reads without public values (the kernel takes an empty public-values view).
class NoPublicValuesAir final : public Air {
 public:
  std::string name() const override { return "no_pvs"; }
  AirShape shape() const override { return {.cached_widths = {1}, .common_width = 2}; }
  void eval(AirBuilder& b) const override {
    const Window c = b.cached(0), m = b.main();
    b.when_transition().assert_eq(m.next(0), m.local(0) * c.local(0) + m.local(1));
    b.when_first_row().assert_one(m.local(1));
    b.when_last_row().assert_zero(c.next(0) - m.next(1));
  }
};

// Two parts of one column each, every selector, next rows, a public value.
class OneColumnPartsAir final : public Air {
 public:
  std::string name() const override { return "one_column_parts"; }
  AirShape shape() const override { return {.cached_widths = {1}, .common_width = 1, .num_public_values = 1}; }
  void eval(AirBuilder& b) const override {
    const Window c = b.cached(0), m = b.main();
    b.when_transition().assert_eq(m.next(0), m.local(0) * c.local(0) + b.public_value(0));
    b.when_first_row().assert_eq(m.local(0), b.public_value(0));
    b.when_last_row().assert_zero(c.next(0) - m.local(0) * m.local(0));
  }
};

// A random AIR of `constraints` constraints over the parts of `shape`: random expression trees of
// `operations` operations in all (every node kind, selectors, public values, local and next rows, a
// few constants), a tenth of their subtrees shared with earlier ones. Through build_dag, interning
// and sharing leave about half as many nodes as operations.
SymbolicAir random_air(const AirShape& shape, uint32_t constraints, uint32_t operations, uint64_t seed) {
  std::mt19937_64 rng(seed);
  const std::vector<uint32_t> widths = shape.row_view_widths();
  const uint32_t pre = shape.preprocessed_width > 0 ? 1 : 0;
  std::vector<Expr> shared;
  const Fp constants[] = {Fp::zero(),
                          Fp::one(),
                          Fp::from_canonical(2),
                          Fp::from_canonical(Fp::P - 1),
                          Fp::from_canonical(1234567),
                          Fp::from_canonical(7)};
  auto leaf = [&]() -> Expr {
    const uint32_t k = rng() % 100;
    if (k < 70) {
      const uint32_t p = rng() % widths.size();
      const Variable v{p < pre ? EntryKind::Preprocessed : EntryKind::Main, p < pre ? 0 : p - pre,
                       rng() % 4 == 0 ? 1u : 0u, static_cast<uint32_t>(rng() % widths[p])};
      return Expr::variable(v);
    }
    if (k < 80) return Expr(constants[rng() % std::size(constants)]);
    if (k < 84) return Expr::is_first_row();
    if (k < 88) return Expr::is_last_row();
    if (k < 92) return Expr::is_transition();
    if (shape.num_public_values > 0 && k < 96)
      return Expr::variable({EntryKind::Public, 0, 0, static_cast<uint32_t>(rng() % shape.num_public_values)});
    return shared.empty() ? Expr::is_transition() : shared[rng() % shared.size()];
  };
  // A tree of `size` operations.
  std::function<Expr(uint32_t)> tree = [&](uint32_t size) -> Expr {
    if (size == 0) return leaf();
    if (!shared.empty() && rng() % 10 == 0) return shared[rng() % shared.size()];
    const uint32_t op = rng() % 10;
    if (op == 0) return -tree(size - 1);
    const uint32_t left = static_cast<uint32_t>(rng() % size);
    Expr l = tree(left), r = tree(size - 1 - left);
    Expr e = op < 4 ? l + r : op < 6 ? l - r : l * r;
    if (rng() % 4 == 0) shared.push_back(e);
    return e;
  };
  SymbolicAir air{.name = "random", .shape = shape, .constraints = {}, .interactions = {}};
  const uint32_t per_constraint = operations / constraints;
  for (uint32_t c = 0; c < constraints; ++c)
    air.constraints.push_back(tree(per_constraint / 2 + static_cast<uint32_t>(rng() % per_constraint)));
  return air;
}

struct HostTrace {
  std::vector<TraceMatrix> parts;
  std::vector<Fp> public_values;
};

HostTrace random_trace(const AirShape& shape, uint32_t height, uint64_t seed) {
  HostTrace t;
  for (uint32_t w : shape.row_view_widths()) {
    t.parts.emplace_back(w, height);
    t.parts.back().values = field_values(size_t(w) * height, seed++);
  }
  t.public_values = field_values(shape.num_public_values, seed);
  return t;
}

Fp4 random_ext(uint64_t seed) { return ext_values(1, seed)[0]; }

class ConstraintEval : public ExecutorTest {
 protected:
  // The kernel's output on `rows`: all parts in one buffer at odd offsets, `out` at an offset inside
  // a larger buffer (below 2^23 rows).
  std::vector<Fp4> run_kernel(const ConstraintKernel& kernel, const AirShape& shape, const HostTrace& rows,
                              std::span<const Fp4> lambda_powers, uint32_t log_height, bool empty_public_values = false,
                              uint64_t concurrent_rows = kConstraintConcurrentRows) {
    const uint32_t h = 1u << log_height;
    Graph g;
    std::vector<Fp> all;
    std::vector<uint64_t> offsets;
    for (const TraceMatrix& m : rows.parts) {
      all.resize(all.size() + 3, Fp::from_canonical(5));  // a gap before each part
      offsets.push_back(all.size());
      all.insert(all.end(), m.values.begin(), m.values.end());
    }
    auto parts_buf = g.input<Fp>("trace", all.size());
    std::vector<View<Fp>> parts;
    for (size_t p = 0; p < rows.parts.size(); ++p)
      parts.push_back(parts_buf.slice(offsets[p], rows.parts[p].values.size()));
    Buffer<Fp> pvs;
    if (!empty_public_values) pvs = g.input<Fp>("public_values", rows.public_values.size() + 1);
    auto lambdas = g.input<Fp4>("lambda_powers", lambda_powers.size() + 2);
    const uint32_t out_offset = h < (1u << 23) ? 1 : 0;  // 2^23 x 16 bytes: lavapipe's largest binding
    auto out = g.output<Fp4>("out", h + out_offset);
    eval_constraints(g, "air.constraints", kernel, shape, parts,
                     empty_public_values ? View<Fp>{} : pvs.slice(1, rows.public_values.size()),
                     lambdas.slice(2, lambda_powers.size()), out.slice(out_offset, h), log_height, concurrent_rows);
    std::vector<Fp> pv_data = field_values(1, 99);
    pv_data.insert(pv_data.end(), rows.public_values.begin(), rows.public_values.end());
    std::vector<Fp4> lambda_data = ext_values(2, 98);
    lambda_data.insert(lambda_data.end(), lambda_powers.begin(), lambda_powers.end());
    auto p = run(g, [&](PreparedPlan& pp) {
      pp.upload(parts_buf, all);
      if (!empty_public_values) pp.upload(pvs, pv_data);
      pp.upload(lambdas, lambda_data);
    });
    std::vector<Fp4> got = p->download(out);
    return {got.begin() + out_offset, got.end()};
  }

  // Random rows and lambda at each height; the kernel against the host evaluator.
  void expect_matches_host(const SymbolicAir& air, std::span<const uint32_t> log_heights, uint64_t seed,
                           bool empty_public_values = false, uint32_t chunk_nodes = kConstraintChunkNodes,
                           uint64_t concurrent_rows = kConstraintConcurrentRows) {
    const SymbolicDag dag = build_dag(air);
    auto kernel = make_constraint_kernel(air.name, dag, air.shape, chunk_nodes);
    for (uint32_t log_h : log_heights) {
      SCOPED_TRACE(fmt::format("AIR {}, height 2^{}", air.name, log_h));
      const HostTrace rows = random_trace(air.shape, 1u << log_h, seed + log_h);
      const std::vector<Fp4> lp = powers(random_ext(seed * 31 + log_h), dag.num_constraints());
      const std::vector<Fp4> want = eval_constraints_on_trace(dag, air.shape, rows.parts, rows.public_values, lp);
      const std::vector<Fp4> got =
          run_kernel(*kernel, air.shape, rows, lp, log_h, empty_public_values, concurrent_rows);
      ASSERT_EQ(got.size(), want.size());
      for (size_t r = 0; r < want.size(); ++r) ASSERT_EQ(got[r], want[r]) << "row " << r;
      // Random rows make every row's value nonzero with overwhelming probability: the comparison
      // is not between two zero vectors.
      if (dag.num_constraints() > 0) {
        EXPECT_NE(want[0], Fp4::zero());
      }
    }
  }
};
VKSTARK_INSTANTIATE_FOR_EXECUTORS(ConstraintEval);

constexpr uint32_t kLogHeights[] = {0, 1, 2, 10};

TEST_P(ConstraintEval, FibonacciMatchesTheHostEvaluator) {
  expect_matches_host(symbolic_air(FibonacciAir()), kLogHeights, 1);
}

// An independent reference: the five Fibonacci constraints written out by hand (not through the
// DAG), folded with lambda^k for the constraint's place k in node order.
TEST_P(ConstraintEval, FibonacciMatchesItsConstraintsWrittenByHand) {
  const SymbolicAir air = symbolic_air(FibonacciAir());
  std::vector<uint32_t> roots;
  const SymbolicDag dag = build_dag(air, &roots);
  ASSERT_EQ(roots.size(), 5u);
  auto kernel = make_constraint_kernel(air.name, dag, air.shape);
  const uint32_t log_h = 3, h = 1u << log_h;
  const HostTrace rows = random_trace(air.shape, h, 7);
  const std::vector<Fp4> lp = powers(random_ext(8), dag.num_constraints());
  const std::vector<Fp4> got = run_kernel(*kernel, air.shape, rows, lp, log_h);
  auto lambda_of = [&](uint32_t c) {
    return lp[std::lower_bound(dag.constraint_idx.begin(), dag.constraint_idx.end(), roots[c]) -
              dag.constraint_idx.begin()];
  };
  const std::vector<Fp>& pv = rows.public_values;
  for (uint32_t r = 0; r < h; ++r) {
    const TraceMatrix& m = rows.parts[0];
    const Fp left = m.at(r, 0), right = m.at(r, 1), next_left = m.at((r + 1) % h, 0), next_right = m.at((r + 1) % h, 1);
    const Fp first = r == 0 ? Fp::one() : Fp::zero(), last = r == h - 1 ? Fp::one() : Fp::zero();
    const Fp transition = Fp::one() - last;
    const Fp c[5] = {first * (left - pv[0]), first * (right - pv[1]), transition * (right - next_left),
                     transition * (left + right - next_right), last * (right - pv[2])};
    Fp4 want;
    for (uint32_t k = 0; k < 5; ++k) want += lambda_of(k) * c[k];
    ASSERT_EQ(got[r], want) << "row " << r;
  }
  // A valid trace satisfies every constraint: all zeros.
  const FibonacciTrace valid = fibonacci_trace(Fp::from_canonical(1), Fp::from_canonical(1), h);
  const std::vector<Fp4> zeros =
      run_kernel(*kernel, air.shape, HostTrace{{valid.main}, valid.public_values}, lp, log_h);
  EXPECT_EQ(zeros, std::vector<Fp4>(h, Fp4::zero()));
}

TEST_P(ConstraintEval, ReadsEveryPartPublicValueAndSelector) {
  expect_matches_host(symbolic_air(EveryReadAir()), kLogHeights, 2);
}

TEST_P(ConstraintEval, TakesAnEmptyPublicValuesViewWhenTheAirHasNone) {
  expect_matches_host(symbolic_air(NoPublicValuesAir()), kLogHeights, 3, /*empty_public_values=*/true);
  // A zero-count view of some buffer is as good.
  expect_matches_host(symbolic_air(NoPublicValuesAir()), std::vector<uint32_t>{2}, 4);
}

// 2^23 rows: 2^17 workgroups of 64, more than the 65535 a dispatch has along x, so the grid spills
// into y (runtime.glsl). Sampled rows (the first, the last, both sides of each spill row, and a
// stride through the rest) against the host evaluator. 2^24 rows need a 256 MiB `out`, more than
// one binding holds on lavapipe (maxStorageBufferRange 128 MiB), as does a part of more than one
// column here: so one column per part, and 2^23.
TEST_P(ConstraintEval, HandlesHeightsThatSpillTheGridIntoY) {
  const SymbolicAir air = symbolic_air(OneColumnPartsAir());
  const SymbolicDag dag = build_dag(air);
  auto kernel = make_constraint_kernel(air.name, dag, air.shape);
  const uint32_t log_h = 23, h = 1u << log_h;
  const HostTrace rows = random_trace(air.shape, h, 21);
  const std::vector<Fp4> lp = powers(random_ext(22), dag.num_constraints());
  const std::vector<Fp4> got = run_kernel(*kernel, air.shape, rows, lp, log_h);
  ASSERT_EQ(got.size(), h);
  std::vector<uint32_t> sample = {0, 1, h / 2, h - 2, h - 1};
  for (uint32_t spill = 65535u * 64; spill < h; spill += 65535u * 64) sample.insert(sample.end(), {spill - 1, spill});
  for (uint32_t r = 3; r < h; r += 40961) sample.push_back(r);
  TraceRows host(rows.parts, rows.public_values);
  std::vector<Fp> values;
  for (uint32_t r : sample) {
    host.set_row(r);
    eval_nodes(dag, air.shape, host, values);
    ASSERT_EQ(got[r], fold_constraints<Fp>(dag, values, lp)) << "row " << r;
  }
}

// The kernel in chunks of a few operations each (every EveryReadAir constraint its own chunk or
// close), adding into one sum one chunk after another, into a few partial sums side by side, or
// into one partial sum per chunk: the same values as the host evaluator at every height.
TEST_P(ConstraintEval, ChunksAddUpToTheHostEvaluatorsValues) {
  const SymbolicAir air = symbolic_air(EveryReadAir());
  const SymbolicDag dag = build_dag(air);
  ASSERT_GE(make_constraint_kernel(air.name, dag, air.shape, 3)->chunks.size(), 8u);
  for (uint64_t concurrent_rows : {uint64_t(1), uint64_t(1) << 12, uint64_t(1) << 20}) {
    SCOPED_TRACE(fmt::format("{} rows side by side", concurrent_rows));
    expect_matches_host(air, kLogHeights, 40, false, /*chunk_nodes=*/3, concurrent_rows);
  }
}

// The lazy fold at its bounds: every constraint value p - 1 (bare columns of a trace of p - 1) and
// every lambda coefficient p - 1, so that each product is the largest there is; 61 constraints,
// each count of products since a reduction passes by.
TEST_P(ConstraintEval, FoldsTheLargestProductsWithoutOverflow) {
  SymbolicAir air{.name = "extreme", .shape = {.common_width = 61}, .constraints = {}, .interactions = {}};
  for (uint32_t c = 0; c < 61; ++c) air.constraints.push_back(Expr::variable({EntryKind::Main, 0, 0, c}));
  const SymbolicDag dag = build_dag(air);
  auto kernel = make_constraint_kernel(air.name, dag, air.shape);
  const Fp top = Fp::from_canonical(Fp::P - 1);
  HostTrace rows{{TraceMatrix(61, 4)}, {}};
  std::fill(rows.parts[0].values.begin(), rows.parts[0].values.end(), top);
  for (uint32_t used : {1u, 2u, 3u, 4u, 7u, 61u}) {
    SCOPED_TRACE(fmt::format("{} constraints", used));
    std::vector<Fp4> lp(61, Fp4(top, top, top, top));
    std::fill(lp.begin() + used, lp.end(), Fp4::zero());
    const std::vector<Fp4> want = eval_constraints_on_trace(dag, air.shape, rows.parts, {}, lp);
    EXPECT_EQ(want[0], Fp4(top, top, top, top) * Fp4(top * Fp::from_canonical(used)));
    EXPECT_EQ(run_kernel(*kernel, air.shape, rows, lp, 2), want);
  }
}

TEST_P(ConstraintEval, GivesZeroWithoutConstraints) {
  SymbolicAir air{.name = "only_interactions", .shape = {.common_width = 1}, .constraints = {}, .interactions = {}};
  air.interactions.push_back({.bus = 1, .message = {Expr::variable({EntryKind::Main, 0, 0, 0})}, .count = Expr(1)});
  const SymbolicDag dag = build_dag(air);
  auto kernel = make_constraint_kernel(air.name, dag, air.shape);
  const std::vector<Fp4> got = run_kernel(*kernel, air.shape, random_trace(air.shape, 4, 5), {}, 2);
  EXPECT_EQ(got, std::vector<Fp4>(4, Fp4::zero()));
}

// A large random DAG: 400 constraints, about 8k nodes, 500 columns in four parts, many chunks.
// (On lavapipe a DAG of 20k nodes took 103 s, nearly all of it llvmpipe's JIT at the first dispatch.)
TEST_P(ConstraintEval, LargeRandomDagMatchesTheHostEvaluator) {
  const AirShape shape{
      .preprocessed_width = 40, .cached_widths = {60, 100}, .common_width = 300, .num_public_values = 8};
  const SymbolicAir air = random_air(shape, 400, 16000, 11);
  const SymbolicDag dag = build_dag(air);
  const std::vector<bool> live = dag.live_nodes();
  EXPECT_GE(std::count(live.begin(), live.end(), true), 7000);
  EXPECT_GE(dag.num_constraints(), 380u);
  EXPECT_GE(make_constraint_kernel(air.name, dag, air.shape)->chunks.size(), 8u);
  expect_matches_host(air, std::vector<uint32_t>{1, 10}, 6);
}

// Every test AIR of protocol.md 15.2 (the mixture fixture's twelve, and the preprocessed + cached
// AIR): random rows against the host evaluator.
TEST_P(ConstraintEval, EveryTestAirMatchesTheHostEvaluator) {
  std::vector<AirWithTraces> airs = mixture_fixture_standard(3);
  for (AirWithTraces& a : preprocessed_and_cached_fixture({true, false, true, false}, 2)) airs.push_back(std::move(a));
  ASSERT_EQ(airs.size(), 13u);
  uint32_t with_constraints = 0;
  for (size_t i = 0; i < airs.size(); ++i) {
    const SymbolicAir air = symbolic_air(*airs[i].air);
    with_constraints += air.constraints.empty() ? 0 : 1;  // the others: zero on every row
    expect_matches_host(air, std::vector<uint32_t>{0, 3}, 50 + i, air.shape.num_public_values == 0);
  }
  EXPECT_EQ(with_constraints, 3u);  // Fibonacci, preprocessed Fibonacci, preprocessed + cached
}

// The Keccak-f AIR (2633 columns, 3182 constraints, 83 chunks): random rows against the host
// evaluator, and a valid trace of one permutation (32 rows) gives zero on every row. About 80 s on
// lavapipe (llvmpipe's JIT of 83 pipelines at the first dispatch).
TEST_P(ConstraintEval, KeccakMatchesTheHostEvaluatorAndAcceptsAValidTrace) {
  const SymbolicAir air = symbolic_air(KeccakAir());
  expect_matches_host(air, std::vector<uint32_t>{0, 2}, 12);
  const SymbolicDag dag = build_dag(air);
  auto kernel = make_constraint_kernel(air.name, dag, air.shape);
  std::array<uint64_t, 25> state{};
  for (uint32_t i = 0; i < 25; ++i) state[i] = 0x9e3779b97f4a7c15ull * (i + 1);
  const TraceMatrix valid = keccak_trace(std::vector<std::array<uint64_t, 25>>{state});
  ASSERT_EQ(valid.height, 32u);
  const std::vector<Fp4> lp = powers(random_ext(13), dag.num_constraints());
  EXPECT_EQ(run_kernel(*kernel, air.shape, HostTrace{{valid}, {}}, lp, 5), std::vector<Fp4>(32, Fp4::zero()));
}

// ------------------------------------------------------------------------------------------------
// Graph building.

class ConstraintKernelGraph : public ::testing::Test {
 protected:
  SymbolicAir air = symbolic_air(EveryReadAir());
  SymbolicDag dag = build_dag(air);
  std::shared_ptr<const ConstraintKernel> kernel = make_constraint_kernel(air.name, dag, air.shape);
};

TEST_F(ConstraintKernelGraph, ViewsOfTheWrongSizeAreGraphErrorsNamingTheTask) {
  const uint32_t log_h = 4, h = 16;
  const std::vector<uint32_t> widths = air.shape.row_view_widths();
  Graph g;
  std::vector<Buffer<Fp>> bufs;
  std::vector<View<Fp>> parts;
  for (size_t p = 0; p < widths.size(); ++p) {
    bufs.push_back(g.input<Fp>(fmt::format("part{}", p), widths[p] * h + 1));
    parts.push_back(bufs.back().slice(0, widths[p] * h));
  }
  auto pvs = g.input<Fp>("pvs", 4);
  auto lambdas = g.input<Fp4>("lambdas", dag.num_constraints());
  auto out = g.output<Fp4>("out", h + 1);
  const View<Fp> pv = pvs.slice(0, 3);
  const View<Fp4> lp = lambdas.all(), o = out.slice(0, h);
  auto expect_error = [&](const std::string& what, auto&& add) {
    try {
      add();
      ADD_FAILURE() << "no GraphError for " << what;
    } catch (const GraphError& e) {
      EXPECT_NE(std::string(e.what()).find("every_read.constraints.t"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  };
  const std::string task = "every_read.constraints.t";
  eval_constraints(g, task, *kernel, air.shape, parts, pv, lp, o, log_h);  // the right sizes
  std::vector<View<Fp>> wrong = parts;
  wrong[2] = bufs[2].slice(0, widths[2] * h + 1);
  expect_error("trace part 2 has 65 values",
               [&] { eval_constraints(g, task, *kernel, air.shape, wrong, pv, lp, o, log_h); });
  expect_error("3 trace parts, the AIR has 4",
               [&] { eval_constraints(g, task, *kernel, air.shape, std::span(parts).first(3), pv, lp, o, log_h); });
  expect_error("4 public values, the AIR has 3",
               [&] { eval_constraints(g, task, *kernel, air.shape, parts, pvs.all(), lp, o, log_h); });
  expect_error("0 public values, the AIR has 3",
               [&] { eval_constraints(g, task, *kernel, air.shape, parts, View<Fp>{}, lp, o, log_h); });
  expect_error(
      fmt::format("{} lambda powers, the AIR has {} constraints", dag.num_constraints() - 1, dag.num_constraints()),
      [&] {
        eval_constraints(g, task, *kernel, air.shape, parts, pv, lambdas.slice(1, dag.num_constraints() - 1), o, log_h);
      });
  expect_error("out has 17 values",
               [&] { eval_constraints(g, task, *kernel, air.shape, parts, pv, lp, out.all(), log_h); });
  expect_error("trace part 0 has 48 values, not width 3 x height 32",
               [&] { eval_constraints(g, task, *kernel, air.shape, parts, pv, lp, o, log_h + 1); });
  AirShape other = air.shape;
  other.common_width += 1;
  expect_error("not the one the kernel was made for",
               [&] { eval_constraints(g, task, *kernel, other, parts, pv, lp, o, log_h); });
  auto fib = make_constraint_kernel("fibonacci", build_dag(symbolic_air(FibonacciAir())), FibonacciAir().shape());
  expect_error("not the one the kernel was made for",
               [&] { eval_constraints(g, task, *fib, air.shape, parts, pv, lp, o, log_h); });
  EXPECT_EQ(g.tasks().size(), 2u);  // the zero fill and the one chunk
}

// Chunks: consecutive constraints, together all of them; each chunk's operations (counted here
// again, independently, as the operation nodes its constraints reach) at most the bound unless it
// holds one constraint; the greedy cut: a chunk ends only where its next constraint would not fit.
TEST(ConstraintKernelMake, PartitionsConstraintsIntoBoundedChunks) {
  const AirShape shape{.preprocessed_width = 4, .cached_widths = {6}, .common_width = 30, .num_public_values = 2};
  const SymbolicDag dag = build_dag(random_air(shape, 200, 6000, 3));
  auto operations = [&](uint32_t first, uint32_t count) {
    std::vector<bool> seen(dag.nodes.size(), false);
    std::vector<uint32_t> stack(dag.constraint_idx.begin() + first, dag.constraint_idx.begin() + first + count);
    uint64_t ops = 0;
    while (!stack.empty()) {
      const uint32_t i = stack.back();
      stack.pop_back();
      if (seen[i]) continue;
      seen[i] = true;
      const DagNode& d = dag.nodes[i];
      if (d.kind == NodeKind::Add || d.kind == NodeKind::Sub || d.kind == NodeKind::Mul) {
        stack.push_back(d.left);
        stack.push_back(d.right);
        ++ops;
      } else if (d.kind == NodeKind::Neg) {
        stack.push_back(d.left);
        ++ops;
      }
    }
    return ops;
  };
  for (uint32_t bound : {1u, 10u, 100u, 1000u, 1u << 30}) {
    SCOPED_TRACE(fmt::format("bound {}", bound));
    const std::vector<ConstraintRange> chunks = partition_constraints(dag, bound);
    ASSERT_FALSE(chunks.empty());
    uint32_t next = 0;
    for (size_t c = 0; c < chunks.size(); ++c) {
      const ConstraintRange& r = chunks[c];
      ASSERT_EQ(r.first, next);
      ASSERT_GE(r.count, 1u);
      EXPECT_EQ(r.nodes, operations(r.first, r.count));
      if (r.count > 1) {
        EXPECT_LE(r.nodes, bound);
      }
      if (c + 1 < chunks.size()) {
        EXPECT_GT(operations(r.first, r.count + 1), bound);
      }
      next += r.count;
    }
    EXPECT_EQ(next, dag.num_constraints());
  }
  EXPECT_EQ(partition_constraints(dag, 1u << 30).size(), 1u);
  EXPECT_TRUE(partition_constraints(build_dag(std::vector<Expr>{}, {}), 10).empty());
}

// Chunk kernels are named after the AIR and their place; with S partial sums, S consecutive chunks
// have no barrier between them (they run side by side), and the sum waits for all.
TEST(ConstraintKernelMake, ChunksOfAShortTraceRunSideBySide) {
  const SymbolicAir air = symbolic_air(EveryReadAir());
  const SymbolicDag dag = build_dag(air);
  auto kernel = make_constraint_kernel(air.name, dag, air.shape, 3);
  const size_t n = kernel->chunks.size();
  ASSERT_GE(n, 8u);
  EXPECT_EQ(kernel->chunks[1].kernel->name, "every_read_constraints_1");
  const uint32_t log_h = 4, h = 16;
  Graph g;
  std::vector<View<Fp>> parts;
  for (uint32_t w : air.shape.row_view_widths())
    parts.push_back(g.input<Fp>(fmt::format("p{}", parts.size()), w * h).all());
  auto pvs = g.input<Fp>("pvs", 3);
  auto lambdas = g.input<Fp4>("lambdas", dag.num_constraints());
  auto out = g.output<Fp4>("out", h);
  eval_constraints(g, "c", *kernel, air.shape, parts, pvs.all(), lambdas.all(), out.all(), log_h, 4 * h);  // S = 4
  ASSERT_EQ(g.tasks().size(), n + 2);  // zero, chunks, sum
  EXPECT_EQ(g.tasks()[1].name, "c.0");
  EXPECT_EQ(g.tasks().back().name, "c.sum");
  const Plan plan = compile(g);
  ASSERT_EQ(plan.segments.size(), 1u);
  const std::vector<Step>& steps = plan.segments[0].steps;
  ASSERT_EQ(steps.size(), n + 2);
  for (size_t c = 0; c < n; ++c)  // step c + 1 is chunk c: a barrier every 4 chunks (after the zero fill)
    EXPECT_EQ(steps[c + 1].barrier != BarrierKind::None, c % 4 == 0) << "chunk " << c;
  EXPECT_NE(steps.back().barrier, BarrierKind::None);
}

TEST(ConstraintKernelMake, NamesTheKernelAfterTheAirAsAGlslIdentifier) {
  const SymbolicAir air = symbolic_air(FibonacciAir());
  const SymbolicDag dag = build_dag(air);
  EXPECT_EQ(make_constraint_kernel("fibonacci", dag, air.shape)->name, "fibonacci_constraints");
  EXPECT_EQ(make_constraint_kernel("my-air v2.1", dag, air.shape)->name, "my_air_v2_1_constraints");
  EXPECT_EQ(make_constraint_kernel("__x__", dag, air.shape)->name, "x_constraints");
  EXPECT_EQ(make_constraint_kernel("3sum", dag, air.shape)->name, "air_3sum_constraints");
}

// Operations used once are written inside their user's expression, nested at most a few deep, so
// that a long chain of them does not recurse deeply in glslang.
TEST(ConstraintKernelMake, LongChainsOfSingleUseNodesCompile) {
  const Expr x = Expr::variable({EntryKind::Main, 0, 0, 0}), y = Expr::variable({EntryKind::Main, 0, 1, 1});
  Expr chain = x;
  for (int i = 0; i < 20000; ++i) chain = chain * y + x;
  SymbolicAir air;
  air.name = "chain";
  air.shape.common_width = 2;
  air.constraints = {chain};
  const SymbolicDag dag = build_dag(air);
  ASSERT_GE(dag.nodes.size(), 40000u);
  EXPECT_NO_THROW((void)make_constraint_kernel(air.name, dag, air.shape));
}

TEST(ConstraintKernelMake, MoreThanEightPartsIsAnInputErrorNamingTheAir) {
  SymbolicAir air;
  air.name = "wide";
  air.shape.preprocessed_width = 1;
  air.shape.cached_widths.assign(7, 1);
  air.shape.common_width = 1;
  air.constraints = {Expr::variable({EntryKind::Main, 0, 0, 0})};
  try {
    (void)make_constraint_kernel(air.name, build_dag(air), air.shape);
    FAIL() << "no InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("AIR wide: 9 trace parts"), std::string::npos) << e.what();
  }
  air.shape.cached_widths.pop_back();  // 8 parts: the most a kernel takes
  EXPECT_NO_THROW((void)make_constraint_kernel(air.name, build_dag(air), air.shape));
}

TEST(ConstraintKernelMake, ADagThatReadsPastItsShapeIsAnInputErrorNamingTheAir) {
  auto expect = [](const Expr& c, const AirShape& shape, const std::string& what) {
    const SymbolicDag dag = build_dag(std::vector<Expr>{c}, {});
    try {
      (void)make_constraint_kernel("bad", dag, shape);
      ADD_FAILURE() << "no InputError for " << what;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("AIR bad: "), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  };
  const AirShape shape{.cached_widths = {2}, .common_width = 3, .num_public_values = 1};
  expect(Expr::variable({EntryKind::Main, 1, 0, 3}), shape, "column 3 of row-view part 1, which has 3 columns");
  expect(Expr::variable({EntryKind::Main, 2, 0, 0}), shape, "main part 2, the AIR has 2");
  expect(Expr::variable({EntryKind::Preprocessed, 0, 0, 0}), shape, "the preprocessed part, the AIR has none");
  expect(Expr::variable({EntryKind::Public, 0, 0, 1}) * Expr(3), shape, "public value 1, the AIR has 1");
  expect(Expr::variable({EntryKind::Main, 0, 2, 0}), shape, "row offset 2");
  expect(Expr::variable({EntryKind::Challenge, 0, 0, 0}) + Expr(1), shape, "challenge");
}

// The generated code stays compact at scale (about 20 bytes per node, no comments) and comes in
// basic blocks of at most a few hundred operations: what glslang and the driver compilers have to
// read grows linearly with a small constant.
TEST(ConstraintKernelMake, GeneratedGlslIsCompactAndInShortBlocks) {
  const AirShape shape{
      .preprocessed_width = 40, .cached_widths = {60, 100}, .common_width = 300, .num_public_values = 8};
  const SymbolicAir air = random_air(shape, 1000, 40000, 11);
  const SymbolicDag dag = build_dag(air);
  const std::string glsl = constraint_glsl_body(dag, shape);
  const std::vector<bool> live = dag.live_nodes();
  const size_t live_count = std::count(live.begin(), live.end(), true);
  EXPECT_LT(glsl.size(), 32 * live_count) << glsl.size() << " bytes for " << live_count << " nodes";
  EXPECT_EQ(glsl.find("//"), std::string::npos);  // no comments
  size_t splits = 0;
  for (size_t at = glsl.find("if(pc.grid_y==0u)return;"); at != std::string::npos;
       at = glsl.find("if(pc.grid_y==0u)return;", at + 1))
    ++splits;
  EXPECT_GE(splits, live_count / 300);
  // Nodes only interactions reach are not evaluated.
  SymbolicAir fib = symbolic_air(FibonacciAir());
  fib.interactions.push_back(
      {.bus = 0, .message = {Expr::variable({EntryKind::Main, 0, 0, 0}) * Expr(12345)}, .count = Expr(1)});
  const SymbolicDag fib_dag = build_dag(fib);
  const std::string fib_glsl = constraint_glsl_body(fib_dag, fib.shape);
  EXPECT_EQ(fib_glsl.find(fmt::format("{}u", Fp::from_canonical(12345).mont())), std::string::npos) << fib_glsl;
}

}  // namespace
