// The benches' prepared proofs in the steady state (round 0's generated kernels compiled in the
// background are waited for): header-only, for the benches that prove (keccakf_bench, zkvm_bench).
#pragma once

#include <fmt/format.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bench/bench_util.hpp"
#include "runtime/plan.hpp"
#include "stages/prover.hpp"

namespace vkstark::bench {

inline double steady_ms_since(std::chrono::steady_clock::time_point a) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - a).count();
}

// A fixture's AIRs as a proof takes them, the traces moved rather than copied (the largest are
// tens of GB).
inline std::vector<std::optional<AirWithTraces>> moved_airs(std::vector<AirWithTraces>&& fixture) {
  std::vector<std::optional<AirWithTraces>> out;
  out.reserve(fixture.size());
  for (AirWithTraces& a : fixture) out.emplace_back(std::move(a));
  return out;
}

// --plan-only: the proof's graph built and compiled for the executor's limits (no memory taken,
// nothing run), and where its memory goes, per phase and per buffer.
inline void print_plan_only(StarkProver& prover, const std::vector<std::optional<AirWithTraces>>& airs,
                            uint64_t trace_bytes) {
  const auto planned = prover.plan(airs);
  const uint64_t bytes = planned->device_bytes();
  fmt::print("  {}\n  plan: {:.3f} GB, {:.2f} x the traces' {:.3f} GB\n  memory (plan): {}\n{}",
             planned->memory_choice(), bytes / 1e9, double(bytes) / double(trace_bytes), trace_bytes / 1e9,
             format_memory_breakdown(memory_breakdown(planned->plan())), memory_report(planned->plan()));
}

// The proof prepared for the steady state: where round 0 started on the interpreter while its
// generated kernels compile in the background (Round0Kernels::Auto on a GPU with cold caches), the
// bench waits for them and prepares again, so that the timed proofs are what a long-running prover
// makes. `prepare_ms` is the first prepare's (what a process pays before its first proof);
// `round0` says which kernels the timed proofs use.
inline std::unique_ptr<StarkProver::Prepared> prepare_steady(StarkProver& prover,
                                                             const std::vector<std::optional<AirWithTraces>>& airs,
                                                             const PlanOptions& options, double& prepare_ms,
                                                             std::string& round0) {
  const auto t0 = std::chrono::steady_clock::now();
  auto prepared = prover.prepare(airs, options);
  prepare_ms = steady_ms_since(t0);
  auto all_generated = [&] {
    for (uint32_t a = 0; a < airs.size(); ++a)
      if (airs[a] && !prover.round0_generated(a)) return false;
    return true;
  };
  if (all_generated()) {
    round0 = "generated";
    return prepared;
  }
  // A proof on the interpreter while the generated kernels compile: it does not wait for them.
  const auto t1 = std::chrono::steady_clock::now();
  (void)prepared->run(airs);
  const double beside_ms = steady_ms_since(t1);
  prover.wait_for_kernels();
  if (!all_generated()) {
    round0 = "interpreted";
    return prepared;
  }
  prepared.reset();  // its memory first: two prepared proofs of the largest sizes do not fit one device
  prepared = prover.prepare(airs, options);
  round0 = "generated";
  fmt::print(
      "  round 0 started on the interpreter (a proof meanwhile: {:.1f} ms wall); its generated kernels compiled in "
      "the background, ready {:.0f} ms after the first prepare\n",
      beside_ms, steady_ms_since(t1));
  return prepared;
}

}  // namespace vkstark::bench
