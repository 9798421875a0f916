// Specifies compile(): submissions, barrier placement from declared accesses, transient aliasing,
// and the exact counts a plan promises (golden values).
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <optional>
#include <random>

#include "kernels/basic.hpp"
#include "kernels/elementwise.hpp"
#include "runtime/plan.hpp"

using namespace vkstark;

namespace {
PlanCounts counts(uint64_t dispatches, uint64_t memory, uint64_t execution, uint64_t submissions, uint64_t host_tasks) {
  PlanCounts c;
  c.dispatches = dispatches;
  c.memory_barriers = memory;
  c.execution_barriers = execution;
  c.barriers = memory + execution;
  c.submissions = submissions;
  c.host_tasks = host_tasks;
  c.host_syncs = submissions;
  return c;
}
std::vector<BarrierKind> barriers_of(const Plan& p) {
  std::vector<BarrierKind> out;
  for (const auto& s : p.segments)
    for (const auto& st : s.steps) out.push_back(st.barrier);
  return out;
}
using B = BarrierKind;

// A kernel with every kind of access, for graphs that are compiled and never run.
struct ReadModifyWrite {
  static constexpr std::string_view name = "test_read_modify_write";
  struct Args {
    In<uint32_t> in;
    InOut<uint32_t> inout;
    Out<uint32_t> out;
  };
  static void cpu(const Args&, const CpuContext&) {}
};
// A write and a read-then-write of views of any lengths (no grid or size rules): scheduling only.
struct AnyWrite {
  static constexpr std::string_view name = "test_any_write";
  struct Args {
    Out<uint32_t> out;
  };
  static void cpu(const Args&, const CpuContext&) {}
};
struct AnyCopy {
  static constexpr std::string_view name = "test_any_copy";
  struct Args {
    In<uint32_t> src;
    Out<uint32_t> dst;
  };
  static void cpu(const Args&, const CpuContext&) {}
};

// The barrier placement of compile() as a plain scan of every pending access in the order added,
// on the plan's assigned memory: the reference the scheduler's per-region lookup must reproduce.
std::vector<Step> naive_steps(const Plan& p) {
  struct Range {
    uint32_t region;
    uint64_t begin, end;
    uint32_t task;
    BufferId buffer;
    bool overlaps(const Range& o) const { return region == o.region && begin < o.end && o.begin < end; }
  };
  std::vector<Range> pending_writes, pending_reads;
  std::vector<Step> out;
  for (uint32_t i = 0; i < p.tasks.size(); ++i) {
    const Task& t = p.tasks[i];
    Step step;
    step.task = i;
    if (t.kind == TaskKind::Host) {
      out.push_back(step);
      continue;
    }
    std::vector<Range> mine;
    for (const Binding& b : t.bindings) {
      const Placement& pl = p.memory.placement[b.buffer];
      const uint32_t region = pl.in_arena() ? uint32_t(p.buffers.size()) + pl.chunk : pl.region;
      mine.push_back({region, pl.offset + b.byte_offset(), pl.offset + b.byte_offset() + b.byte_count(), i, b.buffer});
    }
    bool memory = false, exec = false;
    for (size_t k = 0; k < mine.size() && !memory; ++k) {
      for (const Range& w : pending_writes)
        if (mine[k].overlaps(w)) {
          memory = true;
          auto kind = reads(t.bindings[k].access) ? HazardKind::ReadAfterWrite : HazardKind::WriteAfterWrite;
          step.hazard = {kind, w.task, w.buffer, mine[k].buffer};
          break;
        }
      if (!memory && !exec && writes(t.bindings[k].access))
        for (const Range& r : pending_reads)
          if (mine[k].overlaps(r)) {
            exec = true;
            step.hazard = {HazardKind::WriteAfterRead, r.task, r.buffer, mine[k].buffer};
            break;
          }
    }
    if (memory) {
      step.barrier = B::Memory;
      pending_writes.clear();
      pending_reads.clear();
    } else if (exec) {
      step.barrier = B::Execution;
      pending_reads.clear();
    }
    for (size_t k = 0; k < mine.size(); ++k) {
      if (reads(t.bindings[k].access)) pending_reads.push_back(mine[k]);
      if (writes(t.bindings[k].access)) pending_writes.push_back(mine[k]);
    }
    out.push_back(step);
  }
  return out;
}
}  // namespace

