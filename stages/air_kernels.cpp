#include "stages/air_kernels.hpp"

#include <fmt/format.h>

#include <tbb/task_arena.h>
#include <tbb/task_group.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <limits>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>

#include "runtime/log.hpp"

namespace vkstark {

namespace {

spdlog::logger& logger() {
  static spdlog::logger& log = named_logger("vkstark.prover");
  return log;
}

// The extension kernels' mode: VKSTARK_EXT_KERNELS=generated|interpreted|fused when set
// (InputError naming the variable for another value), else Fused: measured fastest on the H100
// (docs/decisions.md, 2026-11-27 "MLE rounds"), quick to prepare (one interpreter pipeline), and
// what a CPU implementation of Vulkan needs. The proof is the same in every mode.
ExtKernelMode ext_kernel_mode() {
  if (const char* v = std::getenv("VKSTARK_EXT_KERNELS"); v != nullptr) {
    const std::string_view s(v);
    if (s == "generated") return ExtKernelMode::Generated;
    if (s == "interpreted") return ExtKernelMode::Interpreted;
    if (s == "fused") return ExtKernelMode::Fused;
    throw InputError(
        fmt::format("VKSTARK_EXT_KERNELS='{}': expected 'generated', 'interpreted' or 'fused' (or unset)", s));
  }
  return ExtKernelMode::Fused;
}

// Operations per chunk from the environment variable `var` (16 .. 2^20) when set (InputError naming
// it for another value), else `fallback`.
uint32_t chunk_nodes_from_environment(const char* var, uint32_t fallback) {
  const char* v = std::getenv(var);
  if (v == nullptr) return fallback;
  char* end = nullptr;
  const unsigned long n = std::strtoul(v, &end, 10);
  if (end == v || *end != '\0' || n < 16 || n > (1ul << 20))
    throw InputError(fmt::format("{}='{}': expected a whole number in [16, 2^20]", var, v));
  return uint32_t(n);
}

// Operations per chunk of the extension kernels: VKSTARK_EXT_CHUNK_NODES (16 .. 2^20) when set,
// else kFusedChunkNodes for the fused mode (short chunks: more of them side by side, each a
// shorter chain) and kConstraintChunkNodes for the others (a dispatch, or a pipeline, per chunk).
uint32_t ext_chunk_nodes(ExtKernelMode mode) {
  return chunk_nodes_from_environment("VKSTARK_EXT_CHUNK_NODES",
                                      mode == ExtKernelMode::Fused ? kFusedChunkNodes : kConstraintChunkNodes);
}

// Round 0's base-field kernels from VKSTARK_ROUND0_KERNELS=auto|generated|fused (InputError naming
// the variable for another value); VKSTARK_ROUND0_CHUNK_NODES (16 .. 2^20) their operations per
// chunk, else kRound0ChunkNodes, and one chunk on an executor with unbounded kernels (the CPU's:
// keccakf 2^15 round 0 in 0.92 s against 1.6 s in 82 chunks). docs/decisions.md 2026-11-27 "CPU
// constraint sumcheck" has the measurements behind both.
std::optional<Round0Kernels> round0_kernels_from_environment() {
  const char* v = std::getenv("VKSTARK_ROUND0_KERNELS");
  if (v == nullptr) return std::nullopt;
  const std::string_view s(v);
  if (s == "auto") return Round0Kernels::Auto;
  if (s == "generated") return Round0Kernels::Generated;
  if (s == "fused") return Round0Kernels::Interpreted;
  throw InputError(fmt::format("VKSTARK_ROUND0_KERNELS='{}': expected 'auto', 'generated' or 'fused' (or unset)", s));
}

// On the H100, 256 operations a chunk prove keccakf 2^12 .. 2^18 within 0.4 ms of 512 (either
// side) and start cold 0.6 to 1 s sooner (smaller pipelines compile faster in all); 1024 and
// 2048 are slower at both. On lavapipe (a slow shader compiler) 512 compile sooner in all (a
// keccakf proof test 151 s against 167 s), so it keeps them.
constexpr uint32_t kRound0ChunkNodes = 256;

uint32_t round0_chunk_nodes(const Executor& exec) {
  const ExecutorLimits l = exec.limits();
  const uint32_t fallback = l.unbounded_kernels      ? std::numeric_limits<uint32_t>::max()
                            : l.slow_shader_compiler ? kConstraintChunkNodes
                                                     : kRound0ChunkNodes;
  return chunk_nodes_from_environment("VKSTARK_ROUND0_CHUNK_NODES", fallback);
}

// The option's round-0 kernels, else the environment's, else the executor's default.
Round0Kernels round0_kernels(std::optional<Round0Kernels> option, const Executor& exec) {
  if (option) return *option;
  if (std::optional<Round0Kernels> env = round0_kernels_from_environment()) return *env;
  // By default, generated kernels where they run from their C++ bodies (the CPU executor) or
  // where the rows are few and the tests many (a CPU implementation of Vulkan: they keep their
  // kernels from one test to the next, and no background work runs beside theirs).
  const ExecutorLimits l = exec.limits();
  return l.unbounded_kernels || l.slow_shader_compiler ? Round0Kernels::Generated : Round0Kernels::Auto;
}

// The generated round-0 kernels' chunks (none for interpreted points kernels, whose programs one
// fixed interpreter runs).
std::vector<const KernelInfo*> generated_points(const AirFunctionalKernels& k) {
  std::vector<const KernelInfo*> out;
  for (const auto& p : k.points)
    if (p && p->base_fused.empty())
      for (const auto& c : p->chunks) out.push_back(c.kernel.get());
  return out;
}

// Whether round 0 runs on generated kernels (an AIR without constraints or interactions has no
// round-0 kernel of either kind: true).
bool points_generated(const AirFunctionalKernels& k) {
  return std::none_of(std::begin(k.points), std::end(k.points),
                      [](const auto& p) { return p && !p->base_fused.empty(); });
}

}  // namespace

// The background compilation: one TBB task per start_background(), all in one group, in an arena
// of their own at low priority; what they made, by AIR, for the next functional_kernels() to take.
// Their own arena: a thread that waits on TBB work of the default arena (a prepare's pipelines, a
// CPU executor's dispatch) takes only tasks of that arena, never a background compilation of
// seconds; at low priority, the proofs' own parallel work gets the workers first.
struct AirKernels::Background {
  tbb::task_arena arena{tbb::task_arena::automatic, 1, tbb::task_arena::priority::low};
  tbb::task_group group;  // used inside `arena` only
  std::mutex mutex;
  std::map<uint32_t, std::shared_ptr<const AirFunctionalKernels>> ready;  // guarded by mutex
};

AirKernels::AirKernels(const ProvingKey& pk, Executor& exec, std::optional<Round0Kernels> round0, bool background)
    : pk_(pk),
      exec_(exec),
      round0_(round0_kernels(round0, exec)),
      background_kernels_(background),
      background_(std::make_unique<Background>()) {}

AirKernels::~AirKernels() {
  background_->group.cancel();
  try {
    wait_for_kernels();
  } catch (...) {  // the tasks catch their own failures; nothing may escape a destructor
  }
}

void AirKernels::wait_for_kernels() {
  Background& b = *background_;
  b.arena.execute([&] { b.group.wait(); });
}

bool AirKernels::round0_generated(uint32_t air) { return points_generated(functional_kernels(air)); }

const InteractionKernels& AirKernels::interaction_kernels(uint32_t air, bool compact) {
  auto [it, fresh] = (compact ? compact_interactions_ : interactions_).try_emplace(air);
  if (fresh) it->second = make_interaction_kernels(pk_.per_air[air], {.spirv = exec_.limits().runs_spirv}, compact);
  return *it->second;
}

const AirFunctionalKernels& AirKernels::functional_kernels(uint32_t air) {
  const AirProvingKey& a = pk_.per_air[air];
  auto [it, fresh] = functionals_.try_emplace(air);
  if (!fresh) {
    if (!points_generated(*it->second)) {  // compiled in the background since?
      std::lock_guard lock(background_->mutex);
      if (auto r = background_->ready.find(air); r != background_->ready.end()) {
        it->second = r->second;
        logger().debug("AIR {}: round 0 on its generated kernels from now on (compiled in the background)", a.name);
      }
    }
    return *it->second;
  }
  try {
    it->second =
        make_air_functional_kernels(a.name, a.dag, a.shape, pk_.vk.per_air[air].params.need_rot, ext_kernel_mode(),
                                    ext_chunk_nodes(ext_kernel_mode()), round0_ != Round0Kernels::Generated,
                                    round0_chunk_nodes(exec_), {.spirv = exec_.limits().runs_spirv});
    if (round0_ == Round0Kernels::Auto) {
      // Generated kernels that would compile nothing (SPIR-V and pipelines in the caches) are used now.
      std::shared_ptr<const AirFunctionalKernels> cached =
          with_generated_points(a.name, *it->second, round0_chunk_nodes(exec_),
                                {.cached_only = true, .quiet = true, .spirv = exec_.limits().runs_spirv});
      const bool ready = cached && exec_.kernels_ready(generated_points(*cached));
      if (ready)
        it->second = std::move(cached);
      else if (background_kernels_)
        pending_.push_back(air);
      logger().debug("AIR {}: round 0 on {}", a.name,
                     ready                 ? "its generated kernels (ready in the caches)"
                     : background_kernels_ ? "the interpreter while its generated kernels compile"
                                           : "the interpreter");
    }
  } catch (...) {
    functionals_.erase(it);
    throw;
  }
  return *it->second;
}

void AirKernels::start_background() {
  if (pending_.empty()) return;
  std::vector<std::pair<uint32_t, std::shared_ptr<const AirFunctionalKernels>>> airs;
  for (uint32_t a : pending_) airs.emplace_back(a, functionals_.at(a));
  pending_.clear();
  const uint32_t chunk_nodes = round0_chunk_nodes(exec_);
  auto job = [this, airs = std::move(airs), chunk_nodes] {
    for (const auto& [air, interpreted] : airs) {
      const std::string& name = pk_.per_air[air].name;
      try {
        const auto start = std::chrono::steady_clock::now();
        std::shared_ptr<const AirFunctionalKernels> k =
            with_generated_points(name, *interpreted, chunk_nodes, {.quiet = true, .spirv = exec_.limits().runs_spirv});
        if (tbb::is_current_task_group_canceling() || !k) return;
        const std::vector<const KernelInfo*> kernels = generated_points(*k);
        exec_.compile_kernels(kernels);
        if (tbb::is_current_task_group_canceling()) return;
        logger().debug("AIR {}: {} generated round-0 kernels compiled in the background in {:.0f} ms", name,
                       kernels.size(),
                       std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
        std::lock_guard lock(background_->mutex);
        background_->ready[air] = std::move(k);
      } catch (const std::exception& e) {
        logger().warn(
            "AIR {}: compiling its generated round-0 kernels in the background failed ({}); its proofs "
            "stay on the interpreter",
            name, e.what());
      }
    }
  };
  Background& b = *background_;
  b.arena.execute([&] { b.group.run(std::move(job)); });
}

}  // namespace vkstark
