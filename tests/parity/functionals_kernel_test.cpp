// The batch sumcheck's functionals (stages/batch_constraint/functionals.hpp) through the generated kernels
// of both fields, on both executors, against the host evaluator on the AIR's own DAG:
//   * the points kernel (base field, round 0) over random source columns: every functional at every
//     point equals sum_k c_k root_k of the original DAG evaluated on the row view the sources
//     describe (local and next columns, selectors as columns);
//   * the extension kernel (MLE rounds, stages/compiler/ext_kernel.hpp) over random Fp4 tables, at
//     X = 0 (the fully folded read of a one-entry table) and X = 1..3 (interpolated pairs), in one
//     chunk and in many (with and without side-by-side partial sums), accumulating or not;
//   * AIRs with every part kind (preprocessed, two cached parts, next rows, public values,
//     selectors) and interactions (repeated message nodes, constant fields);
//   * the mapping's errors: a next-row read without need_rot;
//   * the interpreted extension kernel (ExtKernelMode::Interpreted) and the fused one (every chunk
//     in one dispatch, ExtKernelMode::Fused) in all the cases above: the same values as the
//     generated one; programs shared by the calls on one graph; a chunk needing more slots than the
//     interpreter has is refused; a fused program directory pointing outside its words is refused.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "kernels/basic.hpp"
#include "kernels/field/simd_level.hpp"
#include "product/airs/keccak.hpp"
#include "product/airs/test_airs.hpp"
#include "runtime/error.hpp"
#include "stages/air/eval.hpp"
#include "stages/batch_constraint/functionals.hpp"
#include "stages/compiler/ext_program.hpp"
#include "tests/parity/executor_fixture.hpp"

using namespace vkstark;
using namespace vkstark::testing;

namespace {

template <class T>
T random_value(std::mt19937_64& rng) {
  if constexpr (std::is_same_v<T, Fp>) {
    return Fp::reduce(rng());
  } else {
    return Fp4(Fp::reduce(rng()), Fp::reduce(rng()), Fp::reduce(rng()), Fp::reduce(rng()));
  }
}

// The row view the sources give at one point: value = read(source column); `points`: round 0's
// sources (the next rows of the rotated columns only).
template <class T>
class SourceRow final : public RowSource<T> {
 public:
  SourceRow(const AirFunctionals& f, std::function<T(uint32_t)> column, std::span<const Fp> pvs, bool points = false)
      : f_(f), column_(std::move(column)), pvs_(pvs), points_(points) {}
  T selector(NodeKind kind) const override {
    return column_((points_ ? f_.points_columns : f_.columns) + uint32_t(kind) - uint32_t(NodeKind::IsFirstRow));
  }
  T value(uint32_t part, uint32_t offset, uint32_t col) const override {
    return column_(points_ ? points_source_column(f_.widths, f_.rotated, part, offset == 1, col)
                           : source_column(f_.widths, f_.need_rot, part, offset == 1, col));
  }
  Fp public_value(uint32_t i) const override { return pvs_[i]; }