TEST(Scheduler, InsertsMemoryBarriersOnAReadAfterWriteChain) {
  Graph g;
  auto a = g.input<Fp>("a", 16);
  auto t1 = g.transient<Fp>("t1", 16);
  auto t2 = g.transient<Fp>("t2", 16);
  auto out = g.output<Fp>("out", 16);
  g.dispatch<FpAdd>("s0", {.a = a, .b = a, .out = t1});
  g.dispatch<FpMul>("s1", {.a = t1, .b = a, .out = t2});
  g.dispatch<FpAdd>("s2", {.a = t2, .b = t1, .out = out});
  Plan p = compile(g);
  EXPECT_EQ(p.counts, counts(3, 2, 0, 1, 0));
  EXPECT_EQ(barriers_of(p), (std::vector<B>{B::None, B::Memory, B::Memory}));
  EXPECT_EQ(p.segments[0].steps[1].hazard.kind, HazardKind::ReadAfterWrite);
  EXPECT_EQ(p.segments[0].steps[1].hazard.earlier_task, 0u);
  EXPECT_EQ(p.segments[0].steps[1].hazard.buffer, t1.id());
}

TEST(Scheduler, PlacesNoBarrierBetweenIndependentTasks) {
  Graph g;
  auto a = g.input<Fp>("a", 64);
  auto out = g.output<Fp>("out", 64);
  for (uint32_t i = 0; i < 8; ++i)
    g.dispatch<FpAdd>("slice", {.a = a.slice(8 * i, 8), .b = a.slice(8 * i, 8), .out = out.slice(8 * i, 8)});
  Plan p = compile(g);
  EXPECT_EQ(p.counts, counts(8, 0, 0, 1, 0));
}

TEST(Scheduler, ReadsOfTheSameDataNeedNoBarrier) {
  Graph g;
  auto a = g.input<Fp>("a", 8);
  auto x = g.output<Fp>("x", 8);
  auto y = g.output<Fp>("y", 8);
  g.dispatch<FpAdd>("r1", {.a = a, .b = a, .out = x});
  g.dispatch<FpMul>("r2", {.a = a, .b = a, .out = y});
  EXPECT_EQ(compile(g).counts, counts(2, 0, 0, 1, 0));
}

TEST(Scheduler, WriteAfterReadNeedsOnlyAnExecutionDependency) {
  Graph g;
  auto a = g.input<Fp>("a", 8);
  auto x = g.output<Fp>("x", 8);
  auto y = g.output<Fp>("y", 8);
  g.dispatch<FpAdd>("init", {.a = a, .b = a, .out = x});
  g.dispatch<FpAdd>("reader", {.a = x, .b = a, .out = y});    // RAW on x
  g.dispatch<FpMul>("rewriter", {.a = a, .b = a, .out = x});  // WAR on x (reader), WAW on x (init, already visible)
  Plan p = compile(g);
  EXPECT_EQ(barriers_of(p), (std::vector<B>{B::None, B::Memory, B::Execution}));
  EXPECT_EQ(p.segments[0].steps[2].hazard.kind, HazardKind::WriteAfterRead);
  EXPECT_EQ(p.segments[0].steps[2].hazard.earlier_task, 1u);
  EXPECT_EQ(p.counts, counts(3, 1, 1, 1, 0));
}

