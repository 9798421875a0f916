// Specifies the CPU body of the constraint kernel (stages/compiler/eval_cpu.hpp): the DAG compiled
// into an instruction stream over blocks of rows gives, on every SIMD level the processor has, the
// same bits as the host evaluator (eval_constraints_on_trace, a row-by-row walk of the DAG that
// shares no code with it) for the Fibonacci AIR, a hand-made AIR that reads every kind of variable,
// and a random DAG; heights below one block included. Also: registers are reused by liveness, nodes
// that only interactions read are not evaluated, inputs that do not fit are InputErrors, and the
// kernel body runs through the CPU executor.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <bit>
#include <random>

#include "executors/cpu/cpu_executor.hpp"
#include "kernels/basic.hpp"
#include "kernels/field/simd_level.hpp"
#include "kernels/glsl/compiler.hpp"
#include "product/airs/fibonacci.hpp"
#include "runtime/error.hpp"
#include "runtime/graph.hpp"
#include "runtime/plan.hpp"
#include "stages/air/eval.hpp"
#include "stages/compiler/constraint_kernel.hpp"
#include "stages/compiler/eval_cpu.hpp"

using namespace vkstark;

namespace {

const std::vector<uint32_t> kHeights = {1, 2, 8, 64, 128, 1024};

std::vector<SimdLevel> levels() {
  std::vector<SimdLevel> l{SimdLevel::Scalar};
  if (detected_simd_level() >= SimdLevel::Avx2) l.push_back(SimdLevel::Avx2);
  if (detected_simd_level() >= SimdLevel::Avx512) l.push_back(SimdLevel::Avx512);
  return l;
}

// Restores the SIMD level the test found.
class SimdLevelScope {
 public:
  explicit SimdLevelScope(SimdLevel level) { set_cpu_simd_level(level); }
  ~SimdLevelScope() { set_cpu_simd_level(saved_); }

