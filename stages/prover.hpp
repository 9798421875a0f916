// The STARK prover (protocol.md 7): one graph per proof (architecture.md, "The prover is one
// static graph"). The traces are uploaded, the plan runs once, the proof buffer and the
// commitment roots are downloaded; the transcript lives on the device, except the long absorptions
// of the openings (host tasks inside the last submission by default, below). Spans follow the reference:
// stark_prove_excluding_trace > prover.main_trace_commit (stacked_commit > rs_code_matrix, merkle_tree),
// prover.rap_constraints (logup_gkr, round0, mle_rounds), prover.openings (stacked_reduction, whir).
//
// A StarkProver holds the AIRs' kernels (AirKernels: compiled, or loaded from the SPIR-V cache, on
// first use) and the executor; prove() is not thread-safe on one prover.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "runtime/executor.hpp"
#include "runtime/trace.hpp"
#include "stages/air/input.hpp"
#include "stages/air/keygen.hpp"
#include "stages/air_kernels.hpp"
#include "stages/proof/proof.hpp"

namespace vkstark {

// How much device memory a proof may hold against how fast it runs. The largest buffer of a proof is
// the RS codeword of its traces (twice the traces), made and hashed at the commitment and read again
// by the openings; what is not kept between them is made again from the RS message for the openings
// (one more encoding of those columns). Every mode gives the same proof bytes.
enum class MemoryMode {
  Fast,     // the whole codeword kept (the most memory, the fastest)
  Default,  // the codeword kept while the proof holds at most 3x its traces (or 2 GiB where that is more)
  Low,      // no codeword kept: the least memory
};
[[nodiscard]] std::string_view to_string(MemoryMode m);
// "fast" | "default" | "low"; InputError otherwise.
[[nodiscard]] MemoryMode parse_memory_mode(std::string_view s);
// `options` with a mode given by name ("" leaves it unset) and a budget (0 leaves it unset).
[[nodiscard]] struct ProverOptions with_memory(struct ProverOptions options, std::string_view mode,
                                               uint64_t device_memory_bytes);

// Where the long transcript observations (thousands of chained Poseidon2 permutations: the column
// openings, WHIR's final polynomial) run: one GPU workgroup, or host tasks inside the proof's
// submission. Same proof bytes.
enum class OpeningsSponge {
  Auto,    // the faster where it was measured (docs/decisions.md, "The openings' sponge")
  Device,  // TranscriptObserve dispatches
  Host,    // DeviceTranscript::observe_on_host
};
[[nodiscard]] std::string_view to_string(OpeningsSponge s);

// How a prover builds its proofs; the defaults suit the executor.
struct ProverOptions {
  // Unset: VKSTARK_MEMORY_MODE=fast|default|low when set; else Default, or with a budget
  // (device_memory_bytes) the fastest that fits it: the most codeword that keeps the proof within
  // the budget. The proof's plan says what was chosen (Planned::memory_choice).
  std::optional<MemoryMode> memory_mode{};
  // The device memory one proof may take (bytes). Unset: VKSTARK_DEVICE_MEMORY_BYTES when set (it
  // also lowers the executor's limit), else no budget beyond the device's memory.
  std::optional<uint64_t> device_memory_bytes{};
  // False: commitments too narrow for dropping columns to save memory drop them all the same (for
  // tests of the openings made again; StackedCommitOptions::keep_narrow).
  bool keep_narrow_codewords = true;
  // The low-memory mode makes a phase's large tables again where read rather than keep them (the
  // batch constraint's at r_0, LogUp GKR's leaves) where they take at least this many bytes; below,
  // it keeps them (tests: 0, so that small proofs take those paths).
  uint64_t low_memory_min_bytes = uint64_t(16) << 20;
  // Tighter limits than the executor's (memory_limits(exec.limits())) to build the proof for, as
  // if the device had smaller allocations and bindings: the proof is the same. For tests.
  MemoryLimits limits{};
  // Run the debug checker (debug_check(pk, airs), stages/air/debug_check.hpp) on the traces before every proof: every
  // constraint on every row and every bus balanced, on the host; a failure is an InputError naming
  // the AIR, the constraint or bus, the row and the columns.
  // Costs host time of the order of a CPU proof's constraint evaluation. Unset: on when
  // VKSTARK_DEBUG_CONSTRAINTS=1 (debug_constraints_enabled()).
  std::optional<bool> debug_check{};
  // Unset: VKSTARK_ROUND0_KERNELS=auto|generated|fused (fused: Interpreted) when set, else Auto on
  // a GPU and Generated on the CPU executor and on a CPU implementation of Vulkan. With Auto, an
  // AIR's proofs use generated kernels when they are ready without compiling (SPIR-V and pipelines
  // in the caches); else the interpreter, while the generated kernels compile in the background
  // (with `background_kernels`), and the proofs planned once they are ready use them. Generated kernels
  // are faster where the rows are many (H100, keccakf 2^15: round 0 4.4 against 12.4 ms) and take
  // seconds to compile on a cold machine: docs/decisions.md, "Round 0 starts on the interpreter".
  std::optional<Round0Kernels> round0_kernels{};
  // Auto's background compilation. Off for a process that proves once (vkstark prove without
  // --runs): it would only wait for it at exit, and the next process starts cold again all the same
  // unless its caches were kept.
  bool background_kernels = true;
  // Unset: VKSTARK_OPENINGS_SPONGE=auto|device|host when set, else Auto. The proof's trace names
  // where it ran (the task 'batch_constraint.openings.observe_on_host', or '...observe0').
  std::optional<OpeningsSponge> openings_sponge{};
};

class StarkProver {
 public:
  // pk and exec must outlive the prover. InputError for a bad VKSTARK_ROUND0_KERNELS.
  StarkProver(const ProvingKey& pk, Executor& exec, ProverOptions options = {});
  // Stops the background compilation (ProverOptions::round0_kernels): waits for the pipelines
  // being compiled, starts no other (~AirKernels).
  ~StarkProver();
  StarkProver(const StarkProver&) = delete;
  StarkProver& operator=(const StarkProver&) = delete;