TEST(Scheduler, WriteAfterWriteNeedsAMemoryBarrier) {
  Graph g;
  auto x = g.output<uint32_t>("x", 8);
  g.dispatch<FillU32>("first", {.out = x, .value = 1});
  g.dispatch<FillU32>("second", {.out = x.slice(4, 4), .value = 2});
  Plan p = compile(g);
  EXPECT_EQ(barriers_of(p), (std::vector<B>{B::None, B::Memory}));
  EXPECT_EQ(p.segments[0].steps[1].hazard.kind, HazardKind::WriteAfterWrite);
}

TEST(Scheduler, AnExecutionBarrierDoesNotMakeEarlierWritesVisible) {
  Graph g;
  auto a = g.input<Fp>("a", 8);
  auto x = g.output<Fp>("x", 8);
  auto y = g.output<Fp>("y", 8);
  auto z = g.output<Fp>("z", 8);
  g.dispatch<FpAdd>("write_x", {.a = a, .b = a, .out = x});
  g.dispatch<FpAdd>("write_y", {.a = a, .b = a, .out = y});
  g.dispatch<FpAdd>("read_y", {.a = y, .b = a, .out = z});    // RAW: memory barrier, clears all
  g.dispatch<FpAdd>("write_x2", {.a = a, .b = a, .out = y});  // WAR on y: execution only
  g.dispatch<FpAdd>("write_w", {.a = a, .b = a, .out = x});   // WAW on x? x visible already: none
  g.dispatch<FpAdd>("read_y2", {.a = y, .b = a, .out = z});   // RAW on y from write_x2: memory
  Plan p = compile(g);
  EXPECT_EQ(barriers_of(p), (std::vector<B>{B::None, B::None, B::Memory, B::Execution, B::None, B::Memory}));
}

TEST(Scheduler, PartiallyOverlappingViewsAreAHazardDisjointOnesAreNot) {
  Graph g;
  auto x = g.output<uint32_t>("x", 16);
  g.dispatch<FillU32>("lo", {.out = x.slice(0, 8), .value = 1});
  g.dispatch<FillU32>("hi", {.out = x.slice(8, 8), .value = 2});
  g.dispatch<FillU32>("mid", {.out = x.slice(7, 2), .value = 3});
  EXPECT_EQ(barriers_of(compile(g)), (std::vector<B>{B::None, B::None, B::Memory}));
}

TEST(Scheduler, AHostTaskSplitsTheSubmission) {
  Graph g;
  auto x = g.output<uint32_t>("x", 8);
  auto y = g.output<uint32_t>("y", 8);
  g.dispatch<FillU32>("before", {.out = x, .value = 1});
  g.host("inspect", {host_read(x.all()), host_write(y.all())}, [](const HostContext&) {});
  g.dispatch<CopyU32>("after", {.src = y, .dst = x});
  Plan p = compile(g);
  EXPECT_EQ(p.counts, counts(2, 1, 0, 2, 1));
  ASSERT_EQ(p.segments.size(), 3u);
  EXPECT_EQ(p.segments[0].kind, Segment::Kind::Submission);
  EXPECT_EQ(p.segments[1].kind, Segment::Kind::Host);
  EXPECT_EQ(p.segments[2].kind, Segment::Kind::Submission);
}

TEST(Scheduler, UnfusedPlansSubmitAndWaitOncePerDispatch) {
  Graph g;
  auto x = g.output<uint32_t>("x", 8);
  for (int i = 0; i < 5; ++i) g.dispatch<FillU32>("fill", {.out = x.slice(i, 1), .value = 1});
  Plan p = compile(g, {.fuse = false});
  EXPECT_EQ(p.counts, counts(5, 0, 0, 5, 0));
  EXPECT_EQ(p.segments.size(), 5u);
}