 private:
  SimdLevel saved_ = cpu_simd_level();
};

// Random elements with the edge values 0, 1 and p - 1 often.
Fp random_fp(std::mt19937_64& rng) {
  switch (rng() % 8) {
    case 0:
      return Fp::zero();
    case 1:
      return Fp::one();
    case 2:
      return -Fp::one();
    default:
      return Fp::reduce(rng());
  }
}

std::vector<TraceMatrix> random_parts(const AirShape& shape, uint32_t height, std::mt19937_64& rng) {
  std::vector<TraceMatrix> parts;
  for (uint32_t w : shape.row_view_widths()) {
    parts.emplace_back(w, height);
    for (Fp& v : parts.back().values) v = random_fp(rng);
  }
  return parts;
}

std::vector<Fp> random_values(size_t n, std::mt19937_64& rng) {
  std::vector<Fp> v(n);
  for (Fp& x : v) x = random_fp(rng);
  return v;
}

std::vector<Fp4> random_lambda_powers(size_t n, std::mt19937_64& rng) {
  return powers(Fp4(Fp::reduce(rng()), Fp::reduce(rng()), Fp::reduce(rng()), Fp::reduce(rng())), n);
}

std::vector<Fp4> eval_cpu(const CompiledConstraints& c, const std::vector<TraceMatrix>& parts,
                          std::span<const Fp> public_values, std::span<const Fp4> lambda_powers) {
  std::vector<std::span<const Fp>> spans;
  for (const TraceMatrix& m : parts) spans.emplace_back(m.values);
  const uint32_t height = parts.front().height;
  std::vector<Fp4> out(height);
  eval_constraints_cpu(c, spans, public_values, lambda_powers, out, std::countr_zero(height));
  return out;
}

// The CPU body against the host evaluator at every SIMD level; `zero` also expects every row 0.
void expect_matches_host(const SymbolicDag& dag, const AirShape& shape, const std::vector<TraceMatrix>& parts,
                         const std::vector<Fp>& public_values, const std::vector<Fp4>& lambda_powers,
                         bool zero = false) {
  const std::vector<Fp4> want = eval_constraints_on_trace(dag, shape, parts, public_values, lambda_powers);
  const CompiledConstraints c(dag, shape);
  for (SimdLevel level : levels()) {
    SimdLevelScope scope(level);
    const std::vector<Fp4> got = eval_cpu(c, parts, public_values, lambda_powers);
    ASSERT_EQ(got.size(), want.size());
    for (size_t r = 0; r < want.size(); ++r) {
      ASSERT_EQ(got[r], want[r]) << "row " << r << " of " << want.size() << " at " << to_string(level);
      if (zero) {
        ASSERT_TRUE(got[r].is_zero()) << "row " << r;
      }
    }
  }
}

// Reads every kind of row-view entry: a preprocessed part, two cached parts and the common part,
// each local and next; public values; all three selectors; constants, Neg, nested filters.
class EveryEntryAir final : public Air {
 public:
  std::string name() const override { return "every_entry"; }
  AirShape shape() const override {
    return {.preprocessed_width = 3, .cached_widths = {2, 4}, .common_width = 5, .num_public_values = 4};
  }
  void eval(AirBuilder& b) const override {
    const Window pre = b.preprocessed(), c0 = b.cached(0), c1 = b.cached(1), m = b.main();
    b.when_first_row().assert_eq(m.local(0), b.public_value(0));
    b.when_first_row().assert_eq(pre.local(2) * c0.local(1), b.public_value(1) + Expr(7));
    b.when_last_row().assert_eq(m.local(4), b.public_value(2) * b.public_value(3));
    b.when_transition().assert_eq(m.next(1), m.local(0) * pre.local(0) + c1.next(3));
    b.when_transition().when(pre.next(1)).assert_zero(-(c0.next(0) - c1.local(2)) * m.local(3));
    b.assert_bool(c1.local(0));
    b.assert_zero(xor3(m.local(2), c1.next(1), pre.next(2)) - andn(c0.local(0), m.next(4)));
    b.assert_zero(b.is_first_row() + b.is_last_row() + b.is_transition() - Expr(1));
    b.assert_zero(m.local(1) * m.local(1) * m.local(1) - Expr(-3) * b.is_transition() * c1.local(1));
    b.assert_eq(b.public_value(3), Expr(Fp::P - 1) * m.next(2));
  }
};

// A random DAG over every entry kind: operands mostly recent nodes, some far back (long live
// ranges); Neg nodes and unused nodes kept, since no simplification runs.
SymbolicDag random_dag(const AirShape& shape, uint32_t num_nodes, uint32_t num_constraints, std::mt19937_64& rng) {
  SymbolicDag dag;
  const uint32_t pre = shape.preprocessed_width > 0 ? 1 : 0;
  const std::vector<uint32_t> widths = shape.row_view_widths();
  auto operand = [&](uint32_t i) {
    return rng() % 2 ? uint32_t(i - 1 - rng() % std::min<uint32_t>(i, 64)) : uint32_t(rng() % i);
  };
  for (uint32_t i = 0; i < num_nodes; ++i) {
    DagNode n;
    const uint32_t pick = i == 0 ? 0 : rng() % 100;
    if (pick < 15) {
      const uint32_t part = rng() % widths.size();
      n.kind = NodeKind::Variable;
      n.var.entry = pre && part == 0 ? EntryKind::Preprocessed : EntryKind::Main;
      n.var.part = n.var.entry == EntryKind::Main ? part - pre : 0;
      n.var.offset = rng() % 2;
      n.var.index = rng() % widths[part];
    } else if (pick < 17) {
      n.kind = NodeKind::Constant;
      n.constant = random_fp(rng);
    } else if (pick < 18) {
      n.kind = NodeKind::Variable;
      n.var = {EntryKind::Public, 0, 0, uint32_t(rng() % shape.num_public_values)};
    } else if (pick < 20) {
      n.kind = static_cast<NodeKind>(1 + rng() % 3);
    } else if (pick < 25) {
      n.kind = NodeKind::Neg;
      n.left = operand(i);
    } else {
      n.kind = pick < 50 ? NodeKind::Add : pick < 75 ? NodeKind::Sub : NodeKind::Mul;
      n.left = operand(i);
      n.right = operand(i);
    }
    dag.nodes.push_back(n);
  }
  std::vector<uint32_t> all(num_nodes);
  for (uint32_t i = 0; i < num_nodes; ++i) all[i] = i;
  std::shuffle(all.begin(), all.end(), rng);
  dag.constraint_idx.assign(all.begin(), all.begin() + num_constraints);
  std::sort(dag.constraint_idx.begin(), dag.constraint_idx.end());
  return dag;
}

Expr main_var(uint32_t col, uint32_t offset = 0) { return Expr::variable({EntryKind::Main, 0, offset, col}); }

}  // namespace

