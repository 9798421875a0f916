// air_bench: constraint-evaluation throughput of an AIR's generated kernel (stages/air/
// constraint_kernel.hpp) on the chosen executor: every constraint of every row folded with lambda
// powers into one extension-field value per row, timed from the trace's device time of R
// back-to-back passes (median of 9 runs), reported as DAG node evaluations per second (all DAG
// nodes x rows / time, the figure of issue 9). Also the kernel's making time (GLSL generation +
// SPIR-V compile, cold and from the on-disk cache) and the plan's prepare time (pipeline creation,
// first and second). Each pass's output is checked against the host evaluator on sampled rows.
//
//   air_bench [--executor cpu|vulkan|auto] [--air keccakf|fib] [--log-rows 15] [--passes 4]
//             [--chunk-nodes N] [--log-concurrent-rows N] [--trace F] [--json F]
#include <array>
#include <bit>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <random>

#include <fmt/format.h>

#include "bench/bench_util.hpp"
#include "cli/options.hpp"
#include "executors/executors.hpp"
#include "kernels/glsl/compiler.hpp"
#include "product/airs/fibonacci.hpp"
#include "product/airs/keccak.hpp"
#include "runtime/clock.hpp"
#include "runtime/trace.hpp"
#include "stages/air/eval.hpp"
#include "stages/compiler/constraint_kernel.hpp"

using namespace vkstark;

namespace {

constexpr int kRuns = 9;

struct Workload {
  std::shared_ptr<Air> air;
  TraceMatrix main;
  std::vector<Fp> public_values;
};

Workload make_workload(const std::string& air, uint32_t log_rows) {
  const uint32_t rows = uint32_t(1) << log_rows;
  if (air == "fib") {
    FibonacciTrace t = fibonacci_trace(Fp::one(), Fp::one(), rows);
    return {std::make_shared<FibonacciAir>(), std::move(t.main), std::move(t.public_values)};
  }
  // keccakf: as many whole permutations as fit (24 rows each), padded by the trace generator.
  std::mt19937_64 rng(42);
  std::vector<std::array<uint64_t, 25>> inputs(std::max<uint32_t>(1, rows / 24));
  for (auto& s : inputs)
    for (auto& lane : s) lane = rng();
  return {std::make_shared<KeccakAir>(), keccak_trace(inputs), {}};
}

}  // namespace

