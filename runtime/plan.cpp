#include "runtime/plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <map>
#include <sstream>

namespace vkstark {

std::string_view to_string(BarrierKind k) {
  switch (k) {
    case BarrierKind::None:
      return "none";
    case BarrierKind::Execution:
      return "execution";
    case BarrierKind::Memory:
      return "memory";
  }
  return "?";
}

std::string_view to_string(HazardKind k) {
  switch (k) {
    case HazardKind::ReadAfterWrite:
      return "read-after-write";
    case HazardKind::WriteAfterWrite:
      return "write-after-write";
    case HazardKind::WriteAfterRead:
      return "write-after-read";
  }
  return "?";
}

namespace {

uint64_t align_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

// A byte range of assigned memory touched by a task.
struct Range {
  uint32_t region;
  uint64_t begin, end;
  uint32_t task;
  BufferId buffer;
  bool overlaps(const Range& o) const { return region == o.region && begin < o.end && o.begin < end; }
};

// Regions: a dedicated buffer's own id, or buffers.size() + the arena chunk.
uint32_t region_of(const Plan& p, const Placement& pl) {
  return pl.in_arena() ? uint32_t(p.buffers.size()) + pl.chunk : pl.region;
}

Range physical(const Plan& p, uint32_t task, const Binding& b) {
  if (!b.used()) return {uint32_t(p.buffers.size()), 0, 0, task, b.buffer};  // an unused array slot: empty
  const Placement& pl = p.memory.placement[b.buffer];
  uint64_t begin = pl.offset + b.byte_offset();
  return {region_of(p, pl), begin, begin + b.byte_count(), task, b.buffer};
}

void compute_uses(Plan& p) {
  auto& m = p.memory;
  m.first_use.assign(p.buffers.size(), -1);
  m.last_use.assign(p.buffers.size(), -1);
  for (size_t i = 0; i < p.tasks.size(); ++i)
    for (const Binding& b : p.tasks[i].bindings) {
      if (!b.used()) continue;
      if (m.first_use[b.buffer] < 0) m.first_use[b.buffer] = static_cast<int64_t>(i);
      m.last_use[b.buffer] = static_cast<int64_t>(i);
    }
}

bool in_arena(const Plan& p, BufferId id) {
  const Lifetime l = p.buffers[id].lifetime;
  return l == Lifetime::Transient || (l == Lifetime::Input && p.options.inputs_in_arena);
}

// When an arena buffer starts to hold data: an Input from the start of the run (it is uploaded
// before), a Transient at its first use (-1: never used).
int64_t live_from(const Plan& p, BufferId id) {
  return p.buffers[id].lifetime == Lifetime::Input ? 0 : p.memory.first_use[id];
}

std::string limit_hint(uint64_t limit) {
  return fmt::format(
      "{} bytes (MemoryLimits::max_allocation_bytes: the device's maxMemoryAllocationSize, or "
      "VKSTARK_MAX_ALLOCATION_BYTES)",
      limit);
}

void assign_memory(Plan& p) {
  auto& m = p.memory;
  const uint64_t limit = p.options.limits.max_allocation_bytes;
  m.placement.assign(p.buffers.size(), {});
  std::vector<BufferId> arena;
  for (BufferId id = 0; id < p.buffers.size(); ++id) {
    if (in_arena(p, id)) {
      arena.push_back(id);
      continue;
    }
    if (p.buffers[id].bytes() > limit)
      throw GraphError(
          fmt::format("buffer '{}' ({} bytes, {}) is larger than one allocation may be: {}; its builder "
                      "must split it",
                      p.buffers[id].name, p.buffers[id].bytes(), to_string(p.buffers[id].lifetime), limit_hint(limit)));
    m.placement[id] = {id, 0, 0};
    m.dedicated_bytes += p.buffers[id].bytes();
  }
  std::stable_sort(arena.begin(), arena.end(),
                   [&](BufferId a, BufferId b) { return live_from(p, a) < live_from(p, b); });
  struct Live {
    uint64_t begin, end;
    int64_t last_use;
  };
  struct Chunk {
    std::vector<Live> live;
    uint64_t bytes = 0;
  };
  std::vector<Chunk> chunks;
  for (BufferId id : arena) {
    const uint64_t size = align_up(std::max<uint64_t>(p.buffers[id].bytes(), 1), kTransientAlignment);
    if (size > limit)
      throw GraphError(
          fmt::format("buffer '{}' ({} bytes, {}) is larger than one allocation may be: {}; its builder "
                      "must split it",
                      p.buffers[id].name, p.buffers[id].bytes(), to_string(p.buffers[id].lifetime), limit_hint(limit)));
    const int64_t first = live_from(p, id);
    uint32_t chunk = 0;
    uint64_t offset = 0;
    for (;; ++chunk) {
      if (chunk == chunks.size()) chunks.emplace_back();
      Chunk& c = chunks[chunk];
      offset = 0;
      if (p.options.alias_transients) {
        // A buffer whose last use comes before this one's first use no longer holds data.
        // Unused transients (first use -1) are given space but never touched.
        std::erase_if(c.live, [&](const Live& l) { return first >= 0 && l.last_use >= 0 && l.last_use < first; });
        std::sort(c.live.begin(), c.live.end(), [](const Live& a, const Live& b) { return a.begin < b.begin; });
        for (const Live& l : c.live) {  // lowest gap that fits
          if (offset + size <= l.begin) break;
          offset = std::max(offset, l.end);
        }
      } else {
        offset = c.bytes;
      }
      if (offset + size <= limit) break;
    }
    Chunk& c = chunks[chunk];
    if (p.options.alias_transients) c.live.push_back({offset, offset + size, m.last_use[id]});
    m.placement[id] = {kTransientArena, chunk, offset};
    c.bytes = std::max(c.bytes, offset + size);
  }
  for (const Chunk& c : chunks) {
    m.arena_chunks.push_back(c.bytes);
    m.transient_arena_bytes += c.bytes;
  }
  // The live set over time: +bytes where a buffer starts to hold data, -bytes after its last use.
  std::vector<int64_t> delta(p.tasks.size() + 1, 0);
  for (BufferId id : arena) {
    const int64_t first = live_from(p, id), last = m.last_use[id];
    if (first < 0 || last < 0) continue;
    delta[size_t(first)] += int64_t(p.buffers[id].bytes());
    delta[size_t(last) + 1] -= int64_t(p.buffers[id].bytes());
  }
  int64_t live = 0;
  for (size_t i = 0; i < p.tasks.size(); ++i) {
    live += delta[i];
    if (uint64_t(live) > m.peak_live_bytes) {
      m.peak_live_bytes = uint64_t(live);
      m.peak_task = int64_t(i);
    }
  }
}

// Every dispatch's views fit one binding (MemoryLimits::max_view_bytes).
void check_views(const Plan& p) {
  const MemoryLimits& lim = p.options.limits;
  if (lim.max_view_bytes() == ~uint64_t(0)) return;
  for (const Task& t : p.tasks) {
    if (t.kind != TaskKind::Dispatch) continue;
    for (const Binding& b : t.bindings)
      if (b.used() && !lim.binds(b.byte_offset(), b.byte_count()))
        throw GraphError(fmt::format(
            "task '{}': its view of buffer '{}' is {} bytes from byte {}, more than one binding may cover ({} bytes: "
            "MemoryLimits::max_binding_bytes, max_allocation_bytes); its builder must split the task",
            t.name, p.buffers[b.buffer].name, b.byte_count(), b.byte_offset(),
            std::min(lim.max_binding_bytes, lim.max_allocation_bytes)));
  }
}

// Pending accesses since a barrier, kept per region of assigned memory so that a task looks only
// at the ranges of the regions it touches. first_overlap() returns the earliest added range that
// overlaps, the one a scan of all pending ranges in the order they were added would find first:
// plans (hazards included) do not depend on how the pending ranges are stored.
//
// Per region, the union of the non-empty ranges is kept as disjoint pieces in a map keyed by their
// first byte; a piece names the earliest range that covers it. Ranges are only added and then all
// dropped at a barrier, so a piece's earliest range never changes once set, and the earliest range
// overlapping [b, e) is the earliest among the pieces overlapping [b, e): a lookup costs
// O(log n + pieces overlapping), and any overlap found leads to a barrier that clears the set.
// Empty ranges follow Range::overlaps (an empty range overlaps a range that holds its position
// strictly inside); they are rare (zero-count views) and handled by plain scans.
class PendingRanges {
 public:
  explicit PendingRanges(size_t regions) : regions_(regions) {}

