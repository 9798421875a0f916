#include "stages/prover.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <chrono>
#include <cstdlib>
#include <optional>
#include <string_view>

#include "kernels/basic.hpp"
#include "runtime/clock.hpp"
#include "runtime/log.hpp"
#include "runtime/plan.hpp"
#include "stages/air/debug_check.hpp"
#include "stages/air/eval.hpp"
#include "stages/common/ntt.hpp"
#include "stages/common/program.hpp"
#include "stages/pcs/stacked.hpp"
#include "stages/preamble/commit_traces.hpp"
#include "stages/prover_phases.hpp"

namespace vkstark {

namespace {

spdlog::logger& logger() {
  static spdlog::logger& log = named_logger("vkstark.prover");
  return log;
}

// InputError naming the AIR when its traces do not fit it, or are given for another AIR (`match`).
void check_traces(const ProvingKey& pk, const std::vector<std::optional<AirWithTraces>>& airs, KeyAirMatch& match) {
  if (airs.size() != pk.per_air.size())
    throw InputError(fmt::format("prover: {} trace sets for {} AIRs", airs.size(), pk.per_air.size()));
  bool any = false;
  for (size_t a = 0; a < airs.size(); ++a) {
    if (!airs[a]) continue;
    any = true;
    const AirProvingKey& air = pk.per_air[a];
    const AirWithTraces& t = *airs[a];
    match.check(uint32_t(a), t.air);
    t.validate();  // the parts against the AIR's shape
    const uint32_t h = t.common.height;
    const SystemParams& params = pk.params();
    if (const uint32_t log_h = t.log_height(); log_h > params.log_stacked_height())
      throw InputError(fmt::format(
          "AIR {}: trace height 2^{} exceeds the stacked height 2^{} of the params (l_skip {} + n_stack {}): "
          "use a smaller trace, or params of log stacked height {} or more (app_params_with_100_bits_security({}), "
          "vkstark prove --log-stacked-height {})",
          air.name, log_h, params.log_stacked_height(), params.l_skip, params.n_stack, log_h, log_h, log_h));
    if (air.preprocessed_trace && air.preprocessed_trace->height != h)
      throw InputError(fmt::format("AIR {}: trace height {}, its preprocessed trace has {}", air.name, h,
                                   air.preprocessed_trace->height));
  }
  if (!any) throw InputError("prover: no AIR has traces");
}

// VKSTARK_OPENINGS_SPONGE=auto|device|host (InputError naming the variable for another value).
std::optional<OpeningsSponge> openings_sponge_from_environment() {
  const char* v = std::getenv("VKSTARK_OPENINGS_SPONGE");
  if (v == nullptr) return std::nullopt;
  const std::string_view s(v);
  for (OpeningsSponge o : {OpeningsSponge::Auto, OpeningsSponge::Device, OpeningsSponge::Host})
    if (s == to_string(o)) return o;
  throw InputError(fmt::format("VKSTARK_OPENINGS_SPONGE='{}': expected 'auto', 'device' or 'host' (or unset)", s));
}

// The options' openings sponge, else the environment's, else Auto.
OpeningsSponge openings_sponge(const ProverOptions& options) {
  if (options.openings_sponge) return *options.openings_sponge;
  return openings_sponge_from_environment().value_or(OpeningsSponge::Auto);
}

}  // namespace

StarkProver::StarkProver(const ProvingKey& pk, Executor& exec, ProverOptions options)
    : pk_(pk),
      exec_(exec),
      options_(options),
      sponge_(openings_sponge(options)),
      kernels_(pk, exec, options.round0_kernels, options.background_kernels) {}

StarkProver::~StarkProver() = default;

// Auto: on the host everywhere. On the H200 a host task inside the submission absorbs keccakf's
// openings (2633 permutations) in about 1 ms where the device's one workgroup takes 7
// (docs/decisions.md, "The openings' sponge"); on the CPU executor both run the same host code.
bool StarkProver::openings_sponge_on_host() const { return sponge_ != OpeningsSponge::Device; }

void StarkProver::wait_for_kernels() { kernels_.wait_for_kernels(); }

bool StarkProver::round0_generated(uint32_t air) { return kernels_.round0_generated(air); }

namespace {

class PreparedProof final : public StarkProver::Prepared {
 public:
  ProofShape shape;
  std::vector<std::optional<uint32_t>> heights;
  TraceCommitments commits;
  ProofLayout layout;
  ProofRegions regions;
  std::vector<Buffer<Digest>> roots;
  std::unique_ptr<PreparedPlan> prepared;
  const MultiStarkVerifyingKey* vk = nullptr;
  const ProvingKey* pk = nullptr;
  KeyAirMatch* air_match = nullptr;                                 // the prover's
  std::vector<std::shared_ptr<const CommittedTrace>> preprocessed;  // the prover's, per AIR
  bool debug_check = false;                                         // the debug checker before every proof
  bool remade = false;                                              // the large tables made again (low mode)
  std::string memory;                                               // Planned::memory_choice