int main(int argc, char** argv) try {
  cli::Options options("air_bench",
                       "  Constraint-evaluation throughput of an AIR's generated kernel (DAG node evaluations per "
                       "second), its compile time cold and cached, and the plan's prepare time.");
  std::string executor, air_name, trace_file, json_file;
  uint32_t log_rows = 0, passes = 0, chunk_nodes = 0, log_concurrent = 0;
  cli::executor_option(options, executor);
  options.choice("--air", air_name, {"keccakf", "fib"}, "keccakf", "the AIR");
  options.number<uint32_t>("--log-rows", "N", log_rows, 15, {1, 22}, "log2 of the trace height");
  options.number<uint32_t>("--passes", "R", passes, 4, {1, 64}, "back-to-back evaluations per timed run");
  options.number<uint32_t>("--chunk-nodes", "N", chunk_nodes, kConstraintChunkNodes, {1, 1u << 30},
                           "operations per constraint-kernel chunk (pipeline)");
  options.number<uint32_t>("--log-concurrent-rows", "N", log_concurrent, std::countr_zero(kConstraintConcurrentRows),
                           {0, 30}, "log2 of the rows evaluated side by side (partial sums of short traces)");
  options.output("--trace", trace_file, "write a Chrome trace of the last timed run (open in Perfetto)");
  options.output("--json", json_file, "write results as JSON (default: bench/results/air_bench-<executor>.json)");
  options.parse_or_exit(argc, argv);
  auto exec = make_executor(executor);
  const std::string result_file = bench::result_path(json_file, "air_bench", std::string(exec->name()));
  fmt::print("air_bench: executor {}, device {}\n", exec->name(), exec->device_name());

  auto t0 = std::chrono::steady_clock::now();
  Workload w = make_workload(air_name, log_rows);
  if (w.main.height != (uint32_t(1) << log_rows))
    throw InputError(fmt::format("the {} trace has {} rows, not 2^{}", air_name, w.main.height, log_rows));
  const double trace_ms = ms_since(t0);
  t0 = std::chrono::steady_clock::now();
  const SymbolicAir sym = symbolic_air(*w.air);
  const SymbolicDag dag = build_dag(sym);
  const double dag_ms = ms_since(t0);
  const uint64_t nodes = dag.nodes.size();
  fmt::print("  AIR {}: {} columns, {} constraints, {} DAG nodes; 2^{} rows (trace {:.1f} ms, DAG {:.1f} ms)\n",
             sym.name, sym.shape.common_width, dag.num_constraints(), nodes, log_rows, trace_ms, dag_ms);

  // The kernel: the first make compiles unless the on-disk cache has it; the second always loads.
  t0 = std::chrono::steady_clock::now();
  auto kernel = make_constraint_kernel(sym.name, dag, sym.shape, chunk_nodes);
  const double make_first_ms = ms_since(t0);
  t0 = std::chrono::steady_clock::now();
  kernel = make_constraint_kernel(sym.name, dag, sym.shape, chunk_nodes);
  const double make_second_ms = ms_since(t0);
  uint64_t chunk_ops = 0, max_chunk_ops = 0;
  for (const ConstraintKernel::Chunk& c : kernel->chunks) {
    chunk_ops += c.range.nodes;
    max_chunk_ops = std::max(max_chunk_ops, c.range.nodes);
  }
  fmt::print("  {} chunks of at most {} operations: {} operations per row in all (largest chunk {})\n",
             kernel->chunks.size(), chunk_nodes, chunk_ops, max_chunk_ops);
  fmt::print("  kernel made in {:.1f} ms (first), {:.1f} ms (second, from the cache)\n", make_first_ms, make_second_ms);

  std::mt19937_64 rng(7);
  auto rnd = [&] { return Fp::reduce(rng()); };
  const Fp4 lambda(rnd(), rnd(), rnd(), rnd());
  const std::vector<Fp4> lambdas = powers(lambda, std::max<uint32_t>(1, dag.num_constraints()));
  const uint32_t h = w.main.height;

  Graph g;
  auto main_buf = g.input<Fp>("main", w.main.values.size());
  auto pv_buf = g.input<Fp>("public_values", std::max<size_t>(1, w.public_values.size()));
  auto lambda_buf = g.input<Fp4>("lambda_powers", lambdas.size());
  auto out = g.output<Fp4>("constraints", h);
  {
    auto span = g.span("work");
    std::vector<View<Fp>> parts{main_buf.all()};
    for (uint32_t r = 0; r < passes; ++r)
      eval_constraints(g, "constraints", *kernel, sym.shape, parts, pv_buf.slice(0, w.public_values.size()),
                       lambda_buf.all(), out.all(), log_rows, uint64_t(1) << log_concurrent);
  }
  const Plan plan = compile(g);
  t0 = std::chrono::steady_clock::now();
  auto p = exec->prepare(plan);
  const double prepare_first_ms = ms_since(t0);
  t0 = std::chrono::steady_clock::now();
  auto p2 = exec->prepare(plan);
  const double prepare_second_ms = ms_since(t0);
  p2.reset();
  fmt::print("  prepare {:.1f} ms (first in the process), {:.1f} ms (second)\n", prepare_first_ms, prepare_second_ms);

  p->upload(main_buf, w.main.values.span());
  std::vector<Fp> pvs = w.public_values;
  if (pvs.empty()) pvs.push_back(Fp::zero());
  p->upload(pv_buf, pvs);
  p->upload(lambda_buf, lambdas);
  // Half a second of passes first: a GPU that sat idle through the pipeline compile runs its first
  // milliseconds at a low clock (the H100 measured a third of the warm rate).
  Trace t;
  for (auto w0 = std::chrono::steady_clock::now(); ms_since(w0) < 500;) p->run(t);
  const double run_ms = bench::median_work_span_ms(*p, kRuns, t);
  const double pass_ms = run_ms / passes;
  const double rate = double(nodes) * h / (pass_ms * 1e-3);

  // Check sampled rows (first, last, and random ones) against the host evaluator.
  const std::vector<Fp4> got = p->download(out);
  std::vector<TraceMatrix> parts{w.main};
  TraceRows rows(parts, w.public_values);
  std::vector<Fp> values;
  uint32_t checked = 0;
  for (uint32_t i = 0; i < 64 && i < h; ++i) {
    const uint32_t r = i == 0 ? 0 : i == 1 ? h - 1 : static_cast<uint32_t>(rng() % h);
    rows.set_row(r);
    eval_nodes(dag, sym.shape, rows, values);
    if (fold_constraints<Fp>(dag, values, lambdas) != got[r])
      throw ExecutionError(fmt::format("row {}: the kernel's value differs from the host evaluator's", r));
    ++checked;
  }
  fmt::print("  one pass: {:.3f} ms (median of {} runs of {} passes) -> {:.3f} G node evaluations/s; {} rows checked\n",
             pass_ms, kRuns, passes, rate / 1e9, checked);

  const std::string json = fmt::format(
      "{{\"air\": {}, \"log_rows\": {}, \"columns\": {}, \"constraints\": {}, \"dag_nodes\": {}, \"passes\": {}, "
      "\"pass_ms\": {}, \"node_evals_per_s\": {}, \"kernel_make_first_ms\": {}, \"kernel_make_cached_ms\": {}, "
      "\"prepare_first_ms\": {}, \"prepare_second_ms\": {}, \"trace_generation_ms\": {}, \"rows_checked\": {}, "
      "\"chunk_nodes\": {}, \"chunks\": {}, \"chunk_operations\": {}, \"log_concurrent_rows\": {}}}",
      json_string(air_name), log_rows, sym.shape.common_width, dag.num_constraints(), nodes, passes,
      json_number(pass_ms), json_number(rate), json_number(make_first_ms), json_number(make_second_ms),
      json_number(prepare_first_ms), json_number(prepare_second_ms), json_number(trace_ms), checked, chunk_nodes,
      kernel->chunks.size(), chunk_ops, log_concurrent);
  bench::write_result(result_file, "air_bench", std::string(exec->name()), exec->device_name(), json);
  fmt::print("results: {}\n", result_file);
  if (!trace_file.empty()) {
    std::vector<Trace> traces{std::move(t)};
    write_chrome_trace_file(traces, trace_file);
  }
  return 0;
} catch (const std::exception& e) {
  fmt::print(stderr, "air_bench: {}\n", e.what());
  return 1;
}