TEST(Scheduler, TransientsWithDisjointLifetimesShareMemory) {
  Graph g;
  auto a = g.input<Fp>("a", 64);
  auto t1 = g.transient<Fp>("t1", 64);
  auto t2 = g.transient<Fp>("t2", 64);
  auto t3 = g.transient<Fp>("t3", 64);
  auto out = g.output<Fp>("out", 64);
  g.dispatch<FpAdd>("0", {.a = a, .b = a, .out = t1});
  g.dispatch<FpAdd>("1", {.a = t1, .b = a, .out = t2});  // t1 dies here
  g.dispatch<FpAdd>("2", {.a = t2, .b = a, .out = t3});  // t3 may take t1's place
  g.dispatch<FpAdd>("3", {.a = t3, .b = t2, .out = out});
  Plan p = compile(g);
  const auto& pl = p.memory.placement;
  EXPECT_EQ(pl[t1.id()].region, kTransientArena);
  EXPECT_EQ(pl[t3.id()].offset, pl[t1.id()].offset);
  EXPECT_NE(pl[t2.id()].offset, pl[t1.id()].offset);
  EXPECT_EQ(p.memory.transient_arena_bytes, 2 * 256u);
  Plan unaliased = compile(g, {.alias_transients = false});
  EXPECT_EQ(unaliased.memory.transient_arena_bytes, 3 * 256u);
}

TEST(Scheduler, AliasedMemoryIsAHazardEvenAcrossDifferentBuffers) {
  Graph g;
  auto a = g.input<Fp>("a", 64);
  auto t1 = g.transient<Fp>("t1", 64);
  auto t2 = g.transient<Fp>("t2", 64);
  auto o1 = g.output<Fp>("o1", 64);
  auto o2 = g.output<Fp>("o2", 64);
  g.dispatch<FpAdd>("w1", {.a = a, .b = a, .out = t1});
  g.dispatch<FpAdd>("r1", {.a = t1, .b = a, .out = o1});
  g.dispatch<FpAdd>("w2", {.a = a, .b = a, .out = t2});  // reuses t1's memory: WAR on it
  g.dispatch<FpAdd>("r2", {.a = t2, .b = a, .out = o2});
  Plan p = compile(g);
  ASSERT_EQ(p.memory.placement[t1.id()].offset, p.memory.placement[t2.id()].offset);
  EXPECT_EQ(barriers_of(p), (std::vector<B>{B::None, B::Memory, B::Execution, B::Memory}));
  EXPECT_EQ(p.segments[0].steps[2].hazard.earlier_buffer, t1.id());
  EXPECT_EQ(p.segments[0].steps[2].hazard.buffer, t2.id());
}