  const Plan& plan() const override { return prepared->plan(); }
  const std::string& memory_choice() const override { return memory; }

  // Between start() and finish(): the public values of the proof being made (per AIR).
  std::optional<std::vector<std::vector<Fp>>> running;
  Trace local;
  Trace* running_trace = nullptr;  // the run's: the caller's or `local`

  void start(const std::vector<std::optional<AirWithTraces>>& airs, Trace* trace) override {
    if (running) throw GraphError("prover: start() while a proof is in flight (finish() it first)");
    if (airs.size() != heights.size())
      throw InputError(
          fmt::format("prover: {} trace sets for a proof prepared for {} AIRs", airs.size(), heights.size()));
    for (size_t a = 0; a < airs.size(); ++a) {
      if (airs[a]) air_match->check(uint32_t(a), airs[a]->air);
      const std::optional<uint32_t> h =
          airs[a] ? std::optional<uint32_t>(uint32_t(std::countr_zero(airs[a]->common.height))) : std::nullopt;
      if (h != heights[a])
        throw InputError(fmt::format("prover: AIR {} {} a proof prepared for {}", pk->per_air[a].name,
                                     h ? fmt::format("has 2^{} rows,", *h) : std::string("is absent,"),
                                     heights[a] ? fmt::format("2^{} rows", *heights[a]) : std::string("its absence")));
    }
    if (debug_check) vkstark::debug_check(*pk, airs).throw_if_failed();
    const auto t0 = std::chrono::steady_clock::now();
    upload_traces(*prepared, commits, *pk, airs, shape, preprocessed);
    const double staging_ms = ms_since(t0);
    std::vector<std::vector<Fp>> public_values;
    for (const auto& a : airs) public_values.push_back(a ? a->public_values : std::vector<Fp>{});
    local = Trace{};
    running_trace = trace ? trace : &local;
    prepared->start(*running_trace);
    running_trace->staging_ms = staging_ms;
    running = std::move(public_values);
  }

