// The STARK prover (protocol.md 7): one graph per proof (architecture.md, "The prover is one
// static graph"). The traces are uploaded, the plan runs once, the proof buffer and the
// commitment roots are downloaded; the transcript lives on the device throughout and the prover adds
// no host task. Spans follow the reference: stark_prove_excluding_trace > prover.main_trace_commit
// (stacked_commit > rs_code_matrix, merkle_tree), prover.rap_constraints (logup_gkr, round0,
// mle_rounds), prover.openings (stacked_reduction, whir).
//
// A StarkProver holds the per-AIR generated kernels (compiled, or loaded from the SPIR-V cache,
// on first use) and the executor; prove() is not thread-safe on one prover.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "runtime/executor.hpp"
#include "runtime/trace.hpp"
#include "stages/air/input.hpp"
#include "stages/air/keygen.hpp"
#include "stages/gkr/input.hpp"
#include "stages/proof.hpp"
#include "stages/zerocheck/functionals.hpp"

namespace vkstark {

// How a prover builds its proofs; the defaults suit the executor.
struct ProverOptions {
  // Tighter limits than the executor's (memory_limits(exec.limits())) to build the proof for, as
  // if the device had smaller allocations and bindings: the proof is the same. For tests.
  MemoryLimits limits{};
  // Run the debug checker (stages/air/debug_check.hpp) on the traces before every proof: every
  // constraint on every row and every bus balanced, on the host; a failure is an InputError naming
  // the AIR, the constraint or bus, the row and the columns.
  // Costs host time of the order of a CPU proof's constraint evaluation. Unset: on when
  // VKSTARK_DEBUG_CONSTRAINTS=1 (debug_constraints_enabled()).
  std::optional<bool> debug_check{};
};

// The debug checker (stages/air/debug_check.hpp) over a proof's traces, the preprocessed ones from
// the key: InputError naming the AIR, the constraint or bus, the row and the columns, when a
// constraint fails on some row or a bus does not balance (or the traces do not fit the key). What
// ProverOptions::debug_check runs before every proof.
void debug_check_traces(const ProvingKey& pk, const std::vector<std::optional<AirWithTraces>>& airs);

class StarkProver {
 public:
  // pk and exec must outlive the prover.
  StarkProver(const ProvingKey& pk, Executor& exec, ProverOptions options = {});

  // airs: AIR-index order, one entry per AIR of the key (nullopt: absent). InputError naming the
  // AIR for traces that do not fit it (part count, widths, heights, public values). `trace`, when
  // given, receives the run's trace (spans, dispatches, submissions, host syncs).
  [[nodiscard]] Proof prove(const std::vector<std::optional<AirWithTraces>>& airs, Trace* trace = nullptr);

  // The two halves of prove(), for benchmarks: the graph of a proof of these traces' shape (which
  // AIRs are present, their heights) built, compiled and prepared; then any number of runs, each
  // uploading traces of that shape.
  class Prepared {
   public:
    virtual ~Prepared() = default;
    // InputError when the traces do not have the prepared shape.
    Proof run(const std::vector<std::optional<AirWithTraces>>& airs, Trace* trace = nullptr) {
      start(airs, trace);
      return finish();
    }
    // run() in two halves (PreparedPlan::start / wait): the traces uploaded and the proof handed
    // to the device; then the proof, once the device is done. Between them the caller may start
    // other proofs (each with its own Prepared) so that they are in flight together; `trace` must
    // stay alive until finish(). GraphError for a start() before the last one finished, or a
    // finish() without a start().
    virtual void start(const std::vector<std::optional<AirWithTraces>>& airs, Trace* trace = nullptr) = 0;
    [[nodiscard]] virtual Proof finish() = 0;
    virtual const Plan& plan() const = 0;
    // The executor memory the prepared proof holds (plan_device_bytes of its plan).
    uint64_t device_bytes() const { return plan_device_bytes(plan().memory); }
  };
  // prepare() in two steps, for schedulers that keep proofs within a device's memory: the proof's
  // graph built and compiled (its memory known: device_bytes(), nothing allocated yet), then given
  // memory and pipelines on the executor.
  class Planned {
   public:
    virtual ~Planned() = default;
    virtual const Plan& plan() const = 0;
    uint64_t device_bytes() const { return plan_device_bytes(plan().memory); }
  };
  [[nodiscard]] std::unique_ptr<Planned> plan(const std::vector<std::optional<AirWithTraces>>& airs,
                                              const PlanOptions& options = {});
  // InputError for a Planned of another prover (or null).
  [[nodiscard]] std::unique_ptr<Prepared> prepare(std::unique_ptr<Planned> planned);
  // `options`: the plan's (PlanOptions::fuse = false gives the unfused baseline, one submission per
  // dispatch).
  [[nodiscard]] std::unique_ptr<Prepared> prepare(const std::vector<std::optional<AirWithTraces>>& airs,
                                                  const PlanOptions& options = {});

  // Commits cached part `part` of AIR `air` (an index of the key) once, on this prover's executor:
  // proofs that take it (AirWithTraces::use_committed) neither upload nor commit it again (the
  // reference's cached main traces: a program's ROM committed once, proved against many times).
  // The commitment is the one a proof would make of `values`, so the proofs are the same bytes.
  // InputError naming the AIR when the AIR has no such part or `values` do not fit it. Every
  // preprocessed trace is committed the same way, once per prover, at its first proof.
  [[nodiscard]] std::shared_ptr<const CommittedTrace> commit_cached(uint32_t air, uint32_t part, TraceMatrix values);

 private:
  std::shared_ptr<const CommittedTrace> commit_part(uint32_t air, uint32_t part, std::string id,
                                                    std::shared_ptr<const TraceMatrix> values);
  const std::vector<std::shared_ptr<const CommittedTrace>>& preprocessed_commitments();
  MemoryLimits graph_limits() const;
  const AirFunctionalKernels& functional_kernels(uint32_t air);
  const InteractionKernels& interaction_kernels(uint32_t air);

  const ProvingKey& pk_;
  Executor& exec_;
  ProverOptions options_;
  std::map<uint32_t, std::shared_ptr<const AirFunctionalKernels>> functionals_;
  std::map<uint32_t, std::shared_ptr<const InteractionKernels>> interactions_;
  // Per AIR of the key: its preprocessed trace committed once (null: none; empty until the first proof).
  std::vector<std::shared_ptr<const CommittedTrace>> preprocessed_;
};

}  // namespace vkstark
