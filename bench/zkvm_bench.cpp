// zkvm_bench: whole proofs of a synthetic zkVM-shaped segment (product/airs/zkvm_segment.hpp): a
// hundred and more AIRs of widths 1 .. 300 and heights 2^0 .. 2^max over nine buses, preprocessed
// and cached parts, absent AIRs. Builds and prepares the proof once, times R proofs after a
// warm-up, then R proofs with the cached parts committed once (StarkProver::commit_cached),
// verifies; prints the span medians, the memory the plan takes and where it goes; JSON (default
// bench/results/zkvm_bench-<executor>.json).
//
//   zkvm_bench [--executor cpu|vulkan|auto] [--chips 100] [--max-log-height 20] [--log-stacked-height 21]
//              [--runs 3] [--json F] [--memory-mode M] [--device-memory B] [--preset segment] [--plan-only]
#include <fmt/format.h>

#include <chrono>
#include <map>

#include "bench/bench_util.hpp"
#include "bench/prepare_steady.hpp"
#include "cli/options.hpp"
#include "executors/executors.hpp"
#include "product/airs/zkvm_segment.hpp"
#include "runtime/clock.hpp"
#include "stages/air/keygen.hpp"
#include "stages/prover.hpp"
#include "stages/verifier.hpp"

using namespace vkstark;

namespace {
using Clock = std::chrono::steady_clock;

const char* const kSpans[] = {"stark_prove_excluding_trace",
                              "stark_prove_excluding_trace/prover.main_trace_commit",
                              "stark_prove_excluding_trace/prover.rap_constraints/logup_gkr",
                              "stark_prove_excluding_trace/prover.rap_constraints/round0",
                              "stark_prove_excluding_trace/prover.rap_constraints/mle_rounds",
                              "stark_prove_excluding_trace/prover.rap_constraints/column_openings",
                              "stark_prove_excluding_trace/prover.openings/stacked_reduction",
                              "stark_prove_excluding_trace/prover.openings/whir"};
}  // namespace