  Proof finish() override {
    if (!running) throw GraphError("prover: finish() without a start()");
    Proof proof;
    proof.public_values = std::move(*running);
    running.reset();
    prepared->wait();
    const auto t0 = std::chrono::steady_clock::now();
    const std::vector<uint32_t> words = prepared->download(layout.buffer());
    proof.trace_vdata.assign(heights.size(), std::nullopt);
    proof.common_main_commit = prepared->download(roots[0])[0];
    for (size_t T = 0; T < shape.order.size(); ++T) {
      const uint32_t a = shape.order[T];
      TraceVData d{*heights[a], {}};
      for (size_t i = 0; i < vk->per_air[a].params.width.cached_mains.size(); ++i)
        d.cached_commitments.push_back(prepared->download(roots[commits.first_cached[T] + i])[0]);
      proof.trace_vdata[a] = d;
    }
    running_trace->download_ms = ms_since(t0);
    regions.decode(words, proof);
    return proof;
  }
};

class PlannedProof final : public StarkProver::Planned {
 public:
  const StarkProver* prover = nullptr;
  std::unique_ptr<PreparedProof> proof;  // everything but the prepared plan
  std::shared_ptr<const Plan> compiled;
  const Plan& plan() const override { return *compiled; }
  const std::string& memory_choice() const override { return proof->memory; }
};

// The traces' codewords of a planned proof: all of them, and what its commitments keep.
struct CodewordBytes {
  uint64_t all = 0, kept = 0, traces = 0;  // traces: the commitments' stacked matrices
};
CodewordBytes codeword_bytes(const PlannedProof& p) {
  CodewordBytes out;
  for (const StackedCommitment& c : p.proof->commits.commits) {
    if (c.message.empty() || c.persistent) continue;  // committed once, outside the proof's memory choice
    out.all += uint64_t(c.layout.stacked_width()) * c.codeword_column_bytes();
    out.kept += uint64_t(c.kept_columns) * c.codeword_column_bytes();
    out.traces += uint64_t(c.layout.stacked_width()) << c.log_message() << 2;
  }
  return out;
}

}  // namespace

Proof StarkProver::prove(const std::vector<std::optional<AirWithTraces>>& airs, Trace* trace) {
  return prepare(airs)->run(airs, trace);
}

std::unique_ptr<StarkProver::Prepared> StarkProver::prepare(const std::vector<std::optional<AirWithTraces>>& airs,
                                                            const PlanOptions& options) {
  return prepare(plan(airs, options));
}

std::unique_ptr<StarkProver::Prepared> StarkProver::prepare(std::unique_ptr<Planned> planned) {
  auto* p = dynamic_cast<PlannedProof*>(planned.get());
  if (!p || p->prover != this) throw InputError("prover: prepare() of a proof planned by another prover");
  std::unique_ptr<PreparedProof> out = std::move(p->proof);
  out->prepared = exec_.prepare(std::move(p->compiled));
  kernels_.start_background();
  return out;
}

MemoryLimits StarkProver::graph_limits() const {
  MemoryLimits limits = memory_limits(exec_.limits());
  limits.max_allocation_bytes = std::min(limits.max_allocation_bytes, options_.limits.max_allocation_bytes);
  limits.max_binding_bytes = std::min(limits.max_binding_bytes, options_.limits.max_binding_bytes);
  return limits;
}

std::shared_ptr<const CommittedTrace> StarkProver::commit_part(uint32_t air, uint32_t part, std::string id,
                                                               std::shared_ptr<const TraceMatrix> values) {
  const SystemParams& params = pk_.params();
  auto out = std::make_shared<CommittedTrace>();
  out->id = std::move(id);
  out->executor = &exec_;
  out->air = pk_.per_air[air].name;
  out->part = part;
  out->matrix = std::move(values);
  out->log_stacked_height = params.log_stacked_height();
  out->l_skip = params.l_skip;
  out->log_blowup = params.log_blowup;
  out->k_whir = params.whir.k;
  const TraceMatrix& m = *out->matrix;
  const uint32_t log_n = params.log_stacked_height() + params.log_blowup;
  prepare_ntt_twiddles(exec_, log_n);
  Graph g;
  g.set_memory_limits(graph_limits());
  Buffer<Fp> trace;
  Buffer<Digest> root_out;
  {
    auto span = g.span("commit_once");
    Ntt ntt(g, log_n);
    trace = g.persistent<Fp>(out->id + ".trace", m.values.size());
    const TraceView view{trace.all(), m.width, uint32_t(std::countr_zero(m.height))};
    const StackedCommitment c = commit_stacked(g, ntt, out->id, std::span(&view, 1), params, {.persistent = true});
    root_out = download_copy(g, out->id + ".root", c.root());
  }
  std::unique_ptr<PreparedPlan> plan = exec_.prepare(compile(std::move(g)));
  plan->upload(trace, m.values.span());
  Trace t;
  plan->run(t);
  out->root = plan->download(root_out)[0];
  return out;
}

std::shared_ptr<const CommittedTrace> StarkProver::commit_cached(uint32_t air, uint32_t part, TraceMatrix values) {
  if (air >= pk_.per_air.size())
    throw InputError(fmt::format("prover: commit_cached of AIR {}: the key has {} AIRs", air, pk_.per_air.size()));
  const AirProvingKey& k = pk_.per_air[air];
  if (part >= k.shape.cached_widths.size())
    throw InputError(fmt::format("AIR {}: commit_cached of cached part {}, the AIR has {} cached parts", k.name, part,
                                 k.shape.cached_widths.size()));
  const uint32_t h = values.height;
  if (values.width != k.shape.cached_widths[part] || h == 0 || !std::has_single_bit(h) ||
      values.values.size() != uint64_t(values.width) * h)
    throw InputError(
        fmt::format("AIR {}: cached part {} of {} x {} values (width x height), width {} and a power of "
                    "two height expected",
                    k.name, part, values.width, h, k.shape.cached_widths[part]));
  const SystemParams& params = pk_.params();
  if (uint32_t(std::countr_zero(h)) > params.log_stacked_height())
    throw InputError(fmt::format("AIR {}: cached part {} of 2^{} rows exceeds the stacked height 2^{} of the params",
                                 k.name, part, std::countr_zero(h), params.log_stacked_height()));
  static std::atomic<uint64_t> next_id{0};
  return commit_part(air, part, fmt::format("committed{}.cached{}", next_id++, part),
                     std::make_shared<const TraceMatrix>(std::move(values)));
}

const std::vector<std::shared_ptr<const CommittedTrace>>& StarkProver::preprocessed_commitments() {
  if (!preprocessed_.empty()) return preprocessed_;
  std::vector<std::shared_ptr<const CommittedTrace>> made(pk_.per_air.size());
  for (uint32_t a = 0; a < pk_.per_air.size(); ++a) {
    const AirProvingKey& k = pk_.per_air[a];
    if (!k.preprocessed_trace) continue;
    // The key's matrix, not a copy: the key outlives the prover. Named by its root, its shape and the params: provers
    // of one key on one executor share the buffers. (The root alone does not name a shape: 2 x 1 and 1 x 2 cells stack
    // into the same matrix when the stacked columns are that short.)
    if (!k.preprocessed_root)
      throw InputError(fmt::format("AIR {}: the proving key has a preprocessed trace but no root for it", k.name));
    std::string id = "preprocessed";
    for (const Fp& x : *k.preprocessed_root) id += fmt::format(".{:08x}", x.value());
    const SystemParams& p = pk_.params();
    id += fmt::format(".{}x{}.l{}.n{}.b{}.k{}", k.preprocessed_trace->width, k.preprocessed_trace->height, p.l_skip,
                      p.n_stack, p.log_blowup, p.whir.k);
    made[a] = commit_part(a, 0, std::move(id),
                          std::shared_ptr<const TraceMatrix>(std::shared_ptr<const void>(), &*k.preprocessed_trace));
    if (made[a]->root != *k.preprocessed_root)
      throw GraphError(fmt::format("AIR {}: the preprocessed trace committed on {} has another root than its key's",
                                   k.name, exec_.name()));
  }
  preprocessed_ = std::move(made);
  return preprocessed_;
}

std::string_view to_string(OpeningsSponge s) {
  switch (s) {
    case OpeningsSponge::Auto:
      return "auto";
    case OpeningsSponge::Device:
      return "device";
    case OpeningsSponge::Host:
      return "host";
  }
  return "?";
}

std::string_view to_string(MemoryMode m) {
  switch (m) {
    case MemoryMode::Fast:
      return "fast";
    case MemoryMode::Default:
      return "default";
    case MemoryMode::Low:
      return "low";
  }
  return "default";
}

MemoryMode parse_memory_mode(std::string_view s) {
  for (MemoryMode m : {MemoryMode::Fast, MemoryMode::Default, MemoryMode::Low})
    if (s == to_string(m)) return m;
  throw InputError(fmt::format("memory mode '{}': expected fast, default or low", s));
}

ProverOptions with_memory(ProverOptions options, std::string_view mode, uint64_t device_memory_bytes) {
  if (!mode.empty()) options.memory_mode = parse_memory_mode(mode);
  if (device_memory_bytes > 0) options.device_memory_bytes = device_memory_bytes;
  return options;
}

namespace {
// VKSTARK_DEVICE_MEMORY_BYTES, when set (the executor's limits apply it too).
std::optional<uint64_t> env_memory_budget() {
  const char* v = std::getenv("VKSTARK_DEVICE_MEMORY_BYTES");
  if (v == nullptr || *v == '\0') return std::nullopt;
  return apply_limit_overrides(ExecutorLimits{.device_memory_bytes = ~uint64_t(0)}).device_memory_bytes;
}

// VKSTARK_MEMORY_MODE, when set (InputError for another value than fast, default or low).
std::optional<MemoryMode> memory_mode_from_environment() {
  const char* v = std::getenv("VKSTARK_MEMORY_MODE");
  if (v == nullptr || *v == '\0') return std::nullopt;
  return parse_memory_mode(v);
}

// Sets Planned::memory_choice of a plan made in mode m against `target` bytes (~0: none):
// `by_budget` where the mode is the fastest within a budget rather than one asked for.
void describe_memory_choice(PlannedProof& planned, MemoryMode m, bool by_budget, uint64_t target) {
  const CodewordBytes cw = codeword_bytes(planned);
  const uint64_t bytes = planned.device_bytes();
  planned.proof->memory = fmt::format(
      "memory mode {}{}: {:.2f} of {:.2f} GB of the codeword kept ({}){}; plan {:.2f} GB, {:.2f} x the traces' "
      "{:.2f} GB{}",
      to_string(m), by_budget ? " (the fastest within the budget)" : "", double(cw.kept) / 1e9, double(cw.all) / 1e9,
      cw.kept == cw.all ? "all"
      : cw.kept == 0    ? "none: the queried rows made again"
                        : "the rest made again for the openings",
      planned.proof->remade ? ", the large tables made again where read" : "", double(bytes) / 1e9,
      cw.traces ? double(bytes) / double(cw.traces) : 0.0, double(cw.traces) / 1e9,
      target == ~uint64_t(0) ? std::string() : fmt::format(", target {:.2f} GB", double(target) / 1e9));
}

// The refusal of a plan of `bytes` in mode m beyond the `device` bytes of a budget (`budget`) or
// of the executor's device, saying whether memory mode low (`least` bytes) would fit.
DeviceError beyond_device_memory(const Plan& plan, uint64_t bytes, MemoryMode m, uint64_t device, uint64_t least,
                                 bool budget, const Executor& exec) {
  return DeviceError(fmt::format(
      "out of device memory: the proof needs {} bytes in memory mode {} ({}), more than the {} bytes {}; nothing "
      "was allocated. {}",
      bytes, to_string(m), format_memory_breakdown(memory_breakdown(plan)), device,
      budget ? "of its budget (--device-memory, VKSTARK_DEVICE_MEMORY_BYTES or ProverOptions::device_memory_bytes)"
             : fmt::format("of {}", exec.device_name()),
      least <= device
          ? fmt::format("Memory mode low would fit ({} bytes): --memory-mode low, or VKSTARK_MEMORY_MODE=low", least)
          : fmt::format("Even memory mode low needs {} bytes: prove smaller traces, or on a device with more memory",
                        least)));
}
}  // namespace

std::unique_ptr<StarkProver::Planned> StarkProver::plan(const std::vector<std::optional<AirWithTraces>>& airs,
                                                        const PlanOptions& options) {
  const std::optional<MemoryMode> mode = options_.memory_mode ? options_.memory_mode : memory_mode_from_environment();
  const std::optional<uint64_t> budget =
      options_.device_memory_bytes ? options_.device_memory_bytes : env_memory_budget();
  const uint64_t device = std::min(exec_.limits().device_memory_bytes, budget.value_or(~uint64_t(0)));
  auto bytes_of = [](const std::unique_ptr<Planned>& p) { return p->device_bytes(); };
  auto describe = [&](std::unique_ptr<Planned>& p, MemoryMode m, uint64_t target) {
    describe_memory_choice(dynamic_cast<PlannedProof&>(*p), m, budget && !options_.memory_mode, target);
  };
  // The low-memory mode's plan: no codeword kept, the large tables made again.
  std::unique_ptr<Planned> low;
  auto low_plan = [&]() -> std::unique_ptr<Planned>& {
    if (!low) low = plan_keeping(airs, options, 0, true);
    return low;
  };
  // A plan beyond the budget is refused here, before anything is allocated, saying what would fit.
  // (`lowest`: p is the low mode's plan, so nothing would fit.)
  auto fits = [&](std::unique_ptr<Planned> p, MemoryMode m, bool lowest) {
    const uint64_t bytes = bytes_of(p);
    if (bytes <= device) return p;
    const uint64_t least = lowest ? bytes : bytes_of(low_plan());
    throw beyond_device_memory(p->plan(), bytes, m, device, least, budget.has_value(), exec_);
  };
  std::unique_ptr<Planned> all = plan_keeping(airs, options, ~uint64_t(0), false);
  const CodewordBytes cw = codeword_bytes(dynamic_cast<PlannedProof&>(*all));
  // Fast keeps everything; Low nothing, and makes the large tables again; Default (or a budget
  // without a mode) the fastest plan within its target: the most codeword kept without making
  // tables again, else (when even none kept is too much) the most kept with them made again.
  if (mode == MemoryMode::Fast || (cw.all == 0 && mode != MemoryMode::Low)) {
    describe(all, mode.value_or(MemoryMode::Default), ~uint64_t(0));
    return fits(std::move(all), mode.value_or(MemoryMode::Default), false);
  }
  uint64_t target = device;
  if (mode == MemoryMode::Default || !budget)
    target = std::min(target, std::max<uint64_t>(3 * cw.traces, uint64_t(2) << 30));
  // What a plan is called: the mode asked for; without one, what the budget made of it.
  auto label = [&](MemoryMode by_budget) { return mode.value_or(budget ? by_budget : MemoryMode::Default); };
  if (mode != MemoryMode::Low && bytes_of(all) <= target) {
    describe(all, label(MemoryMode::Fast), target);
    return all;
  }
  if (mode == MemoryMode::Low) {
    describe(low_plan(), MemoryMode::Low, ~uint64_t(0));
    return fits(std::move(low_plan()), MemoryMode::Low, true);
  }
  std::unique_ptr<Planned> none = plan_keeping(airs, options, 0, false);
  if (bytes_of(none) <= target) {
    std::unique_ptr<Planned> best =
        plan_most_kept(airs, options, std::move(none), false, bytes_of(all), target, cw.all);
    describe(best, label(MemoryMode::Default), target);
    return best;
  }
  if (bytes_of(low_plan()) >= target) {
    describe(low_plan(), label(MemoryMode::Low), target);
    return fits(std::move(low_plan()), label(MemoryMode::Low), true);
  }
  // With the tables made again, the codeword kept beside them is what the plan without grows by.
  const uint64_t from = bytes_of(low_plan()) + cw.all;
  std::unique_ptr<Planned> best = plan_most_kept(airs, options, std::move(low_plan()), true, from, target, cw.all);
  describe(best, label(MemoryMode::Default), target);
  return best;
}

std::unique_ptr<StarkProver::Planned> StarkProver::plan_most_kept(const std::vector<std::optional<AirWithTraces>>& airs,
                                                                  const PlanOptions& options,
                                                                  std::unique_ptr<Planned> none, bool remade,
                                                                  uint64_t from, uint64_t target, uint64_t codeword) {
  // The plan's bytes fall with the codeword kept, roughly byte for byte (the arena's chunks pack
  // unevenly): the estimate first, then a bisection below it (plans of a proof's shape take
  // milliseconds).
  std::unique_ptr<Planned> best = std::move(none);
  uint64_t lo = 0, hi = codeword - std::min(codeword, from - std::min(from, target));
  for (int i = 0; i < 10 && hi > lo; ++i) {
    const uint64_t kept = i == 0 ? hi : lo + (hi - lo + 1) / 2;
    std::unique_ptr<Planned> p = plan_keeping(airs, options, kept, remade);
    const uint64_t b = p->device_bytes();
    logger().debug("memory: {} of {} bytes of the codeword kept{}: plan {} bytes, target {}", kept, codeword,
                   remade ? " (tables made again)" : "", b, target);
    if (b <= target) {
      best = std::move(p);
      lo = kept;
      if (i == 0) break;
    } else {
      hi = kept - 1;
    }
    if (hi - lo < codeword / 64) break;  // within a sixty-fourth of the codeword
  }
  return best;
}

std::unique_ptr<StarkProver::Planned> StarkProver::plan_keeping(const std::vector<std::optional<AirWithTraces>>& airs,
                                                                const PlanOptions& options,
                                                                uint64_t kept_codeword_bytes, bool remade) {
  check_traces(pk_, airs, air_match_);
  auto out = std::make_unique<PreparedProof>();
  const MultiStarkVerifyingKey& vk = pk_.vk;
  out->vk = &vk;
  out->pk = &pk_;
  out->air_match = &air_match_;
  out->debug_check = options_.debug_check.value_or(debug_constraints_enabled());
  out->remade = remade;
  const SystemParams& params = vk.params;
  for (const auto& a : airs)
    out->heights.push_back(a ? std::optional<uint32_t>(uint32_t(std::countr_zero(a->common.height))) : std::nullopt);
  out->shape = proof_shape(vk, out->heights);
  const ProofShape& s = out->shape;
  const uint32_t log_n = params.log_stacked_height() + params.log_blowup;
  prepare_ntt_twiddles(exec_, log_n);

  for (const auto& a : airs)
    if (a)
      for (size_t i = 0; i < a->committed.size(); ++i)
        if (const CommittedTrace* ct = a->committed[i].get()) {
          if (ct->executor != &exec_)
            throw InputError(fmt::format(
                "AIR {}: cached part {} was committed on another executor than this prover's (commit it with "
                "this prover's commit_cached)",
                ct->air, i));
          if (ct->log_stacked_height != params.log_stacked_height() || ct->l_skip != params.l_skip ||
              ct->log_blowup != params.log_blowup || ct->k_whir != params.whir.k)
            throw InputError(fmt::format(
                "AIR {}: cached part {} was committed for other params (commit it with this prover)", ct->air, i));
        }
  out->preprocessed = preprocessed_commitments();

  Graph g;
  g.set_memory_limits(graph_limits());
  std::optional<Graph::SpanScope> root_span;
  root_span.emplace(g.span("stark_prove_excluding_trace"));
  {
    ProofSetup p(g, pk_, airs, s, kernels_,
                 {.preprocessed = out->preprocessed,
                  .kept_codeword_bytes = kept_codeword_bytes,
                  .keep_narrow = options_.keep_narrow_codewords});
    ProverContext& context = p.context;
    context.observe_piece_words = exec_.limits().max_shader_loop_iterations != 0 ? kObserveKernelPiece : 0;
    context.openings_sponge_on_host = openings_sponge_on_host();
    context.low_memory = remade;
    context.remake_min_bytes = options_.low_memory_min_bytes;
    for (Phase phase : kProofPhases) prove_phase(phase, context);
    end_phases(context);
    out->commits = std::move(p.commits);  // the context refers to them no more
    out->layout = std::move(p.layout);
    out->regions = std::move(p.regions);
    out->roots = std::move(p.roots);
  }
  root_span.reset();
  auto planned = std::make_unique<PlannedProof>();
  planned->prover = this;
  planned->compiled = std::make_shared<const Plan>(compile(std::move(g), options));
  planned->proof = std::move(out);
  return planned;
}

}  // namespace vkstark
