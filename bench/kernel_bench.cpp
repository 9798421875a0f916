// kernel_bench: throughput of single kernels on the chosen executor, timed from the trace's device
// time of a span holding R back-to-back dispatches (median of 5 runs):
//   Poseidon2 permutations/s (poseidon2_permute), copy bandwidth (copy_u32, read + write bytes),
//   BabyBear multiplications/s (fp_mul), one NTT of 2^log_n x batch (ntt forward), and the latency
//   of the device transcript (stages/transcript.hpp): a chained permutation inside one observe, and
//   a chain of dependent observe + sample dispatches, separate and fused.
//
// --trace FILE writes one Chrome trace holding the last timed run of each plan, one after another.
//
//   kernel_bench [--executor cpu|vulkan|auto] [--log-states 22] [--only transcript]
//                [--transcript-perms 1024] [--transcript-chain 256] [--trace F] [--json F]
#include <fmt/format.h>

#include "bench/bench_util.hpp"
#include "cli/options.hpp"
#include "executors/executors.hpp"
#include "kernels/basic.hpp"
#include "kernels/elementwise.hpp"
#include "kernels/hashing.hpp"
#include "runtime/trace.hpp"
#include "stages/ntt.hpp"
#include "stages/transcript.hpp"

using namespace vkstark;

namespace {

constexpr int kRuns = 5;

// Median device time (ms) of the span "work" over kRuns runs of the plan (after one warm-up run).
// The last run's trace goes to `traces`, its top span named `label`.
double time_span(Executor& exec, const Graph& g, const std::function<void(PreparedPlan&)>& upload,
                 const std::string& label, std::vector<Trace>& traces) {
  auto p = exec.prepare(compile(g));
  upload(*p);
  Trace t;
  const double ms = bench::median_work_span_ms(*p, kRuns, t);
  t.spans[0].name = label;
  traces.push_back(std::move(t));
  return ms;
}

// The device transcript's latency. (a) One observe of 8 P values: P permutations chained inside
// one dispatch, so us per permutation is the sponge's own latency. (b) K dependent pairs of
// dispatches observe(8 values), sample(1): one permutation per pair (the sample takes a lane of the
// state the full block left), dispatch latency and barriers included. (c) The same K pairs as one
// observe_sample dispatch each.
std::string transcript_latency(Executor& exec, uint32_t perms, uint32_t chain, std::vector<Trace>& traces) {
  std::string json;
  const uint32_t reps = 4;
  {
    Graph g;
    auto values = g.input<Fp>("values", 8ull * perms);
    DeviceTranscript t(g, "t");
    {
      auto span = g.span("work");
      for (uint32_t r = 0; r < reps; ++r) t.observe(values);
    }
    double ms = time_span(
        exec, g, [&](PreparedPlan& p) { p.upload(values, std::vector<Fp>(8ull * perms, Fp::one())); },
        "transcript_permutations", traces);
    double us = ms * 1e3 / (double(reps) * perms);
    fmt::print(
        "  transcript observe of 8 x {} values ({} dispatches): {:.3f} ms -> {:.3f} us per chained permutation\n",
        perms, reps, ms, us);
    json += fmt::format(", \"transcript_chained_permutation_us\": {}", json_number(us));
  }
  for (bool fused : {false, true}) {
    Graph g;
    auto values = g.input<Fp>("values", 8ull * chain);
    auto out = g.output<Fp>("out", chain);
    DeviceTranscript t(g, "t");
    {
      auto span = g.span("work");
      for (uint32_t i = 0; i < chain; ++i) {
        if (fused) {
          t.observe_sample(values.slice(8ull * i, 8), out.slice(i, 1));
        } else {
          t.observe(values.slice(8ull * i, 8));
          t.sample(out.slice(i, 1));
        }
      }
    }
    double ms = time_span(
        exec, g, [&](PreparedPlan& p) { p.upload(values, std::vector<Fp>(8ull * chain, Fp::one())); },
        fused ? "transcript_chain_fused" : "transcript_chain", traces);
    double us = ms * 1e3 / chain;
    fmt::print("  transcript chain of {} x {}: {:.3f} ms -> {:.3f} us per observe(8) + sample(1)\n", chain,
               fused ? "observe_sample (1 dispatch)" : "observe, sample (2 dispatches)", ms, us);
    json += fmt::format(", \"transcript_{}_us\": {}", fused ? "observe_sample_fused" : "observe_then_sample",
                        json_number(us));
  }
  return json;
}

}  // namespace