 private:
  const AirFunctionals& f_;
  std::function<T(uint32_t)> column_;
  std::span<const Fp> pvs_;
  bool points_ = false;
};

// sum_k c_k root_k of functional `fn` with the original DAG's node values (the denominator's last
// root is the constant 1 the mapping appends).
template <class T>
Fp4 expected(const AirFunctionals& f, Functional fn, const std::vector<T>& values, std::span<const Fp4> coeffs) {
  const SymbolicDag& d = f.dag(fn);
  Fp4 acc;
  for (size_t k = 0; k < d.constraint_idx.size(); ++k) {
    const uint32_t r = d.constraint_idx[k];
    acc += coeffs[k] * (r < values.size() ? Fp4(values[r]) : Fp4::one());
  }
  return acc;
}

struct Case {
  std::string name;
  std::shared_ptr<const Air> air;
};

std::vector<Case> cases() {
  std::vector<Case> out;
  out.push_back({"preprocessed_cached", std::make_shared<PreprocessedCachedAir>(std::vector<bool>{true, false}, 2)});
  out.push_back({"fibonacci_selector", std::make_shared<FibonacciSelectorAir>(std::vector<bool>{true, false}, true)});
  out.push_back({"self_interaction", std::make_shared<SelfInteractionAir>(3, 5)});
  out.push_back({"dummy_interaction", std::make_shared<DummyInteractionAir>(2, true, 1, true)});
  return out;
}

class FunctionalKernels : public ExecutorTest {
 protected:
  // `interpreted`: the base-field fused interpreter (chunks of `chunk_nodes`); `concurrent` sets
  // its slices as eval_constraints does.
  void check_points(const Case& c, uint64_t seed, bool interpreted = false,
                    uint32_t chunk_nodes = kConstraintChunkNodes, uint64_t concurrent = kConstraintConcurrentRows,
                    KernelGeneration gen = {}) {
    const SymbolicAir sym = symbolic_air(*c.air);
    const SymbolicDag dag = build_dag(sym);
    const bool rot = dag.need_rot();
    auto k = make_air_functional_kernels(c.name, dag, sym.shape, rot, ExtKernelMode::Generated, kConstraintChunkNodes,
                                         interpreted, chunk_nodes, gen);
    for (const auto& points : k->points)
      if (points && !interpreted)
        for (const auto& chunk : points->chunks) ASSERT_EQ(chunk.kernel->cpu_only, !gen.spirv) << chunk.kernel->name;
    const AirFunctionals& f = k->f;
    std::mt19937_64 rng(seed);
    const uint32_t log_m = 5;
    const uint64_t m = uint64_t(1) << log_m;
    std::vector<Fp> cols(uint64_t(f.points_columns) * m), sels(3 * m), pvs(sym.shape.num_public_values);
    for (Fp& x : cols) x = random_value<Fp>(rng);
    for (Fp& x : sels) x = random_value<Fp>(rng);
    for (Fp& x : pvs) x = random_value<Fp>(rng);
    for (uint32_t fi = 0; fi < kFunctionals; ++fi) {
      if (!f.has(Functional(fi))) continue;
      SCOPED_TRACE(fmt::format("{} functional {}", c.name, fi));
      std::vector<Fp4> coeffs(f.dags[fi].constraint_idx.size());
      for (Fp4& x : coeffs) x = random_value<Fp4>(rng);
      Graph g;
      auto bc = g.input<Fp>("cols", cols.size()), bs = g.input<Fp>("sels", sels.size());
      auto bp = g.input<Fp>("pvs", std::max<size_t>(pvs.size(), 1));
      auto bk = g.input<Fp4>("coeffs", coeffs.size());
      auto out = g.output<Fp4>("out", m);
      const std::vector<View<Fp>> parts = {bc.all(), bs.all()};
      ASSERT_EQ(k->points[fi]->base_fused.empty(), !interpreted);
      eval_constraints(g, "points", *k->points[fi], f.points_shape, parts, bp.slice(0, pvs.size()), bk.all(), out.all(),
                       log_m, concurrent);
      auto p = run(g, [&](PreparedPlan& pp) {
        pp.upload(bc, cols);
        pp.upload(bs, sels);
        std::vector<Fp> pv = pvs;
        pv.resize(std::max<size_t>(pvs.size(), 1));
        pp.upload(bp, pv);
        pp.upload(bk, coeffs);
      });
      const std::vector<Fp4> got = p->download(out);
      std::vector<Fp> values;
      for (uint64_t pt = 0; pt < m; ++pt) {
        SourceRow<Fp> row(
            f,
            [&](uint32_t col) {
              return col < f.points_columns ? cols[col * m + pt] : sels[(col - f.points_columns) * m + pt];
            },
            pvs, true);
        eval_nodes<Fp>(dag, sym.shape, row, values);
        ASSERT_EQ(got[pt], expected<Fp>(f, Functional(fi), values, coeffs)) << "point " << pt;
      }
    }
  }