TEST(ConstraintCpu, FibonacciValidTraceFoldsToZeroAtEveryHeight) {
  const SymbolicAir air = symbolic_air(FibonacciAir());
  const SymbolicDag dag = build_dag(air);
  std::mt19937_64 rng(1);
  for (uint32_t h : kHeights) {
    SCOPED_TRACE(h);
    const FibonacciTrace t = fibonacci_trace(Fp::from_canonical(3), Fp::from_canonical(5), h);
    expect_matches_host(dag, air.shape, {t.main}, t.public_values, random_lambda_powers(5, rng), true);
  }
}

TEST(ConstraintCpu, FibonacciRandomTraceMatchesTheHostEvaluator) {
  const SymbolicAir air = symbolic_air(FibonacciAir());
  const SymbolicDag dag = build_dag(air);
  std::mt19937_64 rng(2);
  for (uint32_t h : kHeights) {
    SCOPED_TRACE(h);
    expect_matches_host(dag, air.shape, random_parts(air.shape, h, rng), random_values(3, rng),
                        random_lambda_powers(5, rng));
  }
}

TEST(ConstraintCpu, EveryEntryKindMatchesTheHostEvaluator) {
  const EveryEntryAir every;
  const SymbolicAir air = symbolic_air(every);
  const SymbolicDag dag = build_dag(air);
  ASSERT_TRUE(dag.need_rot());
  std::mt19937_64 rng(3);
  for (uint32_t h : kHeights) {
    SCOPED_TRACE(h);
    // Longer lambda_powers than constraints: only the first num_constraints are read.
    expect_matches_host(dag, air.shape, random_parts(air.shape, h, rng), random_values(4, rng),
                        random_lambda_powers(dag.num_constraints() + 3, rng));
  }
}

TEST(ConstraintCpu, RandomDagMatchesTheHostEvaluator) {
  const AirShape shape{
      .preprocessed_width = 50, .cached_widths = {100, 150}, .common_width = 200, .num_public_values = 6};
  std::mt19937_64 rng(4);
  const SymbolicDag dag = random_dag(shape, 20000, 1000, rng);
  const std::vector<uint32_t> kinds = dag.count_by_kind();
  for (NodeKind k : {NodeKind::Variable, NodeKind::IsFirstRow, NodeKind::IsLastRow, NodeKind::IsTransition,
                     NodeKind::Constant, NodeKind::Add, NodeKind::Sub, NodeKind::Neg, NodeKind::Mul})
    ASSERT_GT(kinds[size_t(k)], 0u) << int(k);
  const CompiledConstraints c(dag, shape);
  EXPECT_LT(c.num_nodes(), dag.nodes.size());  // some random nodes no constraint reaches
  for (uint32_t h : kHeights) {
    SCOPED_TRACE(h);
    expect_matches_host(dag, shape, random_parts(shape, h, rng), random_values(6, rng),
                        random_lambda_powers(1000, rng));
  }
}

