// Plan: a compiled Graph (architecture.md, "Runtime concepts"). A value: immutable once built,
// safe to share between threads and to run many times; it prints as text and as DOT.
//
// compile() keeps program order and
// - packs consecutive dispatches into one Submission, split only at Host tasks
//   (PlanOptions::fuse = false: one submission, and so one host wait, per dispatch);
// - places a barrier before a dispatch only on a hazard with an earlier access to overlapping
//   memory: read-after-write and write-after-write need a memory barrier, write-after-read only an
//   execution dependency; independent dispatches get none. Hazards are computed on the memory the
//   plan assigns, so aliased transients are covered too;
// - gives each Transient an offset in the transient arena, sharing memory between transients
//   whose lifetimes (first to last task that touches them) do not overlap. The arena is split into
//   chunks of at most MemoryLimits::max_allocation_bytes (one allocation each), and every buffer
//   lies inside one chunk;
// - checks every buffer against the largest allocation and every view against the largest
//   binding (GraphError naming the buffer or the task: the graph's builder must split them);
// - records the counts an executor must reproduce (golden-tested).
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/graph.hpp"

namespace vkstark {

struct PlanOptions {
  bool fuse = true;              // pack dispatches into submissions (false: one per dispatch)
  bool alias_transients = true;  // share memory between transients with disjoint lifetimes
  // Inputs live in the transient arena, from the start of the run to their last use, so that
  // later transients reuse their memory. Such an Input must be uploaded again before every run.
  bool inputs_in_arena = false;
  MemoryLimits limits{};  // with the Graph's own (Graph::set_memory_limits), the tighter of each
};

enum class BarrierKind : uint8_t { None, Execution, Memory };
enum class HazardKind : uint8_t { ReadAfterWrite, WriteAfterWrite, WriteAfterRead };
std::string_view to_string(BarrierKind k);
std::string_view to_string(HazardKind k);

// Why a barrier stands where it does (the first hazard found).
struct Hazard {
  HazardKind kind = HazardKind::ReadAfterWrite;
  uint32_t earlier_task = 0;
  BufferId earlier_buffer = kNoBuffer;  // may differ from `buffer` when transients alias
  BufferId buffer = kNoBuffer;
};

struct Step {
  uint32_t task = 0;
  BarrierKind barrier = BarrierKind::None;  // placed before the task
  Hazard hazard;                            // meaningful when barrier != None
};

// A Submission (device tasks recorded into one command buffer, one host wait at its end) or one Host task.
struct Segment {
  enum class Kind : uint8_t { Submission, Host } kind = Kind::Submission;
  std::vector<Step> steps;
};

inline constexpr uint32_t kTransientArena = ~0u;

struct Placement {
  uint32_t region = 0;  // kTransientArena, or the buffer's own id for a dedicated allocation
  uint32_t chunk = 0;   // in the arena: which chunk (allocation)
  uint64_t offset = 0;  // byte offset inside the region (the chunk)
  bool in_arena() const { return region == kTransientArena; }
};

struct MemoryPlan {
  std::vector<Placement> placement;    // per buffer
  std::vector<int64_t> first_use;      // per buffer: first task index touching it, -1 if none
  std::vector<int64_t> last_use;       // per buffer: last task index touching it, -1 if none
  std::vector<uint64_t> arena_chunks;  // bytes of each chunk of the transient arena
  uint64_t transient_arena_bytes = 0;  // all chunks
  uint64_t dedicated_bytes = 0;
  // The most bytes of the arena's buffers that hold data at once (a task's live set); the arena's
  // size above it is what packing and chunking leave unused.
  uint64_t peak_live_bytes = 0;
  int64_t peak_task = -1;  // a task at which peak_live_bytes are live
};

// The executor memory a plan takes when prepared: its transient arena and every buffer with memory
// of its own (Persistent buffers included, though executors share them across plans: an upper bound).
inline uint64_t plan_device_bytes(const MemoryPlan& m) { return m.transient_arena_bytes + m.dedicated_bytes; }

struct PlanCounts {
  uint64_t dispatches = 0;
  uint64_t barriers = 0;  // memory + execution
  uint64_t memory_barriers = 0;
  uint64_t execution_barriers = 0;
  // Submissions the host waits for: submission segments joined by host tasks inside them
  // (Plan::host_inside) count once.
  uint64_t submissions = 0;
  uint64_t host_tasks = 0;
  uint64_t host_syncs = 0;  // one wait at the end of every submission
  // Poseidon2 permutations of the dispatches whose kernels count them (KernelInfo::permutations:
  // row hashing and Merkle compression; the transcript's and grinding's are not counted).
  uint64_t permutations = 0;
  bool operator==(const PlanCounts&) const = default;
};

class Plan {
 public:
  std::vector<BufferDesc> buffers;
  std::vector<Task> tasks;
  std::vector<SpanDesc> spans;
  std::vector<Segment> segments;
  MemoryPlan memory;
  PlanCounts counts;
  PlanOptions options;
  GraphId graph = kNoGraph;  // the Graph compiled: transfers of its buffers' handles only

  const BufferDesc& buffer(BufferId id) const { return buffers.at(id); }
  // True for a Host segment whose task asked for HostPlacement::InSubmission and that lies between
  // two Submission segments: an executor with timeline semaphores runs it inside one submission
  // with them (PlanCounts count them so).
  bool host_inside(size_t segment) const;
  // True if the first task touching the buffer reads it (it must hold data before the run: an
  // uploaded Input, or a Persistent that an earlier run or upload filled).
  bool read_before_written(BufferId id) const;
  std::string to_text() const;
  // Every dependency between tasks, found by comparing every pair of tasks: quadratic in the
  // tasks (seconds for 10^4 tasks); meant for looking at small plans.
  std::string to_dot() const;
};

// Where a plan's memory goes, by buffer group (Graph::memory_group; buffers outside any group:
// "inputs", "outputs", "constants", "persistent" by lifetime, "work" for transients): dedicated
// buffers whole, arena buffers as live at peak_task, then "arena slack" (the arena's bytes above
// its peak live bytes). The entries add up to plan_device_bytes; largest first.
struct MemoryPart {
  std::string group;
  uint64_t bytes = 0;
};
[[nodiscard]] std::vector<MemoryPart> memory_breakdown(const Plan& plan);
// "11.04 GB: codeword 5.52, trace 2.76, ..." (GB = 10^9 bytes).
[[nodiscard]] std::string format_memory_breakdown(const std::vector<MemoryPart>& uses);

// Where the arena's live bytes peak, for people shrinking a plan: the live bytes at each top-level
// span's busiest task and the buffers live at the plan's peak, largest first (at most `buffers`),
// dedicated buffers listed apart. Text, one item per line.
[[nodiscard]] std::string memory_report(const Plan& plan, size_t buffers = 16);

[[nodiscard]] Plan compile(const Graph& graph, PlanOptions options = {});
// The same without copying the graph's tasks and buffers: they move into the plan, and `graph` is
// left empty (as a new Graph).
[[nodiscard]] Plan compile(Graph&& graph, PlanOptions options = {});

}  // namespace vkstark