  void check_folded(const Case& c, uint64_t seed, uint32_t log_len, uint32_t x_first, uint32_t x_count,
                    uint32_t chunk_nodes, uint64_t concurrent, bool accumulate, uint32_t slices = 0,
                    ExtKernelMode mode = ExtKernelMode::Generated, std::vector<std::vector<Fp4>>* results = nullptr) {
    const SymbolicAir sym = symbolic_air(*c.air);
    const SymbolicDag dag = build_dag(sym);
    const AirFunctionals f = make_air_functionals(dag, sym.shape, dag.need_rot());
    std::mt19937_64 rng(seed);
    const uint64_t len = uint64_t(1) << log_len, y = log_len == 0 ? 1 : len / 2, points = y * x_count;
    std::vector<Fp4> cols(uint64_t(f.columns) * len), sels(3 * len), start(points);
    std::vector<Fp> pvs(sym.shape.num_public_values);
    for (Fp4& x : cols) x = random_value<Fp4>(rng);
    for (Fp4& x : sels) x = random_value<Fp4>(rng);
    for (Fp4& x : start) x = random_value<Fp4>(rng);
    for (Fp& x : pvs) x = random_value<Fp>(rng);
    for (uint32_t fi = 0; fi < kFunctionals; ++fi) {
      if (!f.has(Functional(fi))) continue;
      SCOPED_TRACE(
          fmt::format("{} functional {} log_len {} X from {} chunk_nodes {} concurrent {} accumulate {} slices {} {}",
                      c.name, fi, log_len, x_first, chunk_nodes, concurrent, accumulate, slices,
                      mode == ExtKernelMode::Generated     ? "generated"
                      : mode == ExtKernelMode::Interpreted ? "interpreted"
                                                           : "fused"));
      auto kernel =
          make_ext_constraint_kernel(fmt::format("{}_f{}", c.name, fi), f.dags[fi], f.shape, chunk_nodes, mode);
      ASSERT_EQ(kernel->mode, mode);
      std::vector<Fp4> coeffs(f.dags[fi].constraint_idx.size());
      for (Fp4& x : coeffs) x = random_value<Fp4>(rng);
      Graph g;
      auto bc = g.input<Fp4>("cols", cols.size()), bs = g.input<Fp4>("sels", sels.size());
      auto bp = g.input<Fp>("pvs", std::max<size_t>(pvs.size(), 1));
      auto bk = g.input<Fp4>("coeffs", coeffs.size());
      const uint64_t stored = points * std::max<uint32_t>(slices, 1);
      auto acc = g.input<Fp4>("start", stored);
      auto out = g.output<Fp4>("out", stored);
      const std::vector<View<Fp4>> parts = {bc.all(), bs.all()};
      auto work = g.transient<Fp4>("work", stored);
      g.dispatch<CopyU32>("start", {.src = acc.all().bitcast<uint32_t>(), .dst = work.all().bitcast<uint32_t>()});
      eval_ext_constraints(g, "folded", *kernel, f.shape, parts, bp.slice(0, pvs.size()), bk.all(), work.all(), log_len,
                           x_first, accumulate, concurrent, slices);
      g.dispatch<CopyU32>("out", {.src = work.all().bitcast<uint32_t>(), .dst = out.all().bitcast<uint32_t>()});
      auto p = run(g, [&](PreparedPlan& pp) {
        pp.upload(bc, cols);
        pp.upload(bs, sels);
        std::vector<Fp> pv = pvs;
        pv.resize(std::max<size_t>(pvs.size(), 1));
        pp.upload(bp, pv);
        pp.upload(bk, coeffs);
        std::vector<Fp4> st = start;
        st.resize(stored);
        pp.upload(acc, st);
      });
      std::vector<Fp4> got = p->download(out);
      if (results) results->push_back(got);
      for (uint32_t sl = 1; sl < slices; ++sl)  // unsummed slices: their sum is the value
        for (uint64_t o = 0; o < points; ++o) got[o] += got[sl * points + o];
      std::vector<Fp4> values;
      for (uint64_t o = 0; o < points; ++o) {
        const uint64_t yy = o % y, x = x_first + o / y;
        auto read = [&](const std::vector<Fp4>& t, uint64_t at) {
          const Fp4 a = t[at + 2 * yy];
          return x == 0 ? a : a + (t[at + 2 * yy + 1] - a) * Fp::from_canonical_unchecked(uint32_t(x));
        };
        SourceRow<Fp4> row(
            f,
            [&](uint32_t col) { return col < f.columns ? read(cols, col * len) : read(sels, (col - f.columns) * len); },
            pvs);
        eval_nodes<Fp4>(dag, sym.shape, row, values);
        const Fp4 want = expected<Fp4>(f, Functional(fi), values, coeffs) + (accumulate ? start[o] : Fp4());
        ASSERT_EQ(got[o], want) << "point " << o;
      }
    }
  }
};
VKSTARK_INSTANTIATE_FOR_EXECUTORS(FunctionalKernels);

TEST_P(FunctionalKernels, PointsKernelIsTheDagOnTheSourcesRowView) {
  uint64_t seed = 1;
  for (const Case& c : cases()) check_points(c, seed++);
}

// As a StarkProver makes them for its executor: no GLSL or SPIR-V where only CPU bodies run.
TEST_P(FunctionalKernels, PointsKernelsMadeForTheExecutorMatchTheHostModel) {
  uint64_t seed = 70;
  for (const Case& c : cases())
    check_points(c, seed++, false, kConstraintChunkNodes, kConstraintConcurrentRows,
                 {.spirv = exec().limits().runs_spirv});
}

// The same through the base-field fused interpreter: one chunk, many chunks side by side (slices
// summed), many chunks in one slice.
TEST_P(FunctionalKernels, InterpretedPointsKernelIsTheDagOnTheSourcesRowView) {
  uint64_t seed = 50;
  for (const Case& c : cases()) {
    check_points(c, seed++, true, 1u << 20);
    check_points(c, seed++, true, 2);
    check_points(c, seed++, true, 2, 1);
  }
}

TEST_P(FunctionalKernels, InterpretedPointsKernelOnKeccakf) {
  check_points({"keccak", std::make_shared<KeccakAir>()}, 60, true, 64);
}

TEST_P(FunctionalKernels, ExtensionKernelIsTheDagOnTheInterpolatedTables) {
  uint64_t seed = 10;
  for (const Case& c : cases()) {
    check_folded(c, seed++, 0, 0, 1, kConstraintChunkNodes, kConstraintConcurrentRows, false);  // fully folded
    check_folded(c, seed++, 1, 1, 3, kConstraintChunkNodes, kConstraintConcurrentRows, false);
    check_folded(c, seed++, 4, 0, 4, kConstraintChunkNodes, kConstraintConcurrentRows, true);
    check_folded(c, seed++, 3, 1, 3, 2, kConstraintConcurrentRows, false);     // many chunks side by side
    check_folded(c, seed++, 3, 2, 2, 2, 1, false);                             // many chunks in sequence
    check_folded(c, seed++, 3, 1, 3, 2, kConstraintConcurrentRows, true);      // accumulating
    check_folded(c, seed++, 3, 1, 3, 2, kConstraintConcurrentRows, false, 3);  // 3 unsummed slices
    check_folded(c, seed++, 2, 1, 2, kConstraintChunkNodes, kConstraintConcurrentRows, false,
                 2);  // one chunk, 2 slices
  }
}

TEST_P(FunctionalKernels, InterpretedAndFusedExtensionKernelsEqualTheGeneratedOne) {
  uint64_t seed = 10;
  for (const Case& c : cases()) {
    auto both = [&](uint32_t log_len, uint32_t x_first, uint32_t x_count, uint32_t chunk_nodes, uint64_t concurrent,
                    bool accumulate, uint32_t slices = 0) {
      const uint64_t s = seed++;
      std::vector<std::vector<Fp4>> generated, interpreted, fused;
      check_folded(c, s, log_len, x_first, x_count, chunk_nodes, concurrent, accumulate, slices,
                   ExtKernelMode::Generated, &generated);
      check_folded(c, s, log_len, x_first, x_count, chunk_nodes, concurrent, accumulate, slices,
                   ExtKernelMode::Interpreted, &interpreted);
      check_folded(c, s, log_len, x_first, x_count, chunk_nodes, concurrent, accumulate, slices, ExtKernelMode::Fused,
                   &fused);
      ASSERT_FALSE(generated.empty());
      EXPECT_TRUE(generated == interpreted) << c.name << " log_len " << log_len << " X from " << x_first;
      EXPECT_TRUE(generated == fused) << c.name << " log_len " << log_len << " X from " << x_first;
    };
    both(0, 0, 1, kConstraintChunkNodes, kConstraintConcurrentRows, false);  // fully folded
    both(1, 1, 3, kConstraintChunkNodes, kConstraintConcurrentRows, false);
    both(4, 0, 4, kConstraintChunkNodes, kConstraintConcurrentRows, true);
    both(3, 1, 3, 2, kConstraintConcurrentRows, false);                         // many chunks side by side
    both(3, 2, 2, 2, 1, false);                                                 // many chunks in sequence
    both(3, 1, 3, 2, kConstraintConcurrentRows, true);                          // accumulating
    both(3, 1, 3, 2, kConstraintConcurrentRows, false, 3);                      // 3 unsummed slices
    both(2, 1, 2, kConstraintChunkNodes, kConstraintConcurrentRows, false, 2);  // one chunk, 2 slices
  }
}

// More points than a CPU block holds (blocks of several x, a partial last block), every mode; on
// the CPU at every SIMD level the processor has.
TEST_P(FunctionalKernels, ExtensionKernelsOverManyBlocksOfPoints) {
  const SimdLevel saved = cpu_simd_level();
  for (SimdLevel level : {SimdLevel::Scalar, SimdLevel::Avx2, SimdLevel::Avx512}) {
    if (level > detected_simd_level() || (GetParam() != "cpu" && level != saved)) continue;
    set_cpu_simd_level(level);
    uint64_t seed = 300;
    for (const Case& c : cases())
      for (ExtKernelMode mode : {ExtKernelMode::Generated, ExtKernelMode::Interpreted, ExtKernelMode::Fused}) {
        SCOPED_TRACE(std::string(to_string(level)));
        check_folded(c, seed++, 5, 1, 5, kConstraintChunkNodes, kConstraintConcurrentRows, true, 0, mode);
        check_folded(c, seed++, 6, 0, 3, 4, kConstraintConcurrentRows, false, 3, mode);
      }
  }
  set_cpu_simd_level(saved);
}

// The Keccak-f functionals (83 chunks, programs of up to 225 slots) through the interpreter: the
// generated kernels are too slow to compile on lavapipe.
TEST_P(FunctionalKernels, InterpretedExtensionKernelOnKeccakf) {
  const Case c{"keccak", std::make_shared<KeccakAir>()};
  check_folded(c, 100, 2, 0, 1, kConstraintChunkNodes, kConstraintConcurrentRows, false, 0, ExtKernelMode::Interpreted);
  check_folded(c, 101, 2, 1, 2, kConstraintChunkNodes, kConstraintConcurrentRows, true, 0, ExtKernelMode::Interpreted);
  check_folded(c, 102, 2, 1, 2, kConstraintChunkNodes, kConstraintConcurrentRows, false, 0, ExtKernelMode::Fused);
  check_folded(c, 103, 3, 1, 3, 128, kConstraintConcurrentRows, false, 16, ExtKernelMode::Fused);
}

// The fused programs' directory: words back as they went in; a directory pointing outside the
// words, into itself, or at a program the decoder refuses is an ExecutionError naming the task.
TEST(ExtInterpreter, FusedDirectoryRoundTripsAndRefusesBadOffsets) {
  const SymbolicAir sym = symbolic_air(KeccakAir());
  const SymbolicDag dag = build_dag(sym);
  const AirFunctionals f = make_air_functionals(dag, sym.shape, dag.need_rot());
  auto k = make_ext_constraint_kernel("keccak", f.dags[0], f.shape, kConstraintChunkNodes, ExtKernelMode::Fused);
  const uint32_t chunks = uint32_t(k->chunks.size()), parts = uint32_t(f.shape.row_view_widths().size());
  ASSERT_GT(chunks, 1u);
  const FusedPrograms back = decode_fused_programs(k->fused, chunks, parts, "t");
  ASSERT_EQ(back.programs.size(), chunks);
  for (uint32_t c = 0; c < chunks; ++c) {
    EXPECT_EQ(encode_ext_program(back.programs[c]), k->programs[c]) << c;
    EXPECT_EQ(back.first_roots[c], k->chunks[c].range.first) << c;
  }
  auto refused = [&](std::vector<uint32_t> words, uint32_t n, const std::string& what) {
    try {
      (void)decode_fused_programs(words, n, parts, "task-x");
      ADD_FAILURE() << "no error: " << what;
    } catch (const ExecutionError& e) {
      EXPECT_NE(std::string(e.what()).find("task-x"), std::string::npos) << e.what();
    }
  };
  std::vector<uint32_t> w = k->fused;
  w[3] = uint32_t(w.size());  // chunk 1 starts past the end
  refused(w, chunks, "past the end");
  w = k->fused;
  w[0] = 1;  // chunk 0 inside the directory
  refused(w, chunks, "inside the directory");
  w = k->fused;
  w[1] = uint32_t(w.size()) * 2;  // chunk 0 runs past the end
  refused(w, chunks, "longer than the words");
  refused(std::vector<uint32_t>(3 * chunks - 1, 0), chunks, "a short directory");
  w = k->fused;
  w[w[0]] = 15;  // chunk 0's first word: an unknown op
  refused(w, chunks, "unknown op");
}

// n columns squared, then summed: all n squares are live at once.
SymbolicDag wide_dag(uint32_t n) {
  SymbolicDag dag;
  for (uint32_t i = 0; i < n; ++i) {
    DagNode read;
    read.kind = NodeKind::Variable;
    read.var = Variable{EntryKind::Main, 0, 0, i};
    dag.nodes.push_back(read);
    DagNode sq;
    sq.kind = NodeKind::Mul;
    sq.left = sq.right = uint32_t(dag.nodes.size() - 1);
    dag.nodes.push_back(sq);
  }
  uint32_t sum = 1;
  for (uint32_t i = 1; i < n; ++i) {
    DagNode add;
    add.kind = NodeKind::Add;
    add.left = sum;
    add.right = 2 * i + 1;
    dag.nodes.push_back(add);
    sum = uint32_t(dag.nodes.size() - 1);
  }
  dag.constraint_idx = {sum};
  return dag;
}

TEST(ExtInterpreter, RefusesAChunkNeedingMoreSlotsThanItHas) {
  AirShape shape;
  shape.common_width = kExtInterpreterSlots + 8;
  const SymbolicDag fits = wide_dag(kExtInterpreterSlots - 1), wide = wide_dag(kExtInterpreterSlots + 8);
  EXPECT_LE(compile_ext_program(fits, shape).slots, kExtInterpreterSlots);
  EXPECT_GT(compile_ext_program(wide, shape).slots, kExtInterpreterSlots);
  auto k = make_ext_constraint_kernel("fits", fits, shape, 1u << 20, ExtKernelMode::Interpreted);
  EXPECT_LE(k->program_slots.at(0), kExtInterpreterSlots);
  (void)make_ext_constraint_kernel("wide", wide, shape, 1u << 20);  // the generated kernel has no limit
  try {
    (void)make_ext_constraint_kernel("wide", wide, shape, 1u << 20, ExtKernelMode::Interpreted);
    FAIL() << "no error";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("AIR wide"), std::string::npos) << what;
    EXPECT_NE(what.find(fmt::format("the extension interpreter holds {}", kExtInterpreterSlots)), std::string::npos)
        << what;
  }
}

