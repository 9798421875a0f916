// Throughput of the CPU constraint evaluator (stages/compiler/eval_cpu.hpp; issue 9 item 3) on two
// synthetic DAGs at 2^15 rows:
//   0 "keccak-like": shaped like the Keccak-f AIR, ~2.9k columns, ~3.2k constraints, ~37k DAG nodes
//     of mostly Add/Sub with about a quarter Mul (bit checks, xor3 relations, 16-bit limbs summed
//     from xor3s of bits, transitions): many columns live at once, much independent work;
//   1 "local random": the same size and mix over 64 columns, each node reading two of the 32 nodes
//     before it: few live registers, long dependency chains.
// Arguments: DAG, SIMD level (0 scalar, 1 AVX2, 2 AVX-512), threads. Reported as node evaluations
// per second (DAG nodes the constraints reach x rows / wall time); the CPU column is the process's
// CPU time (all threads). Issue 9's target: 4 G/s on this 2-core machine.
//
//   constraint_eval_bench [--benchmark_filter=...] [--log-height=N]
#include <benchmark/benchmark.h>
#include <fmt/format.h>
#include <tbb/global_control.h>

#include <charconv>
#include <cstring>
#include <random>

#include "kernels/field/simd_level.hpp"
#include "stages/air/dag.hpp"
#include "stages/air/eval.hpp"
#include "stages/compiler/eval_cpu.hpp"

using namespace vkstark;