// With and without a chunk limit (several arena allocations), Inputs in the arena or not.
TEST(Scheduler, AliasingNeverOverlapsLiveBuffersInAnyChunk) {
  std::mt19937 rng(2024);
  for (int trial = 0; trial < 150; ++trial) {
    Graph g;
    auto src = g.input<uint32_t>("src", 1024);
    std::vector<Buffer<uint32_t>> ts;
    std::vector<bool> written;
    int n_bufs = 2 + rng() % 10;
    for (int i = 0; i < n_bufs; ++i) {
      ts.push_back(g.transient<uint32_t>(fmt::format("t{}", i), 1 + rng() % 1000));
      written.push_back(false);
    }
    int n_tasks = 5 + rng() % 30;
    for (int k = 0; k < n_tasks; ++k) {
      size_t d = rng() % ts.size();
      uint64_t n = ts[d].count();
      size_t s = rng() % ts.size();
      bool use_t = written[s] && ts[s].count() >= n && s != d;
      if (use_t)
        g.dispatch<CopyU32>("copy", {.src = ts[s].slice(0, n), .dst = ts[d]});
      else
        g.dispatch<CopyU32>("load", {.src = src.slice(0, n), .dst = ts[d]});
      written[d] = true;
    }
    PlanOptions options;
    options.inputs_in_arena = trial % 3 == 2;
    if (trial % 3 != 0) options.limits.max_allocation_bytes = 4096 + 256 * (rng() % 16);
    Plan p = compile(g, options);
    const auto& m = p.memory;
    EXPECT_EQ(m.placement[src.id()].in_arena(), options.inputs_in_arena);
    std::vector<BufferId> ids{src.id()};
    for (const auto& t : ts) ids.push_back(t.id());
    uint64_t total = 0;
    for (uint64_t c : m.arena_chunks) {
      EXPECT_LE(c, options.limits.max_allocation_bytes);
      total += c;
    }
    EXPECT_EQ(total, m.transient_arena_bytes);
    if (options.limits.max_allocation_bytes == ~uint64_t(0)) {
      EXPECT_LE(m.arena_chunks.size(), 1u);
    }
    auto live_from = [&](BufferId id) { return p.buffers[id].lifetime == Lifetime::Input ? 0 : m.first_use[id]; };
    for (size_t i = 0; i < ids.size(); ++i) {
      const BufferId a = ids[i];
      if (!m.placement[a].in_arena()) continue;
      EXPECT_LE(m.placement[a].offset + p.buffers[a].bytes(), m.arena_chunks.at(m.placement[a].chunk));
      for (size_t j = i + 1; j < ids.size(); ++j) {
        const BufferId b = ids[j];
        if (m.first_use[a] < 0 || m.first_use[b] < 0 || !m.placement[b].in_arena()) continue;
        if (m.placement[a].chunk != m.placement[b].chunk) continue;
        bool live_together = live_from(a) <= m.last_use[b] && live_from(b) <= m.last_use[a];
        uint64_t a0 = m.placement[a].offset, a1 = a0 + p.buffers[a].bytes();
        uint64_t b0 = m.placement[b].offset, b1 = b0 + p.buffers[b].bytes();
        bool overlap = a0 < b1 && b0 < a1;
        EXPECT_FALSE(live_together && overlap) << "trial " << trial << ": buffers " << a << " and " << b;
      }
    }
    EXPECT_EQ(barriers_of(p).size(), naive_steps(p).size());
    const std::vector<Step> want = naive_steps(p);
    size_t k = 0;
    for (const auto& seg : p.segments)
      for (const auto& st : seg.steps) EXPECT_EQ(st.barrier, want[k++].barrier) << "trial " << trial;
  }
}

TEST(Scheduler, ChainOfAThousandIsOneSubmissionWith999Barriers) {
  Graph g;
  auto x = g.output<uint32_t>("x", 1001);
  g.dispatch<FillU32>("seed", {.out = x.slice(0, 1), .value = 7});
  for (int i = 1; i < 1000; ++i) g.dispatch<CopyU32>("step", {.src = x.slice(i - 1, 1), .dst = x.slice(i, 1)});
  EXPECT_EQ(compile(g).counts, counts(1000, 999, 0, 1, 0));
  EXPECT_EQ(compile(g, {.fuse = false}).counts, counts(1000, 999, 0, 1000, 0));
}

TEST(Scheduler, CompilingAMovedGraphGivesTheSamePlanAndLeavesAnEmptyGraph) {
  Graph g;
  auto a = g.input<Fp>("a", 16);
  auto t = g.transient<Fp>("t", 16);
  auto out = g.output<Fp>("out", 16);
  {
    auto s = g.span("phase");
    g.dispatch<FpAdd>("first", {.a = a, .b = a, .out = t}, Grid{16});
    g.dispatch<FpMul>("second", {.a = t, .b = a, .out = out}, Grid{16});
    Plan copied = compile(g);
    Plan moved = compile(std::move(g));
    EXPECT_EQ(moved.to_text(), copied.to_text());
    EXPECT_EQ(moved.counts, copied.counts);
  }                                // the span closes on the emptied graph
  EXPECT_TRUE(g.tasks().empty());  // NOLINT(bugprone-use-after-move): specified as empty
  EXPECT_TRUE(g.buffers().empty());
  EXPECT_EQ(g.spans().size(), 1u);
  auto a2 = g.input<Fp>("a", 4);  // names are free again
  auto out2 = g.output<Fp>("out", 4);
  g.dispatch<FpAdd>("reuse", {.a = a2, .b = a2, .out = out2}, Grid{4});
  EXPECT_EQ(compile(std::move(g)).counts.dispatches, 1u);
}