// The Keccak-f functionals' chunks all fit the interpreter (the proof the interpreter is for).
TEST(ExtInterpreter, KeccakfChunksFit) {
  const SymbolicAir sym = symbolic_air(KeccakAir());
  const SymbolicDag dag = build_dag(sym);
  const AirFunctionals f = make_air_functionals(dag, sym.shape, dag.need_rot());
  for (uint32_t fi = 0; fi < kFunctionals; ++fi) {
    if (!f.has(Functional(fi))) continue;
    auto k =
        make_ext_constraint_kernel("keccak", f.dags[fi], f.shape, kConstraintChunkNodes, ExtKernelMode::Interpreted);
    const uint32_t most = *std::max_element(k->program_slots.begin(), k->program_slots.end());
    size_t words = 0;
    for (const std::vector<uint32_t>& p : k->programs) words += p.size();
    fmt::print("keccak functional {}: {} chunks, at most {} slots, {} program words\n", fi, k->chunks.size(), most,
               words);
    EXPECT_LE(most, kExtInterpreterSlots);
  }
}

TEST(ExtInterpreter, ProgramsAreSharedByTheCallsOnOneGraph) {
  uint32_t checked = 0;
  for (const Case& c : cases()) {
    const SymbolicAir sym = symbolic_air(*c.air);
    const SymbolicDag dag = build_dag(sym);
    const AirFunctionals f = make_air_functionals(dag, sym.shape, dag.need_rot());
    for (uint32_t fi = 0; fi < kFunctionals; ++fi) {
      if (!f.has(Functional(fi))) continue;
      auto kernel = make_ext_constraint_kernel(c.name, f.dags[fi], f.shape, 2, ExtKernelMode::Interpreted);
      if (kernel->chunks.size() < 2) continue;
      SCOPED_TRACE(fmt::format("{} functional {}", c.name, fi));
      const uint32_t log_len = 3;
      Graph g;
      auto bc = g.input<Fp4>("cols", uint64_t(f.columns) << log_len), bs = g.input<Fp4>("sels", 3u << log_len);
      auto bp = g.input<Fp>("pvs", std::max<uint32_t>(sym.shape.num_public_values, 1));
      auto bk = g.input<Fp4>("coeffs", f.dags[fi].num_constraints());
      auto out = g.output<Fp4>("out", 8);
      const std::vector<View<Fp4>> parts = {bc.all(), bs.all()};
      for (uint32_t round = 0; round < 3; ++round)
        eval_ext_constraints(g, fmt::format("round{}", round), *kernel, f.shape, parts,
                             bp.slice(0, sym.shape.num_public_values), bk.all(), out.all(), log_len, 1, round > 0);
      size_t programs = 0, nonempty = 0;
      for (const BufferDesc& b : g.buffers()) programs += b.name.find(".program.") != std::string::npos;
      for (const std::vector<uint32_t>& p : kernel->programs) nonempty += !p.empty();
      EXPECT_EQ(programs, nonempty);
      EXPECT_GT(nonempty, 1u);
      ++checked;
    }
  }
  EXPECT_GT(checked, 0u);
}