int main(int argc, char** argv) try {
  cli::Options options("zkvm_bench",
                       "  Prove a synthetic zkVM-shaped segment of many AIRs, verify, print median span times.");
  std::string executor, json_file;
  uint32_t chips = 0, max_log = 0, log_stacked = 0, runs = 0;
  cli::executor_option(options, executor);
  options.number<uint32_t>("--chips", "C", chips, 100, {1, 10000}, "chips (plus 8 bus tables and a range table)");
  options.number<uint32_t>("--max-log-height", "H", max_log, 20, {0, 24}, "chip heights 2^0 .. 2^H");
  options.number<uint32_t>("--log-stacked-height", "S", log_stacked, 21, {12, 24},
                           "app_params_with_100_bits_security(S) (S >= H)");
  options.number<uint32_t>("--runs", "R", runs, 3, {1, 1000}, "timed proofs, after one warm-up proof");
  options.output("--json", json_file, "write results as JSON (default: bench/results/zkvm_bench-<executor>.json)");
  cli::MemoryOptions memory;
  cli::memory_options(options, memory);
  std::string preset;
  options.choice("--preset", preset, {"none", "segment"}, "none",
                 "segment: a real zkVM segment's shape (40 chips up to 2^22 rows, 810 M cells, memory and range "
                 "buses, params(22)); sets --chips, --max-log-height and --log-stacked-height, which then may not be "
                 "given");
  bool plan_only = false;
  options.flag("--plan-only", plan_only,
               "build and compile the proof's graph only (no memory taken, nothing run): print where its memory "
               "goes, per phase and per buffer, for the executor's limits");
  options.parse_or_exit(argc, argv);
  if (preset == "segment") {
    for (const char* o : {"--chips", "--max-log-height", "--log-stacked-height"})
      if (options.given(o)) options.fail(fmt::format("{} does not apply with --preset segment", o));
    chips = 40;
    max_log = 22;
    log_stacked = 22;
  }
  if (log_stacked < max_log) throw InputError("--log-stacked-height is below --max-log-height");
  const SystemParams params = app_params_with_100_bits_security(log_stacked);
  auto exec = make_executor(executor);
  ZkvmSegmentShape shape;
  shape.chips = chips;
  shape.max_log_height = max_log;
  auto t0 = Clock::now();
  const ZkvmSegment seg = zkvm_segment(shape);
  const double trace_ms = ms_since(t0);
  t0 = Clock::now();
  const ProvingKey pk = keygen(seg.airs, params, *exec);
  const double keygen_ms = ms_since(t0);
  StarkProver prover(pk, *exec, with_memory({}, memory.mode, memory.device_memory));
  if (plan_only) {
    fmt::print(
        "zkvm_bench: executor {}, device {}\n  {} AIRs ({} present), {} trace cells, heights up to 2^{}, "
        "params({})\n",
        exec->name(), exec->device_name(), seg.airs.size(), seg.present(), seg.cells(), max_log, log_stacked);
    bench::print_plan_only(prover, seg.traces, seg.cells() * sizeof(Fp));
    return 0;
  }
  double prepare_ms = 0;
  std::string round0;
  auto prepared = bench::prepare_steady(prover, seg.traces, {}, prepare_ms, round0);
  const uint64_t trace_bytes = seg.cells() * sizeof(Fp);
  fmt::print(
      "zkvm_bench: executor {}, device {}\n  {} AIRs ({} present), {} trace cells ({:.3f} GB), heights up to 2^{}, "
      "params({}); traces {:.0f} ms, keygen {:.0f} ms, prepare {:.0f} ms; round 0 on {} kernels\n",
      exec->name(), exec->device_name(), seg.airs.size(), seg.present(), seg.cells(), trace_bytes / 1e9, max_log,
      log_stacked, trace_ms, keygen_ms, prepare_ms, round0);
  std::map<std::string, std::vector<double>> ms;
  Trace last;
  Proof proof;
  for (uint32_t r = 0; r < runs + 1; ++r) {
    Trace t;
    proof = prepared->run(seg.traces, &t);
    if (r == 0) continue;
    for (const TraceSpan& s : t.spans) ms[s.path].push_back(s.device_ms >= 0 ? s.device_ms : s.host_ms);
    last = t;
  }
  // The same proofs with every cached part committed once (StarkProver::commit_cached) instead of
  // by each proof: same bytes, less commitment work per proof.
  t0 = Clock::now();
  std::vector<std::optional<AirWithTraces>> committed = seg.traces;
  uint32_t committed_parts = 0;
  for (uint32_t a = 0; a < committed.size(); ++a)
    if (committed[a])
      for (uint32_t i = 0; i < committed[a]->cached.size(); ++i, ++committed_parts)
        committed[a]->use_committed(i, prover.commit_cached(a, i, committed[a]->cached[i]));
  const double commit_once_ms = ms_since(t0);
  auto prepared_committed = prover.prepare(committed);
  std::map<std::string, std::vector<double>> committed_ms;
  Proof committed_proof;
  for (uint32_t r = 0; r < runs + 1; ++r) {
    Trace t;
    committed_proof = prepared_committed->run(committed, &t);
    if (r == 0) continue;
    for (const TraceSpan& s : t.spans) committed_ms[s.path].push_back(s.device_ms >= 0 ? s.device_ms : s.host_ms);
  }
  const std::vector<uint8_t> bytes = encode(proof);
  const bool same_bytes = encode(committed_proof) == bytes;
  const VerifyResult v = verify_bytes(pk.vk, bytes);
  std::string spans;
  for (const char* path : kSpans) {
    const double m = bench::median(ms[path]);
    fmt::print("  {:<64} {:>10.2f} ms\n", path, m);
    spans +=
        fmt::format("{}{{\"path\": {}, \"ms\": {}}}", spans.empty() ? "" : ", ", json_string(path), json_number(m));
  }
  const char* const kProve = kSpans[0];
  const char* const kCommit = kSpans[1];
  fmt::print(
      "  {} cached parts committed once ({:.0f} ms): prove {:.2f} ms (main_trace_commit {:.2f}) against {:.2f} "
      "({:.2f}); proof bytes {}\n",
      committed_parts, commit_once_ms, bench::median(committed_ms[kProve]), bench::median(committed_ms[kCommit]),
      bench::median(ms[kProve]), bench::median(ms[kCommit]), same_bytes ? "the same" : "DIFFERENT");
  const TraceCounters& c = last.counters;
  fmt::print(
      "  dispatches {}, barriers {}, submissions {}, host syncs {}; peak device bytes {} ({:.2f} x the traces)\n",
      c.dispatches, c.barriers, c.submissions, c.host_syncs, c.peak_device_bytes,
      double(c.peak_device_bytes) / double(trace_bytes));
  fmt::print("  memory (plan): {}\n  {}\n  proof {} bytes: {}\n", format_memory_breakdown(last.memory),
             prepared->memory_choice(), bytes.size(),
             v.ok ? "accepted" : fmt::format("REJECTED [{}]: {}", to_string(v.code), v.reason));
  const std::string file = bench::result_path(json_file, "zkvm_bench", std::string(exec->name()));
  bench::write_result(
      file, "zkvm_bench", std::string(exec->name()), exec->device_name(),
      fmt::format(
          "{{\"chips\": {}, \"airs\": {}, \"present\": {}, \"max_log_height\": {}, \"log_stacked_height\": {}, "
          "\"cells\": {}, \"runs\": {}, \"spans\": [{}], \"dispatches\": {}, \"peak_device_bytes\": {}, "
          "\"keygen_ms\": {}, \"prepare_ms\": {}, \"round0_kernels\": {}, \"proof_bytes\": {}, \"verified\": {}, "
          "\"committed_cached\": {{\"parts\": {}, \"commit_once_ms\": {}, \"prove_ms\": {}, "
          "\"main_trace_commit_ms\": {}, \"same_bytes\": {}}}}}",
          chips, seg.airs.size(), seg.present(), max_log, log_stacked, seg.cells(), runs, spans, c.dispatches,
          c.peak_device_bytes, json_number(keygen_ms), json_number(prepare_ms), json_string(round0), bytes.size(), v.ok,
          committed_parts, json_number(commit_once_ms), json_number(bench::median(committed_ms[kProve])),
          json_number(bench::median(committed_ms[kCommit])), same_bytes));
  fmt::print("results: {}\n", file);
  return v.ok && same_bytes ? 0 : 1;
} catch (const std::exception& e) {
  fmt::print(stderr, "zkvm_bench: {}\n", e.what());
  return 1;
}