TEST(Scheduler, PlanPrintsAsTextAndDot) {
  Graph g;
  auto a = g.input<Fp>("a", 4);
  auto t = g.transient<Fp>("t", 4);
  auto out = g.output<Fp>("out", 4);
  {
    auto s = g.span("phase");
    g.dispatch<FpAdd>("first", {.a = a, .b = a, .out = t});
    g.dispatch<FpMul>("second", {.a = t, .b = a, .out = out});
  }
  Plan p = compile(g);
  std::string text = p.to_text();
  EXPECT_NE(text.find("1 submissions"), std::string::npos) << text;
  EXPECT_NE(text.find("memory barrier: read-after-write on 't' after task 0"), std::string::npos) << text;
  EXPECT_NE(text.find("[phase]"), std::string::npos) << text;
  std::string dot = p.to_dot();
  EXPECT_NE(dot.find("digraph plan"), std::string::npos);
  EXPECT_NE(dot.find("t0 -> t1 [label=\"RAW\"]"), std::string::npos) << dot;
}

// ~20000 tasks over ~2000 buffers: 10000 independent writes into 1000 transients a_k (all live
// together, so 10000 writes stay pending in the arena), then 1000 chains of 10 that ping-pong on a
// 2-element transient c_k. Each chain starts from a_k[0]; the c_k alias each other (c_0 excepted,
// as a_0 is still live when it is placed), so chain k >= 2 starts with a write-after-read on the
// memory chain k-1 last read. Guards against a compile time quadratic in the tasks.
TEST(Scheduler, CompilesTwentyThousandTasksOverTwoThousandBuffers) {
  constexpr uint32_t kGroups = 1000, kPerGroup = 10;
  Graph g;
  auto src = g.input<uint32_t>("src", kPerGroup);
  std::vector<Buffer<uint32_t>> a, c;
  for (uint32_t k = 0; k < kGroups; ++k) a.push_back(g.transient<uint32_t>(fmt::format("a{}", k), 16));
  for (uint32_t k = 0; k < kGroups; ++k) c.push_back(g.transient<uint32_t>(fmt::format("c{}", k), 2));
  auto out = g.output<uint32_t>("out", kGroups);
  for (uint32_t k = 0; k < kGroups; ++k)
    for (uint32_t j = 0; j < kPerGroup; ++j)
      g.dispatch<CopyU32>("load", {.src = src.slice(j, 1), .dst = a[k].slice(j, 1)}, Grid{1});
  for (uint32_t k = 0; k < kGroups; ++k) {
    g.dispatch<CopyU32>("start", {.src = a[k].slice(0, 1), .dst = c[k].slice(0, 1)}, Grid{1});
    for (uint32_t j = 1; j + 1 < kPerGroup; ++j)
      g.dispatch<CopyU32>("step", {.src = c[k].slice((j - 1) % 2, 1), .dst = c[k].slice(j % 2, 1)}, Grid{1});
    g.dispatch<CopyU32>("end", {.src = c[k].slice(0, 1), .dst = out.slice(k, 1)}, Grid{1});
  }
  ASSERT_EQ(g.tasks().size(), 2u * kGroups * kPerGroup);
  ASSERT_EQ(g.buffers().size(), 2u * kGroups + 2);
  Plan p = compile(g);
  // Memory: the first chain's start (after all loads), then every later step of every chain.
  // Execution: chains 2.. start by overwriting c_k[0], where chain k-1 read c_{k-1}[0] last.
  EXPECT_EQ(p.counts, counts(2 * kGroups * kPerGroup, 1 + kGroups * (kPerGroup - 1), kGroups - 2, 1, 0));
  EXPECT_EQ(p.memory.transient_arena_bytes, (kGroups + 1) * kTransientAlignment);
  Plan unaliased = compile(g, {.alias_transients = false});
  EXPECT_EQ(unaliased.counts, counts(2 * kGroups * kPerGroup, 1 + kGroups * (kPerGroup - 1), 0, 1, 0));
  EXPECT_EQ(unaliased.memory.transient_arena_bytes, 2 * kGroups * kTransientAlignment);
}