  void add(const Range& r) {
    const size_t slot = slot_of(r.region);
    Region& reg = regions_[slot];
    if (reg.ranges.empty()) used_.push_back(slot);
    const auto index = static_cast<uint32_t>(reg.ranges.size());
    reg.ranges.push_back(r);
    if (r.begin == r.end) {
      reg.empties.emplace(r.begin, index);
      return;
    }
    uint64_t cur = r.begin;
    auto it = reg.pieces.upper_bound(r.begin);
    if (it != reg.pieces.begin()) cur = std::max(cur, std::prev(it)->second.end);
    for (; cur < r.end; ++it) {  // fill the gaps between the pieces already there
      if (it == reg.pieces.end() || it->first >= r.end) {
        reg.pieces.emplace_hint(it, cur, Piece{r.end, index});
        break;
      }
      if (it->first > cur) reg.pieces.emplace_hint(it, cur, Piece{it->first, index});
      cur = std::max(cur, it->second.end);
    }
  }

  const Range* first_overlap(const Range& r) const {
    const Region& reg = regions_[slot_of(r.region)];
    if (reg.ranges.empty()) return nullptr;
    uint32_t best = kNone;
    if (r.begin == r.end) {
      for (uint32_t i = 0; i < reg.ranges.size() && best == kNone; ++i)
        if (r.overlaps(reg.ranges[i])) best = i;
    } else {
      auto it = reg.pieces.upper_bound(r.begin);
      if (it != reg.pieces.begin() && std::prev(it)->second.end > r.begin) best = std::prev(it)->second.range;
      for (; it != reg.pieces.end() && it->first < r.end; ++it) best = std::min(best, it->second.range);
      for (auto e = reg.empties.upper_bound(r.begin); e != reg.empties.end() && e->first < r.end; ++e)
        best = std::min(best, e->second);
    }
    return best == kNone ? nullptr : &reg.ranges[best];
  }