TEST(ConstraintCpu, ManyFoldedConstraintsOfTheLargestWordsStayExact) {
  // 4099 constraints that all hold the Montgomery word p - 1, folded with lambda powers whose
  // coefficients are all that word: every lazy product is the largest possible.
  const Fp top = Fp::from_mont(Fp::P - 1);
  const AirShape shape{.common_width = 1};
  SymbolicDag dag;
  DagNode x, one, mul;
  x.kind = NodeKind::Variable;
  x.var = {EntryKind::Main, 0, 0, 0};
  one.kind = NodeKind::Constant;
  one.constant = Fp::one();
  mul.kind = NodeKind::Mul;
  dag.nodes = {x, one};
  for (uint32_t i = 2; i < 4101; ++i) {
    mul.left = i == 2 ? 0 : i - 1;  // x * 1 * 1 * ...
    mul.right = 1;
    dag.nodes.push_back(mul);
  }
  for (uint32_t i = 2; i < 4101; ++i) dag.constraint_idx.push_back(i);
  TraceMatrix m(1, 64);
  for (Fp& v : m.values) v = top;
  const std::vector<Fp4> lambdas(4099, Fp4(top, top, top, top));
  expect_matches_host(dag, shape, {m}, {}, lambdas);
  const CompiledConstraints c(dag, shape);
  std::vector<Fp4> out(64);
  const std::vector<std::span<const Fp>> parts{m.values};
  eval_constraints_cpu(c, parts, {}, lambdas, out, 6);
  Fp4 want;
  for (int i = 0; i < 4099; ++i) want += Fp4(top, top, top, top) * top;
  EXPECT_EQ(out[0], want);
}

TEST(ConstraintCpu, RegistersAreReusedByLiveness) {
  // One constraint summing 1000 columns: each column is dead once added.
  Expr sum = main_var(0);
  for (uint32_t i = 1; i < 1000; ++i) sum = sum + main_var(i);
  const AirShape shape{.common_width = 1000};
  const SymbolicDag dag = build_dag(std::vector<Expr>{sum}, {});
  const CompiledConstraints c(dag, shape);
  EXPECT_EQ(c.num_nodes(), 1999u);
  EXPECT_EQ(c.num_instructions(), 1999u + 1);  // 1000 loads, 999 adds, one fold
  EXPECT_EQ(c.num_registers(), 3u + 2u);       // the selectors, the running sum and one column
}

TEST(ConstraintCpu, NodesOnlyInteractionsReadAreNotEvaluated) {
  InteractionExpr send{.bus = 1, .message = {main_var(0) * main_var(1) * main_var(2)}, .count = main_var(3)};
  const SymbolicDag dag = build_dag(std::vector<Expr>{main_var(0) - main_var(1)}, std::vector<InteractionExpr>{send});
  const CompiledConstraints c(dag, {.common_width = 4});
  EXPECT_EQ(c.num_nodes(), 3u);
  EXPECT_EQ(c.num_instructions(), 4u);  // two loads, the Sub, the fold
}

TEST(ConstraintCpu, VariablesOutsideTheShapeAreInputErrors) {
  auto compile_one = [](Variable v, AirShape shape) {
    const SymbolicDag dag = build_dag(std::vector<Expr>{Expr::variable(v) * Expr::variable(v)}, {});
    (void)CompiledConstraints(dag, shape);
  };
  const AirShape shape{.cached_widths = {2}, .common_width = 3, .num_public_values = 1};
  EXPECT_NO_THROW(compile_one({EntryKind::Main, 1, 1, 2}, shape));
  EXPECT_THROW(compile_one({EntryKind::Main, 1, 0, 3}, shape), InputError);          // column past the width
  EXPECT_THROW(compile_one({EntryKind::Main, 2, 0, 0}, shape), InputError);          // no such part
  EXPECT_THROW(compile_one({EntryKind::Preprocessed, 0, 0, 0}, shape), InputError);  // no preprocessed part
  EXPECT_THROW(compile_one({EntryKind::Public, 0, 0, 1}, shape), InputError);        // public value past the count
  EXPECT_THROW(compile_one({EntryKind::Challenge, 0, 0, 0}, shape), InputError);
}

