// field_bench: throughput of the field and hash primitives on the CPU (Google Benchmark).
//   Fp mul, Fp4 mul, Fp4 inverse (elements/s), Poseidon2 permutations/s on one core and on all
//   cores (TBB, batch of 2^20 states).
// Run: build/bench/field_bench [--benchmark_format=json --benchmark_out=bench/results/field_bench.json]
// (Google Benchmark's --benchmark_* flags pass through cli/options.hpp; --help lists them.)
#include <benchmark/benchmark.h>
#include <fmt/format.h>
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>

#include <random>
#include <vector>

#include "cli/options.hpp"
#include "kernels/field/fp4.hpp"
#include "kernels/hash/poseidon2.hpp"
#include "kernels/hash/poseidon2_batch.hpp"

using namespace vkstark;

namespace {
constexpr size_t N = 1 << 12;

std::vector<Fp> random_fp(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Fp> v(n);
  for (auto& x : v) x = Fp::reduce(rng());
  return v;
}
std::vector<Fp4> random_fp4(size_t n, uint64_t seed) {
  auto b = random_fp(4 * n, seed);
  std::vector<Fp4> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = {b[4 * i], b[4 * i + 1], b[4 * i + 2], b[4 * i + 3]};
  return v;
}

void BM_FpMul(benchmark::State& st) {
  auto a = random_fp(N, 1), b = random_fp(N, 2);
  std::vector<Fp> c(N);
  for (auto _ : st) {
    for (size_t i = 0; i < N; ++i) c[i] = a[i] * b[i];
    benchmark::DoNotOptimize(c.data());
    benchmark::ClobberMemory();
  }
  st.SetItemsProcessed(int64_t(st.iterations()) * N);
}
BENCHMARK(BM_FpMul);

void BM_Fp4Mul(benchmark::State& st) {
  auto a = random_fp4(N, 3), b = random_fp4(N, 4);
  std::vector<Fp4> c(N);
  for (auto _ : st) {
    for (size_t i = 0; i < N; ++i) c[i] = a[i] * b[i];
    benchmark::DoNotOptimize(c.data());
    benchmark::ClobberMemory();
  }
  st.SetItemsProcessed(int64_t(st.iterations()) * N);
}
BENCHMARK(BM_Fp4Mul);

void BM_Fp4Inverse(benchmark::State& st) {
  auto a = random_fp4(256, 5);
  std::vector<Fp4> c(a.size());
  for (auto _ : st) {
    for (size_t i = 0; i < a.size(); ++i) c[i] = a[i].inverse();
    benchmark::DoNotOptimize(c.data());
    benchmark::ClobberMemory();
  }
  st.SetItemsProcessed(int64_t(st.iterations()) * int64_t(a.size()));
}
BENCHMARK(BM_Fp4Inverse);

std::vector<Poseidon2State> random_states(size_t n) {
  auto flat = random_fp(16 * n, 6);
  std::vector<Poseidon2State> s(n);
  for (size_t i = 0; i < n; ++i)
    for (int j = 0; j < 16; ++j) s[i][j] = flat[16 * i + j];
  return s;
}

// One state permuted again and again (each permutation waits for the last): the transcript's
// case. Scalar: the portable permutation; One: poseidon2_permute_one (AVX-512: one vector).
void BM_Poseidon2SingleScalar(benchmark::State& st) {
  Poseidon2State s = random_states(1)[0];
  for (auto _ : st) {
    poseidon2_permute(s);
    benchmark::DoNotOptimize(s);
  }
  st.SetItemsProcessed(int64_t(st.iterations()));
}
BENCHMARK(BM_Poseidon2SingleScalar);
void BM_Poseidon2SingleOne(benchmark::State& st) {
  Poseidon2State s = random_states(1)[0];
  for (auto _ : st) {
    poseidon2_permute_one(s);
    benchmark::DoNotOptimize(s);
  }
  st.SetItemsProcessed(int64_t(st.iterations()));
  st.SetLabel(std::string(poseidon2_batch_isa()));
}
BENCHMARK(BM_Poseidon2SingleOne);

// Poseidon2 permutations/s of a batch of 2^20 states, on `threads` cores (TBB).
void BM_Poseidon2Batch(benchmark::State& st) {
  const int threads = static_cast<int>(st.range(0));
  tbb::global_control limit(tbb::global_control::max_allowed_parallelism, threads);
  auto states = random_states(size_t(1) << 20);
  for (auto _ : st) {
    tbb::parallel_for(tbb::blocked_range<size_t>(0, states.size(), 1024), [&](const tbb::blocked_range<size_t>& r) {
      poseidon2_permute_batch(std::span<Poseidon2State>(states.data() + r.begin(), r.size()));
    });
    benchmark::DoNotOptimize(states.data());
    benchmark::ClobberMemory();
  }
  st.SetItemsProcessed(int64_t(st.iterations()) * int64_t(states.size()));
  st.counters["threads"] = threads;
  st.SetLabel(std::string(poseidon2_batch_isa()));
}
BENCHMARK(BM_Poseidon2Batch)
    ->Arg(1)
    ->Arg(static_cast<int>(std::thread::hardware_concurrency()))
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
}  // namespace

// Google Benchmark's main, behind the one option parser: its --benchmark_* flags pass through, and
// --benchmark_out is created before the benchmarks run.
int main(int argc, char** argv) try {
  cli::Options options("field_bench",
                       "  Fp / Fp4 arithmetic and Poseidon2 permutations/s on the host (Google Benchmark).");
  std::string out_file;
  std::vector<std::string> flags;
  options.output("--benchmark_out", out_file,
                 "also write the results to FILE (as JSON unless --benchmark_out_format=console|csv)");
  options.passthrough("--benchmark_", flags, "--benchmark_FLAG=VALUE",
                      "Google Benchmark's other flags, e.g. --benchmark_filter=REGEX, --benchmark_format=json,\n"
                      "--benchmark_repetitions=N (see Google Benchmark's documentation)");
  options.parse_or_exit(argc, argv);
  if (!out_file.empty()) flags.push_back("--benchmark_out=" + out_file);
  std::vector<char*> args = {argv[0]};
  for (std::string& f : flags) args.push_back(f.data());
  int n = static_cast<int>(args.size());
  args.push_back(nullptr);
  benchmark::Initialize(&n, args.data());
  if (benchmark::ReportUnrecognizedArguments(n, args.data())) options.fail("unknown Google Benchmark flag");
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
} catch (const std::exception& e) {
  fmt::print(stderr, "field_bench: {}\n", e.what());
  return 1;
}