namespace {

uint32_t g_log_height = 15;

constexpr uint32_t kBits = 1900, kWords = 1000, kColumns = kBits + kWords;

Expr col(uint32_t c, uint32_t offset = 0) { return Expr::variable({EntryKind::Main, 0, offset, c}); }

// Constraints in the proportions of the Keccak-f AIR (Plonky3's keccak-air), with its locality:
// each constraint reads columns near one another, as the AIR's lanes do, and bit columns are read
// again by later groups of constraints.
std::vector<Expr> keccak_like_constraints() {
  std::mt19937_64 rng(9);
  auto bit_near = [&](uint32_t at) { return col((at + rng() % 64) % kBits); };
  std::vector<Expr> cs;
  for (uint32_t b = 0; b < kBits; ++b) cs.push_back(bool_check(col(b)));
  for (uint32_t k = 0; k < 320; ++k) {
    const uint32_t at = (k * 6) % kBits;
    cs.push_back(col(kBits + k) - xor3(bit_near(at), bit_near(at + 64), bit_near(at + 128)));
  }
  // A limb from its 16 bits, most significant first, by doubling (as Plonky3's Keccak AIR).
  for (uint32_t limb = 0; limb < 190; ++limb) {
    const uint32_t at = (limb * 16) % kBits;
    Expr sum = Expr(0);
    for (uint32_t j = 16; j-- > 0;) sum = sum + sum + xor3(col(at + j), bit_near(at + 320), bit_near(at + 640));
    cs.push_back(sum - col(kBits + 320 + limb));
  }
  const Expr transition = Expr::is_transition(), first = Expr::is_first_row();
  for (uint32_t k = 0; k < 600; ++k) {
    const uint32_t w = kBits + 490 + k % 510;
    cs.push_back(transition * (col(w, 1) - col(kBits + (k * 7) % 490)));
  }
  for (uint32_t k = 0; k < 170; ++k) cs.push_back(first * (col(kBits + 500 + k) - andn(col(k), col(k + 1))));
  return cs;
}

// A DAG of the same size and mix over only 64 columns, each node reading two of the 32 nodes
// before it: a small working set (few live registers), for comparison.
std::vector<Expr> local_random_constraints() {
  std::mt19937_64 rng(10);
  std::vector<Expr> nodes;
  for (uint32_t c = 0; c < 64; ++c) nodes.push_back(col(c));
  std::vector<Expr> cs;
  while (nodes.size() < 39000) {
    const Expr& a = nodes[nodes.size() - 1 - rng() % 32];
    const Expr& b = nodes[nodes.size() - 1 - rng() % 32];
    const uint32_t pick = rng() % 100;
    nodes.push_back(pick < 26 ? a * b : pick < 63 ? a + b : a - b);
    if (rng() % 12 == 0) cs.push_back(nodes.back());
  }
  return cs;
}

struct Setup {
  SymbolicDag dag;
  AirShape shape;
  std::unique_ptr<CompiledConstraints> compiled;
  TraceMatrix trace;
  std::vector<Fp4> lambdas;
};

Setup make_setup(const char* name, std::vector<Expr> constraints, uint32_t columns) {
  Setup x;
  x.dag = build_dag(constraints, {});
  x.shape.common_width = columns;
  x.compiled = std::make_unique<CompiledConstraints>(x.dag, x.shape);
  x.trace = TraceMatrix(columns, 1u << g_log_height);
  std::mt19937_64 rng(1);
  for (Fp& v : x.trace.values) v = Fp::reduce(rng());
  x.lambdas = powers(Fp4(Fp::from_canonical(3), Fp::from_canonical(5), Fp::from_canonical(7), Fp::one()),
                     x.dag.num_constraints());
  const std::vector<uint32_t> kinds = x.dag.count_by_kind();
  fmt::print("{} DAG: {} nodes ({} var, {} const, {} add, {} sub, {} mul, {} neg), {} constraints\n", name,
             x.dag.nodes.size(), kinds[size_t(NodeKind::Variable)], kinds[size_t(NodeKind::Constant)],
             kinds[size_t(NodeKind::Add)], kinds[size_t(NodeKind::Sub)], kinds[size_t(NodeKind::Mul)],
             kinds[size_t(NodeKind::Neg)], x.dag.num_constraints());
  fmt::print("  compiled: {}\n", x.compiled->summary());
  return x;
}

const Setup& setup(int dag) {
  static const Setup keccak = make_setup("keccak-like", keccak_like_constraints(), kColumns);
  static const Setup local = make_setup("local random", local_random_constraints(), 64);
  return dag == 0 ? keccak : local;
}

// Arguments: DAG (0 keccak-like, 1 local random), SIMD level, threads.
void BM_ConstraintEval(benchmark::State& state) {
  const Setup& s = setup(static_cast<int>(state.range(0)));
  const auto level = static_cast<SimdLevel>(state.range(1));
  const auto threads = static_cast<size_t>(state.range(2));
  if (level > detected_simd_level()) {
    state.SkipWithError("the processor lacks this SIMD level");
    return;
  }
  set_cpu_simd_level(level);
  tbb::global_control limit(tbb::global_control::max_allowed_parallelism, threads);
  const std::vector<std::span<const Fp>> parts{s.trace.values};
  std::vector<Fp4> out(s.trace.height);
  for (auto _ : state) {
    eval_constraints_cpu(*s.compiled, parts, {}, s.lambdas, out, g_log_height);
    benchmark::DoNotOptimize(out.data());
  }
  const double evals = double(s.compiled->num_nodes()) * double(out.size());
  state.counters["node_evals/s"] = benchmark::Counter(evals, benchmark::Counter::kIsIterationInvariantRate);
  state.SetLabel(fmt::format("{} x{}", to_string(level), threads));
}

}  // namespace

BENCHMARK(BM_ConstraintEval)
    ->ArgsProduct({{0, 1}, {int(SimdLevel::Scalar), int(SimdLevel::Avx2), int(SimdLevel::Avx512)}, {1, 2}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->MeasureProcessCPUTime();

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--log-height=", 13) != 0) continue;
    const char* text = argv[i] + 13;
    const char* end = text + std::strlen(text);
    uint32_t v = 0;
    if (auto [at, ec] = std::from_chars(text, end, v); ec != std::errc() || at != end || v > 20) {
      fmt::print(stderr, "constraint_eval_bench: --log-height: '{}' is not a whole number in [0, 20]\n", argv[i] + 13);
      return 1;
    }
    g_log_height = v;
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