TEST(ConstraintCpu, InputsThatDoNotFitAreInputErrors) {
  const SymbolicAir air = symbolic_air(FibonacciAir());
  const CompiledConstraints c(build_dag(air), air.shape);
  const FibonacciTrace t = fibonacci_trace(Fp::one(), Fp::one(), 8);
  const std::vector<Fp4> lambdas = powers(Fp4(Fp::from_canonical(9)), 5);
  std::vector<Fp4> out(8);
  const std::vector<std::span<const Fp>> parts{t.main.values};
  EXPECT_NO_THROW(eval_constraints_cpu(c, parts, t.public_values, lambdas, out, 3));
  EXPECT_THROW(eval_constraints_cpu(c, parts, t.public_values, lambdas, out, 4), InputError);  // parts too short
  EXPECT_THROW(eval_constraints_cpu(c, {}, t.public_values, lambdas, out, 3), InputError);
  EXPECT_THROW(eval_constraints_cpu(c, parts, std::span(t.public_values).first(2), lambdas, out, 3), InputError);
  EXPECT_THROW(eval_constraints_cpu(c, parts, t.public_values, std::span(lambdas).first(4), out, 3), InputError);
  EXPECT_THROW(eval_constraints_cpu(c, parts, t.public_values, lambdas, std::span(out).first(7), 3), InputError);
}

TEST(ConstraintCpu, KernelBodyRunsThroughTheCpuExecutor) {
  const EveryEntryAir every;
  const SymbolicAir air = symbolic_air(every);
  const SymbolicDag dag = build_dag(air);
  // The GLSL half only gives the kernel its interface: this test dispatches on the CPU executor.
  auto kernel = make_glsl_kernel({.name = "test_every_entry_constraints",
                                  .abi = kernel_abi<ConstraintKernelArgs>(),
                                  .body = "void main() {}\n",
                                  .cpu = constraint_cpu_body(dag, air.shape),
                                  .grid = over_args<ConstraintKernelArgs>(constraint_chunk_grid),
                                  .check = constraint_chunk_check(air.shape, dag.num_constraints())});
  std::mt19937_64 rng(5);
  const uint32_t log_h = 7, h = 1u << log_h;
  const std::vector<TraceMatrix> parts = random_parts(air.shape, h, rng);
  const std::vector<Fp> pvs = random_values(4, rng);
  const std::vector<Fp4> lambdas = random_lambda_powers(dag.num_constraints(), rng);
  Graph g;
  std::vector<Buffer<Fp>> part_bufs;
  std::vector<View<Fp>> part_views;
  for (size_t p = 0; p < parts.size(); ++p) {
    part_bufs.push_back(g.input<Fp>("part" + std::to_string(p), parts[p].values.size()));
    part_views.push_back(part_bufs.back().all());
  }
  auto pv_buf = g.input<Fp>("public_values", pvs.size());
  auto lambda_buf = g.input<Fp4>("lambda_powers", lambdas.size());
  auto out = g.output<Fp4>("out", h + 3);
  // The body adds to out: start from a known value in every coefficient.
  const Fp start = Fp::from_canonical(Fp::P - 3);
  g.dispatch<FillU32>("out.start", {.out = out.all().bitcast<uint32_t>(), .value = start.mont()});
  DynamicArgs args;
  args.views<Fp>(part_views).view(pv_buf.all()).view(lambda_buf.all()).view(out.slice(3, h)).scalar(log_h);
  g.dispatch("every_entry.constraints", kernel, args, Grid{h});
  auto exec = make_cpu_executor();
  auto run = exec->prepare(compile(g));
  for (size_t p = 0; p < parts.size(); ++p) run->upload(part_bufs[p], parts[p].values.span());
  run->upload(pv_buf, pvs);
  run->upload(lambda_buf, lambdas);
  Trace trace;
  run->run(trace);
  const std::vector<Fp4> got = run->download(out);
  const std::vector<Fp4> want = eval_constraints_on_trace(dag, air.shape, parts, pvs, lambdas);
  for (uint32_t r = 0; r < h; ++r) ASSERT_EQ(got[3 + r], want[r] + Fp4(start, start, start, start)) << "row " << r;
  EXPECT_EQ(got[0], Fp4(start, start, start, start));  // outside the dispatch's view: untouched
}