  // Waits until the background compilation started so far has finished: the proofs planned next use
  // what it made. For benchmarks and tests; a failure there was logged and left those AIRs on the
  // interpreter.
  void wait_for_kernels();
  // Whether proofs planned now evaluate AIR `air`'s round 0 with generated kernels (false before
  // its first proof when they are not ready, or with Round0Kernels::Interpreted).
  [[nodiscard]] bool round0_generated(uint32_t air);
  // Whether the column openings' sponge runs on the host (ProverOptions::openings_sponge).
  [[nodiscard]] bool openings_sponge_on_host() const;

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
    virtual const std::string& memory_choice() const = 0;  // as Planned's
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
    // How its memory was chosen: the mode, the codeword kept, the plan's bytes against the traces'
    // and the target ("memory mode default: 3.10 of 5.54 GB of the codeword kept; ...").
    virtual const std::string& memory_choice() const = 0;
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
  // plan() with at most `kept_codeword_bytes` of the traces' codewords kept, and (`remade`) the
  // large tables made again where read rather than kept (ProverContext::low_memory).
  std::unique_ptr<Planned> plan_keeping(const std::vector<std::optional<AirWithTraces>>& airs,
                                        const PlanOptions& options, uint64_t kept_codeword_bytes, bool remade);
  // The plan keeping the most codeword (of `codeword` bytes) within `target` bytes, with the large tables
  // kept (`remade` false) or made again: `none`, the plan keeping none, where no plan keeping some is
  // within it. `from`: the bytes (or their estimate) of the plan keeping all of it, for the first guess.
  std::unique_ptr<Planned> plan_most_kept(const std::vector<std::optional<AirWithTraces>>& airs,
                                          const PlanOptions& options, std::unique_ptr<Planned> none, bool remade,
                                          uint64_t from, uint64_t target, uint64_t codeword);

  const ProvingKey& pk_;
  KeyAirMatch air_match_{pk_};  // the AIRs given with traces, matched to the key's
  Executor& exec_;
  ProverOptions options_;
  OpeningsSponge sponge_;  // the options' or the environment's
  // Per AIR of the key: its preprocessed trace committed once (null: none; empty until the first proof).
  std::vector<std::shared_ptr<const CommittedTrace>> preprocessed_;
  // Made after sponge_ (a bad VKSTARK_OPENINGS_SPONGE is named before a bad VKSTARK_ROUND0_KERNELS);
  // destroyed first, so the background compilation stops before the rest goes.
  AirKernels kernels_;
};

}  // namespace vkstark