int main(int argc, char** argv) try {
  cli::Options options("kernel_bench",
                       "  Throughput of single kernels (median device time of 5 runs) and the device transcript's "
                       "latency.");
  std::string executor, only, trace_file, json_file;
  uint32_t log_states = 0, transcript_perms = 0, transcript_chain = 0;
  cli::executor_option(options, executor);
  // The copy bandwidth case moves 2^(N+6) words: 4 GiB at the top of the range.
  options.number<uint32_t>("--log-states", "N", log_states, 22, {4, 24}, "log2 of the Poseidon2 states");
  options.choice("--only", only, {"transcript"}, "", "run only the transcript latency cases (default: every case)");
  options.number<uint32_t>("--transcript-perms", "P", transcript_perms, 1024, {1, 1u << 20},
                           "permutations chained inside one observe");
  options.number<uint32_t>("--transcript-chain", "K", transcript_chain, 256, {1, 1u << 16},
                           "dependent observe + sample pairs");
  options.output("--trace", trace_file, "write a Chrome trace of the last run of each plan (open in Perfetto)");
  options.output("--json", json_file, "write results as JSON (default: bench/results/kernel_bench-<executor>.json)");
  options.parse_or_exit(argc, argv);
  auto exec = make_executor(executor);
  const std::string result_file = bench::result_path(json_file, "kernel_bench", std::string(exec->name()));
  fmt::print("kernel_bench: executor {}, device {}, subgroup size {}\n", exec->name(), exec->device_name(),
             exec->limits().subgroup_size);
  const uint32_t reps = 4;
  std::vector<Trace> traces;  // the last run of each plan
  std::string json = fmt::format("{{\"subgroup_size\": {}", exec->limits().subgroup_size);
  const bool all = only.empty();

  if (all) {  // Poseidon2
    const uint64_t n = uint64_t(1) << log_states;
    Graph g;
    auto s = g.input<Fp>("states", 16 * n);
    auto w = g.output<Fp>("work_states", 16 * n);
    g.dispatch<CopyU32>("init", {.src = s.all().bitcast<uint32_t>(), .dst = w.all().bitcast<uint32_t>()});
    {
      auto span = g.span("work");
      for (uint32_t r = 0; r < reps; ++r) g.dispatch<Poseidon2Permute>("permute", {.states = w});
    }
    double ms = time_span(
        *exec, g, [&](PreparedPlan& p) { p.upload(s, std::vector<Fp>(16 * n, Fp::one())); }, "poseidon2_permute",
        traces);
    double rate = reps * n / (ms * 1e-3);
    fmt::print("  poseidon2_permute: 2^{} states x {}: {:.3f} ms -> {:.3f} G permutations/s\n", log_states, reps, ms,
               rate / 1e9);
    json += fmt::format(", \"poseidon2_perms_per_s\": {}", json_number(rate));
  }
  if (all) {  // copy bandwidth on 256 Mi words (1 GiB)
    const uint64_t n = uint64_t(1) << (log_states + 6);
    Graph g;
    auto a = g.transient<uint32_t>("a", n);
    auto b = g.output<uint32_t>("b", n);
    g.dispatch<FillU32>("fill", {.out = a, .value = 1});
    {
      auto span = g.span("work");
      for (uint32_t r = 0; r < reps; ++r) g.dispatch<CopyU32>("copy", {.src = a, .dst = b});
    }
    double ms = time_span(
        *exec, g, [](PreparedPlan&) {}, "copy_u32", traces);
    double bw = reps * 2.0 * 4 * n / (ms * 1e-3);
    fmt::print("  copy_u32: {} MiB x {}: {:.3f} ms -> {:.3f} TB/s (read + write)\n", 4 * n >> 20, reps, ms, bw / 1e12);
    json += fmt::format(", \"copy_bytes_per_s\": {}", json_number(bw));
  }
  if (all) {  // BabyBear multiplications
    const uint64_t n = uint64_t(1) << (log_states + 4);
    Graph g;
    auto a = g.input<Fp>("a", n);
    auto c = g.output<Fp>("c", n);
    {
      auto span = g.span("work");
      for (uint32_t r = 0; r < reps; ++r) g.dispatch<FpMul>("mul", {.a = a, .b = a, .out = c});
    }
    double ms = time_span(
        *exec, g, [&](PreparedPlan& p) { p.upload(a, std::vector<Fp>(n, Fp::from_canonical(3))); }, "fp_mul", traces);
    double rate = reps * n / (ms * 1e-3);
    fmt::print("  fp_mul (memory-bound, 12 B per mul): 2^{} x {}: {:.3f} ms -> {:.1f} G mul/s\n", log_states + 4, reps,
               ms, rate / 1e9);
    json += fmt::format(", \"fp_mul_per_s\": {}", json_number(rate));
  }
  if (all) {  // NTT of the keccakf codeword shape: 42 columns, 2^21 -> 2^22
    const uint32_t log_n = 22, batch = 42;
    prepare_ntt_twiddles(*exec, log_n);
    Graph g;
    Ntt ntt(g, log_n);
    auto src = g.input<Fp>("src", uint64_t(batch) << (log_n - 1));
    auto dst = g.output<Fp>("dst", uint64_t(batch) << log_n);
    {
      auto span = g.span("work");
      ntt.forward(src, log_n - 1, uint64_t(1) << (log_n - 1), dst, log_n, uint64_t(1) << log_n, batch);
    }
    double ms = time_span(
        *exec, g, [&](PreparedPlan& p) { p.upload(src, std::vector<Fp>(src.count(), Fp::from_canonical(5))); },
        "ntt_forward", traces);
    fmt::print("  ntt forward 42 x (2^21 zero-padded to 2^22): {:.3f} ms\n", ms);
    json += fmt::format(", \"ntt_42x2e22_ms\": {}", json_number(ms));
  }
  json += transcript_latency(*exec, transcript_perms, transcript_chain, traces);
  json += "}";
  bench::write_result(result_file, "kernel_bench", std::string(exec->name()), exec->device_name(), json);
  fmt::print("results: {}\n", result_file);
  if (!trace_file.empty()) {
    write_chrome_trace_file(traces, trace_file);
    fmt::print("trace of the last run of each plan: {}\n", trace_file);
  }
  return 0;
} catch (const std::exception& e) {
  fmt::print(stderr, "kernel_bench: {}\n", e.what());
  return 1;
}