TEST(Scheduler, BarriersMatchAPlainScanOfEveryPendingAccess) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    Graph g;
    std::vector<Buffer<uint32_t>> bufs;
    std::vector<bool> readable, writable;
    const int n_bufs = 1 + rng() % 8;
    for (int i = 0; i < n_bufs; ++i) {
      const uint64_t n = 1 + rng() % 200;
      switch (rng() % 4) {
        case 0:
          bufs.push_back(g.input<uint32_t>(fmt::format("in{}", i), n));
          readable.push_back(true);
          writable.push_back(false);
          break;
        case 1:
          bufs.push_back(g.output<uint32_t>(fmt::format("out{}", i), n));
          readable.push_back(false);
          writable.push_back(true);
          break;
        default:
          bufs.push_back(g.transient<uint32_t>(fmt::format("t{}", i), n));
          readable.push_back(false);
          writable.push_back(true);
      }
    }
    // A random view, sometimes empty, of a buffer that may be read and/or written.
    auto view = [&](bool read, bool write) -> std::optional<View<uint32_t>> {
      std::vector<size_t> ok;
      for (size_t i = 0; i < bufs.size(); ++i)
        if ((!read || readable[i]) && (!write || writable[i])) ok.push_back(i);
      if (ok.empty()) return std::nullopt;
      const Buffer<uint32_t>& b = bufs[ok[rng() % ok.size()]];
      const uint64_t off = rng() % b.count();
      const uint64_t n = rng() % 8 == 0 ? 0 : 1 + rng() % (b.count() - off);
      return b.slice(off, n);
    };
    const int n_tasks = 1 + rng() % 40;
    for (int k = 0; k < n_tasks; ++k) {
      auto out = view(false, true);
      auto in = view(true, false);
      auto inout = view(true, true);
      const int kind = rng() % 10;
      if (!out) break;
      if (kind < 3 || !in) {
        g.dispatch<AnyWrite>("fill", {.out = *out}, Grid{1});
      } else if (kind < 6 || !inout) {
        g.dispatch<AnyCopy>("copy", {.src = *in, .dst = *out}, Grid{1});
      } else if (kind < 9) {
        g.dispatch<ReadModifyWrite>("rmw", {.in = *in, .inout = *inout, .out = *out}, Grid{1});
      } else {
        g.host("host", {host_read(*in), host_write(*out)}, [](const HostContext&) {});
      }
      for (size_t i = 0; i < bufs.size(); ++i)
        if (bufs[i].id() == out->buffer) readable[i] = true;
    }
    for (PlanOptions options : {PlanOptions{}, PlanOptions{.alias_transients = false}, PlanOptions{.fuse = false}}) {
      Plan p = compile(g, options);
      std::vector<Step> expected = naive_steps(p);
      std::vector<Step> got;
      for (const Segment& s : p.segments) got.insert(got.end(), s.steps.begin(), s.steps.end());
      ASSERT_EQ(got.size(), expected.size());
      for (size_t i = 0; i < got.size(); ++i) {
        SCOPED_TRACE(fmt::format("trial {}, step {}", trial, i));
        ASSERT_EQ(got[i].task, expected[i].task) << p.to_text();
        ASSERT_EQ(got[i].barrier, expected[i].barrier) << p.to_text();
        if (got[i].barrier == B::None) continue;
        EXPECT_EQ(got[i].hazard.kind, expected[i].hazard.kind);
        EXPECT_EQ(got[i].hazard.earlier_task, expected[i].hazard.earlier_task);
        EXPECT_EQ(got[i].hazard.earlier_buffer, expected[i].hazard.earlier_buffer);
        EXPECT_EQ(got[i].hazard.buffer, expected[i].hazard.buffer);
      }
    }
  }
}