// The chunk kernel's rules (constraint_chunk_grid / constraint_chunk_check) refuse a dispatch its
// bodies would read or write past: the graph is never built, on any executor.
TEST(ConstraintCpu, TheKernelsRulesRefuseDispatchesPastItsViews) {
  const EveryEntryAir every;
  const SymbolicAir air = symbolic_air(every);
  const SymbolicDag dag = build_dag(air);
  auto kernel = make_glsl_kernel({.name = "test_every_entry_rules",
                                  .abi = kernel_abi<ConstraintKernelArgs>(),
                                  .body = "void main() {}\n",
                                  .cpu = constraint_cpu_body(dag, air.shape),
                                  .grid = over_args<ConstraintKernelArgs>(constraint_chunk_grid),
                                  .check = constraint_chunk_check(air.shape, dag.num_constraints())});
  const uint32_t log_h = 5, h = 1u << log_h;
  const std::vector<uint32_t> widths = air.shape.row_view_widths();
  Graph g;
  std::vector<View<Fp>> parts;
  for (size_t p = 0; p < widths.size(); ++p)
    parts.push_back(g.input<Fp>("part" + std::to_string(p), uint64_t(widths[p]) << log_h).all());
  auto pvs = g.input<Fp>("public_values", air.shape.num_public_values);
  auto lambdas = g.input<Fp4>("lambda_powers", dag.num_constraints());
  auto out = g.output<Fp4>("out", h);
  g.dispatch<FillU32>("out.zero", {.out = out.all().bitcast<uint32_t>(), .value = 0});  // the body adds to out
  auto dispatch = [&](std::span<const View<Fp>> ps, View<Fp4> lambda_view, View<Fp4> out_view, Grid grid) {
    DynamicArgs args;
    args.views<Fp>(ps).view(pvs.all()).view(lambda_view).view(out_view).scalar(log_h);
    g.dispatch("every_entry.constraints", kernel, args, grid);
  };
  auto expect = [&](auto&& add, const std::string& part) {
    try {
      add();
      FAIL() << "no GraphError: " << part;
    } catch (const GraphError& e) {
      EXPECT_NE(std::string(e.what()).find("task 'every_entry.constraints' (kernel test_every_entry_rules): " + part),
                std::string::npos)
          << e.what();
    }
  };
  std::vector<View<Fp>> short_part = parts;
  short_part[0] = short_part[0].slice(0, short_part[0].count - h);
  expect([&] { dispatch(short_part, lambdas.all(), out.all(), Grid{h}); }, "part 0 has");
  expect([&] { dispatch(parts, lambdas.slice(0, dag.num_constraints() - 1), out.all(), Grid{h}); },
         fmt::format("{} lambda powers", dag.num_constraints() - 1));
  expect([&] { dispatch(parts, lambdas.all(), out.slice(0, h - 1), Grid{h - 1}); }, "out has");
  expect([&] { dispatch(parts, lambdas.all(), out.all(), Grid{2 * h}); }, "grid");
  EXPECT_EQ(g.tasks().size(), 1u);
  dispatch(parts, lambdas.all(), out.all(), Grid{h});
  EXPECT_EQ(g.tasks().size(), 2u);
}