TEST(Functionals, MappingRejectsANextRowReadWithoutNeedRot) {
  const SymbolicAir sym = symbolic_air(FibonacciSelectorAir({true, false}, false));
  const SymbolicDag dag = build_dag(sym);
  ASSERT_TRUE(dag.need_rot());
  EXPECT_THROW((void)make_air_functionals(dag, sym.shape, false), InputError);
  const AirFunctionals f = make_air_functionals(dag, sym.shape, true);
  EXPECT_EQ(f.columns, 2 * (1 + 2));  // preprocessed 1 + common 2, local and next
  EXPECT_TRUE(f.has(Functional::Zerocheck));
}

// Round 0's sources hold the next rows of the columns read there only: Keccak-f reads 224 of its
// 2633 columns at the next row; a column not among them has no round-0 next-row source.
TEST(Functionals, RoundZeroSourcesHoldTheRotatedColumnsOnly) {
  const SymbolicAir sym = symbolic_air(KeccakAir());
  const SymbolicDag dag = build_dag(sym);
  const AirFunctionals f = make_air_functionals(dag, sym.shape, true);
  ASSERT_EQ(f.rotated.size(), 1u);
  EXPECT_EQ(f.rotated[0].size(), 224u);
  EXPECT_TRUE(std::is_sorted(f.rotated[0].begin(), f.rotated[0].end()));
  EXPECT_EQ(f.columns, 2u * 2633);
  EXPECT_EQ(f.points_columns, 2633u + 224);
  EXPECT_EQ(f.points_shape.cached_widths, std::vector<uint32_t>{f.points_columns});
  EXPECT_EQ(points_source_column(f.widths, f.rotated, 0, true, f.rotated[0][5]), 2633u + 5);
  EXPECT_EQ(points_source_column(f.widths, f.rotated, 0, false, 7), 7u);
  uint32_t unread = 0;
  while (std::binary_search(f.rotated[0].begin(), f.rotated[0].end(), unread)) ++unread;
  EXPECT_THROW((void)points_source_column(f.widths, f.rotated, 0, true, unread), InputError);
  EXPECT_EQ(rotated_columns(dag, sym.shape), f.rotated);
  // Without need_rot nothing is rotated and the two layouts agree.
  uint32_t plain = 0;
  for (const Case& c : cases()) {
    const SymbolicAir s = symbolic_air(*c.air);
    const SymbolicDag d = build_dag(s);
    if (d.need_rot()) continue;
    const AirFunctionals g = make_air_functionals(d, s.shape, false);
    EXPECT_EQ(g.points_columns, g.columns) << c.name;
    ++plain;
  }
  EXPECT_GT(plain, 0u);
}

}  // namespace