  void clear() {
    for (size_t slot : used_) regions_[slot] = Region{};
    used_.clear();
  }

 private:
  static constexpr uint32_t kNone = ~0u;
  struct Piece {
    uint64_t end;    // the piece is [key, end)
    uint32_t range;  // index into Region::ranges of the earliest range covering the piece
  };
  struct Region {
    std::vector<Range> ranges;                  // in the order added
    std::map<uint64_t, Piece> pieces;           // disjoint, covering the non-empty ranges
    std::multimap<uint64_t, uint32_t> empties;  // empty ranges by position
  };
  static size_t slot_of(uint32_t region) { return region; }

  std::vector<Region> regions_;  // per buffer with its own memory, then the arena's chunks
  std::vector<size_t> used_;     // regions holding ranges
};

void place_barriers_and_segments(Plan& p) {
  const size_t regions = p.buffers.size() + std::max<size_t>(p.memory.arena_chunks.size(), 1);
  PendingRanges pending_writes(regions);  // since the last memory barrier
  PendingRanges pending_reads(regions);   // since the last barrier of any kind
  for (uint32_t i = 0; i < p.tasks.size(); ++i) {
    const Task& t = p.tasks[i];
    Step step;
    step.task = i;
    if (t.kind == TaskKind::Host) {
      // The executor waits for the device before a host task and submits anew after it; host
      // accesses need no device barrier. Pending device accesses stay pending (conservative).
      p.segments.push_back({Segment::Kind::Host, {step}});
      ++p.counts.host_tasks;
      continue;
    }
    std::vector<Range> mine;
    for (const Binding& b : t.bindings) mine.push_back(physical(p, i, b));
    bool memory = false, exec = false;
    for (size_t k = 0; k < t.bindings.size() && !memory; ++k) {
      const Range& r = mine[k];
      if (const Range* w = pending_writes.first_overlap(r)) {
        memory = true;
        HazardKind kind = reads(t.bindings[k].access) ? HazardKind::ReadAfterWrite : HazardKind::WriteAfterWrite;
        step.hazard = {kind, w->task, w->buffer, r.buffer};
        break;
      }
      if (!exec && writes(t.bindings[k].access))
        if (const Range* rd = pending_reads.first_overlap(r)) {
          exec = true;
          step.hazard = {HazardKind::WriteAfterRead, rd->task, rd->buffer, r.buffer};
        }
    }
    if (memory) {
      step.barrier = BarrierKind::Memory;
      pending_writes.clear();
      pending_reads.clear();
      ++p.counts.memory_barriers;
    } else if (exec) {
      step.barrier = BarrierKind::Execution;
      pending_reads.clear();
      ++p.counts.execution_barriers;
    }
    for (size_t k = 0; k < t.bindings.size(); ++k) {
      if (reads(t.bindings[k].access)) pending_reads.add(mine[k]);
      if (writes(t.bindings[k].access)) pending_writes.add(mine[k]);
    }
    ++p.counts.dispatches;
    if (t.kernel && t.kernel->permutations && t.args) p.counts.permutations += t.kernel->permutations(t.args.get());
    bool open = p.options.fuse && !p.segments.empty() && p.segments.back().kind == Segment::Kind::Submission;
    if (!open) p.segments.push_back({Segment::Kind::Submission, {}});
    p.segments.back().steps.push_back(step);
  }
  p.counts.barriers = p.counts.memory_barriers + p.counts.execution_barriers;
  for (size_t i = 0; i < p.segments.size(); ++i)
    if (p.segments[i].kind == Segment::Kind::Submission && !(i >= 1 && p.host_inside(i - 1))) ++p.counts.submissions;
  p.counts.host_syncs = p.counts.submissions;
}

std::string access_list(const Plan& p, const Task& t) {
  std::string out;
  for (const Binding& b : t.bindings) {
    if (!b.used()) continue;
    const char* a = b.access == Access::Read ? "r" : b.access == Access::Write ? "w" : "rw";
    out += fmt::format(" {}:{}[{},{})", a, p.buffers[b.buffer].name, b.offset, b.offset + b.count);
  }
  return out;
}

std::string task_label(const Plan& p, uint32_t i) {
  const Task& t = p.tasks[i];
  std::string span = p.spans[t.span].path.empty() ? "" : fmt::format(" [{}]", p.spans[t.span].path);
  if (t.kind == TaskKind::Host) return fmt::format("{} host '{}'{}", i, t.name, span);
  return fmt::format("{} dispatch '{}' {} grid {}x{}{}", i, t.name, t.kernel->name, t.grid.x, t.grid.y, span);
}

}  // namespace

namespace {
Plan schedule(Plan p) {
  compute_uses(p);
  assign_memory(p);
  check_views(p);
  place_barriers_and_segments(p);
  return p;
}
}  // namespace

namespace {
MemoryLimits tighter(const MemoryLimits& a, const MemoryLimits& b) {
  return {.max_allocation_bytes = std::min(a.max_allocation_bytes, b.max_allocation_bytes),
          .max_binding_bytes = std::min(a.max_binding_bytes, b.max_binding_bytes)};
}
}  // namespace

bool Plan::host_inside(size_t segment) const {
  if (segment == 0 || segment + 1 >= segments.size()) return false;
  const Segment& s = segments[segment];
  return s.kind == Segment::Kind::Host && tasks[s.steps[0].task].placement == HostPlacement::InSubmission &&
         segments[segment - 1].kind == Segment::Kind::Submission &&
         segments[segment + 1].kind == Segment::Kind::Submission;
}

Plan compile(const Graph& graph, PlanOptions options) {
  options.limits = tighter(options.limits, graph.memory_limits());
  Plan p;
  p.buffers = graph.buffers();
  p.tasks = graph.tasks();
  p.spans = graph.spans();
  p.options = options;
  p.graph = graph.id();
  return schedule(std::move(p));
}

Plan compile(Graph&& graph, PlanOptions options) {
  options.limits = tighter(options.limits, graph.memory_limits());
  Plan p;
  p.buffers = std::move(graph.buffers_);
  p.tasks = std::move(graph.tasks_);
  p.spans = std::move(graph.spans_);
  p.options = options;
  p.graph = graph.id_;
  graph = Graph();
  return schedule(std::move(p));
}

namespace {
std::string default_group(const BufferDesc& b) {
  switch (b.lifetime) {
    case Lifetime::Input:
      return "inputs";
    case Lifetime::Output:
      return "outputs";
    case Lifetime::Constant:
      return "constants";
    case Lifetime::Persistent:
      return "persistent";
    case Lifetime::Transient:
      return "work";
  }
  return "work";
}
}  // namespace

std::vector<MemoryPart> memory_breakdown(const Plan& plan) {
  const MemoryPlan& m = plan.memory;
  std::vector<MemoryPart> out;
  auto add = [&](const std::string& group, uint64_t bytes) {
    if (bytes == 0) return;
    auto it = std::find_if(out.begin(), out.end(), [&](const MemoryPart& u) { return u.group == group; });
    if (it == out.end())
      out.push_back({group, bytes});
    else
      it->bytes += bytes;
  };
  uint64_t live = 0;
  for (BufferId id = 0; id < plan.buffers.size(); ++id) {
    const BufferDesc& b = plan.buffers[id];
    const std::string group = b.group.empty() ? default_group(b) : b.group;
    if (!m.placement[id].in_arena()) {
      add(group, b.bytes());
      continue;
    }
    const int64_t from = b.lifetime == Lifetime::Input ? 0 : m.first_use[id];
    if (m.peak_task >= 0 && from >= 0 && from <= m.peak_task && m.last_use[id] >= m.peak_task) {
      add(group, b.bytes());
      live += b.bytes();
    }
  }
  add("arena slack", m.transient_arena_bytes > live ? m.transient_arena_bytes - live : 0);
  std::stable_sort(out.begin(), out.end(), [](const MemoryPart& a, const MemoryPart& b) { return a.bytes > b.bytes; });
  return out;
}

std::string format_memory_breakdown(const std::vector<MemoryPart>& uses) {
  uint64_t total = 0;
  for (const MemoryPart& u : uses) total += u.bytes;
  std::string out = fmt::format("{:.3f} GB", double(total) / 1e9);
  for (size_t i = 0; i < uses.size(); ++i)
    out += fmt::format("{} {} {:.3f}", i == 0 ? ":" : ",", uses[i].group, double(uses[i].bytes) / 1e9);
  return out;
}

std::string memory_report(const Plan& plan, size_t buffers) {
  const MemoryPlan& m = plan.memory;
  const size_t n = plan.tasks.size();
  std::vector<int64_t> delta(n + 1, 0);
  std::vector<BufferId> arena, dedicated;
  for (BufferId id = 0; id < plan.buffers.size(); ++id) {
    if (!m.placement[id].in_arena()) {
      dedicated.push_back(id);
      continue;
    }
    const int64_t first = live_from(plan, id), last = m.last_use[id];
    if (first < 0 || last < 0) continue;
    arena.push_back(id);
    delta[size_t(first)] += int64_t(plan.buffers[id].bytes());
    delta[size_t(last) + 1] -= int64_t(plan.buffers[id].bytes());
  }
  // The top-level span of each task (the child of the root it lies in).
  auto top = [&](uint32_t span) {
    while (span < plan.spans.size() && plan.spans[span].parent > 0) span = uint32_t(plan.spans[span].parent);
    return span;
  };
  std::vector<std::pair<uint64_t, int64_t>> per_span(plan.spans.size(), {0, -1});  // peak bytes, task
  int64_t live = 0;
  for (size_t i = 0; i < n; ++i) {
    live += delta[i];
    auto& [bytes, task] = per_span.at(top(plan.tasks[i].span));
    if (uint64_t(live) > bytes || task < 0) bytes = uint64_t(live), task = int64_t(i);
  }
  std::string out = fmt::format(
      "arena {:.3f} GB in {} chunk(s), peak live {:.3f} GB at task {} '{}'; dedicated {:.3f} GB\n",
      double(m.transient_arena_bytes) / 1e9, m.arena_chunks.size(), double(m.peak_live_bytes) / 1e9, m.peak_task,
      m.peak_task >= 0 ? plan.tasks[size_t(m.peak_task)].name : std::string(), double(m.dedicated_bytes) / 1e9);
  for (size_t s = 0; s < plan.spans.size(); ++s)
    if (per_span[s].second >= 0)
      out += fmt::format("  span {:<40} peak live {:8.3f} GB at '{}'\n",
                         s == 0 ? std::string("(root)") : plan.spans[s].path, double(per_span[s].first) / 1e9,
                         plan.tasks[size_t(per_span[s].second)].name);
  std::vector<BufferId> at_peak;
  for (BufferId id : arena)
    if (m.peak_task >= 0 && live_from(plan, id) <= m.peak_task && m.last_use[id] >= m.peak_task) at_peak.push_back(id);
  auto by_size = [&](BufferId a, BufferId b) { return plan.buffers[a].bytes() > plan.buffers[b].bytes(); };
  std::stable_sort(at_peak.begin(), at_peak.end(), by_size);
  std::stable_sort(dedicated.begin(), dedicated.end(), by_size);
  auto list = [&](const char* what, const std::vector<BufferId>& ids) {
    out += fmt::format("  {} ({}):\n", what, ids.size());
    for (size_t i = 0; i < ids.size() && i < buffers; ++i) {
      const BufferDesc& b = plan.buffers[ids[i]];
      const std::string first = m.first_use[ids[i]] >= 0 ? plan.tasks[size_t(m.first_use[ids[i]])].name : "-";
      const std::string last = m.last_use[ids[i]] >= 0 ? plan.tasks[size_t(m.last_use[ids[i]])].name : "-";
      out += fmt::format("    {:8.3f} GB  {} [{}] {} .. {}\n", double(b.bytes()) / 1e9, b.name,
                         b.group.empty() ? default_group(b) : b.group, first, last);
    }
  };
  list("arena buffers live at the peak", at_peak);
  list("dedicated buffers", dedicated);
  return out;
}

bool Plan::read_before_written(BufferId id) const {
  const int64_t first = memory.first_use.at(id);
  if (first < 0) return false;
  for (const Binding& b : tasks[first].bindings)
    if (b.buffer == id && reads(b.access)) return true;
  return false;
}

std::string Plan::to_text() const {
  std::ostringstream os;
  os << fmt::format(
      "plan ({}): {} tasks, {} dispatches, {} submissions, {} barriers ({} memory, {} execution), {} host tasks, "
      "{} host syncs\n",
      options.fuse ? "fused" : "unfused", tasks.size(), counts.dispatches, counts.submissions, counts.barriers,
      counts.memory_barriers, counts.execution_barriers, counts.host_tasks, counts.host_syncs);
  os << fmt::format("memory: transient arena {} B in {} chunk(s), dedicated {} B\n", memory.transient_arena_bytes,
                    memory.arena_chunks.size(), memory.dedicated_bytes);
  for (BufferId id = 0; id < buffers.size(); ++id) {
    const BufferDesc& b = buffers[id];
    const Placement& pl = memory.placement[id];
    std::string where = !pl.in_arena()                   ? std::string("dedicated")
                        : memory.arena_chunks.size() > 1 ? fmt::format("arena {} @{}", pl.chunk, pl.offset)
                                                         : fmt::format("arena @{}", pl.offset);
    os << fmt::format("  buffer {} '{}' {} x {} {} {} B, {}, tasks {}..{}\n", id, b.name, b.count, b.type.name,
                      to_string(b.lifetime), b.bytes(), where, memory.first_use[id], memory.last_use[id]);
  }
  size_t sub = 0;
  for (const Segment& s : segments) {
    const size_t si = static_cast<size_t>(&s - segments.data());
    if (s.kind == Segment::Kind::Host) {
      os << "  " << task_label(*this, s.steps[0].task) << access_list(*this, tasks[s.steps[0].task])
         << (host_inside(si) ? " (inside the submission)" : "") << "\n";
      continue;
    }
    if (si >= 1 && host_inside(si - 1))
      os << fmt::format("submission {}, continued ({} dispatches)\n", sub - 1, s.steps.size());
    else
      os << fmt::format("submission {} ({} dispatches)\n", sub++, s.steps.size());
    for (const Step& st : s.steps) {
      if (st.barrier != BarrierKind::None)
        os << fmt::format("    -- {} barrier: {} on '{}' after task {} ('{}')\n", to_string(st.barrier),
                          to_string(st.hazard.kind), buffers[st.hazard.buffer].name, st.hazard.earlier_task,
                          buffers[st.hazard.earlier_buffer].name);
      os << "    " << task_label(*this, st.task) << access_list(*this, tasks[st.task]) << "\n";
    }
    if (!host_inside(si + 1)) os << "    -- wait (host sync)\n";
  }
  return os.str();
}

std::string Plan::to_dot() const {
  std::ostringstream os;
  os << "digraph plan {\n  rankdir=TB;\n  node [shape=box, fontname=\"monospace\"];\n";
  size_t sub = 0;
  for (size_t si = 0; si < segments.size(); ++si) {
    const Segment& s = segments[si];
    bool host = s.kind == Segment::Kind::Host;
    os << fmt::format("  subgraph cluster_{} {{\n    label=\"{}\";\n", si,
                      host ? std::string("host task") : fmt::format("submission {}", sub++));
    for (const Step& st : s.steps) {
      const Task& t = tasks[st.task];
      os << fmt::format("    t{} [label=\"{}\\n{}\"{}];\n", st.task, t.name, host ? "host" : t.kernel->name,
                        host ? ", style=filled, fillcolor=lightyellow" : "");
    }
    os << "  }\n";
  }
  // Every dependency (not only those that needed a barrier), on assigned memory.
  for (uint32_t i = 0; i < tasks.size(); ++i)
    for (uint32_t j = 0; j < i; ++j) {
      std::string kind;
      for (const Binding& bi : tasks[i].bindings)
        for (const Binding& bj : tasks[j].bindings) {
          if (!writes(bi.access) && !writes(bj.access)) continue;
          if (!physical(*this, i, bi).overlaps(physical(*this, j, bj))) continue;
          kind = writes(bj.access) ? (reads(bi.access) ? "RAW" : "WAW") : "WAR";
        }
      if (!kind.empty()) os << fmt::format("  t{} -> t{} [label=\"{}\"];\n", j, i, kind);
    }
  os << "}\n";
  return os.str();
}

}  // namespace vkstark
