#include "executors/cpu/cpu_executor.hpp"

#include <fmt/format.h>
#include <tbb/info.h>
#include <tbb/task_group.h>

#include <unistd.h>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>

#include "runtime/error.hpp"

namespace vkstark {

namespace {

using Clock = std::chrono::steady_clock;
double ms_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

// 64-byte aligned, zero-initialised host memory. Large blocks are anonymous mappings
// (anonymous_host_memory) that the kernel zeroes on first touch: preparing a plan writes none of
// its arena, and a run touches only what its tasks use.
struct Block {
  static constexpr uint64_t kMapFrom = uint64_t(1) << 20;
  std::shared_ptr<HostMemory> mapped;                                           // large blocks
  std::unique_ptr<std::byte, decltype(&std::free)> small{nullptr, &std::free};  // the others
  uint64_t bytes = 0;
  explicit Block(uint64_t n = 0) : bytes(n) {
    const uint64_t alloc = (std::max<uint64_t>(n, 1) + 63) / 64 * 64;
    if (alloc >= kMapFrom) {
      mapped = anonymous_host_memory(alloc);
      return;
    }
    small.reset(static_cast<std::byte*>(std::aligned_alloc(64, alloc)));
    if (!small) throw DeviceError(fmt::format("CPU executor: out of memory allocating {} bytes", n));
    std::memset(small.get(), 0, alloc);
  }
  std::byte* data() const { return mapped ? mapped->data() : small.get(); }
};

std::string cpu_model() {
  std::ifstream f("/proc/cpuinfo");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind("model name", 0) == 0) {
      auto pos = line.find(':');
      if (pos != std::string::npos) return line.substr(pos + 2);
    }
  return "CPU";
}

class CpuExecutor;

class CpuPrepared final : public PreparedPlan {
 public:
  CpuPrepared(std::shared_ptr<const Plan> plan, CpuExecutor& exec);
  void run(Trace& trace) override;

 protected:
  void upload_bytes(BufferId id, uint64_t byte_offset, std::span<const std::byte> bytes) override;
  void download_bytes(BufferId id, std::span<std::byte> bytes) const override;

 private:
  friend class TaskContext;
  friend class HostTaskContext;
  std::byte* base(BufferId id) const;
  // `counted`: per span, whether the submission (a chain of segments joined by host tasks inside
  // it, Plan::host_inside) has counted it; `continued`: the segment follows such a host task.
  void run_submission(const Segment& seg, Trace& trace, Clock::time_point t0, std::vector<bool>& counted,
                      bool continued);
  void run_host(const Segment& seg, Trace& trace, Clock::time_point t0);
  void run_dispatch(uint32_t task);
  void record_task_time(Trace& trace, uint32_t task, Clock::time_point t0, Clock::time_point a, Clock::time_point b);
  // Trace::on_span_end for the spans whose last task (in run order) is `task`, innermost first.
  void report_span_ends(const Trace& trace, uint32_t task) const;
  // Trace::on_tasks_start before a group of `count` tasks starting with `task`; counts them done.
  void report_tasks_start(const Trace& trace, uint32_t task, size_t count);

  CpuExecutor& exec_;
  std::vector<Block> arena_;       // per chunk of the transient arena
  std::vector<Block> own_;         // per buffer (Input/Output), empty for others
  std::vector<std::byte*> bases_;  // per buffer
  std::vector<bool> uploaded_;
  uint64_t pending_up_ = 0;
  uint64_t allocated_ = 0;
  std::mutex time_mutex_;
  std::vector<std::pair<double, double>> span_window_;  // per span: [first start, last end] in ms, this run
  std::vector<int64_t> span_last_task_;        // per span: its last task in run order (-1: none); with on_span_end
  uint64_t tasks_done_ = 0, tasks_total_ = 0;  // this run's, with on_tasks_start
};

class CpuExecutor final : public Executor {
 public:
  CpuExecutor() : device_(fmt::format("{} ({} threads, TBB)", cpu_model(), tbb::info::default_concurrency())) {}
  std::string_view name() const override { return "cpu"; }
  std::string device_name() const override { return device_; }
  ExecutorLimits limits() const override {
    ExecutorLimits l;
    l.max_workgroup_size = 1024;
    l.subgroup_size = 1;
    l.max_buffer_bytes = ~uint64_t(0);
    l.max_binding_bytes = ~uint64_t(0);
    l.unified_memory = true;
    l.unbounded_kernels = true;
    l.runs_spirv = false;
    l.device_memory_bytes = uint64_t(sysconf(_SC_PHYS_PAGES)) * uint64_t(sysconf(_SC_PAGESIZE));
    return apply_limit_overrides(l);
  }
  std::unique_ptr<PreparedPlan> do_prepare(std::shared_ptr<const Plan> plan) override {
    return std::make_unique<CpuPrepared>(std::move(plan), *this);
  }

  // Persistent buffers, by name; created on first use and kept for the executor's lifetime.
  Block& persistent(const BufferDesc& b) { return persistent_entry(b).block; }
  // Whether anything (a run or an upload) has filled the Persistent buffer yet.
  bool& persistent_written(const BufferDesc& b) { return persistent_entry(b).written; }

 private:
  struct Persistent {
    TypeTag type;
    uint64_t count;
    Block block;
    bool written = false;
  };
  Persistent& persistent_entry(const BufferDesc& b) {
    auto it = persistent_.find(b.name);
    if (it == persistent_.end())
      return persistent_.emplace(b.name, Persistent{b.type, b.count, Block(b.bytes())}).first->second;
    check_persistent_declaration(b, it->second.type, it->second.count);
    return it->second;
  }

  std::string device_;
  std::map<std::string, Persistent, std::less<>> persistent_;
};

// What a kernel body sees.
class TaskContext final : public CpuContext {
 public:
  TaskContext(const CpuPrepared& p, const Task& t) : p_(p), t_(t) {}
  Grid grid() const override { return t_.grid; }
  std::string_view task_name() const override { return t_.name; }
  std::span<const Binding> bindings() const override { return t_.bindings; }
  std::span<const uint32_t> scalars() const override { return t_.scalars; }

 protected:
  std::byte* address(BufferId buffer, uint64_t byte_offset) const override {
    // An unused view-array slot is empty: no memory behind it.
    return buffer == kNoBuffer ? nullptr : p_.base(buffer) + byte_offset;
  }

 private:
  const CpuPrepared& p_;
  const Task& t_;
};

// What a host task sees: the same memory, limited to the declared accesses.
class HostTaskContext final : public HostContext {
 public:
  HostTaskContext(const CpuPrepared& p, const Task& t) : p_(p), t_(t) {}

 protected:
  std::byte* address(BufferId buffer, uint64_t byte_offset, uint64_t bytes, Access access) const override {
    for (const Binding& b : t_.bindings) {
      if (b.buffer != buffer || byte_offset < b.byte_offset() || byte_offset + bytes > b.byte_offset() + b.byte_count())
        continue;
      if (writes(access) && !writes(b.access)) continue;
      return p_.base(buffer) + byte_offset;
    }
    throw GraphError(fmt::format("host task '{}': {} of bytes [{}, {}) of buffer '{}' is outside its declared accesses",
                                 t_.name, to_string(access), byte_offset, byte_offset + bytes,
                                 p_.plan().buffer(buffer).name));
  }

 private:
  const CpuPrepared& p_;
  const Task& t_;
};

CpuPrepared::CpuPrepared(std::shared_ptr<const Plan> plan, CpuExecutor& exec)
    : PreparedPlan(std::move(plan)), exec_(exec) {
  own_.resize(plan_.buffers.size());
  bases_.resize(plan_.buffers.size());
  uploaded_.assign(plan_.buffers.size(), false);
  for (const uint64_t bytes : plan_.memory.arena_chunks) {
    arena_.emplace_back(bytes);
    allocated_ += bytes;
  }
  for (BufferId id = 0; id < plan_.buffers.size(); ++id) {
    const BufferDesc& b = plan_.buffers[id];
    const Placement& pl = plan_.memory.placement[id];
    if (pl.in_arena()) {
      bases_[id] = arena_.at(pl.chunk).data() + pl.offset;
    } else if (b.lifetime == Lifetime::Persistent) {
      bases_[id] = exec_.persistent(b).data();
      allocated_ += b.bytes();
    } else {
      own_[id] = Block(b.bytes());
      bases_[id] = own_[id].data();
      allocated_ += b.bytes();
      if (b.lifetime == Lifetime::Constant) std::memcpy(bases_[id], b.data->data(), b.data->size());
    }
  }
}

std::byte* CpuPrepared::base(BufferId id) const { return bases_[id]; }

void CpuPrepared::upload_bytes(BufferId id, uint64_t at, std::span<const std::byte> bytes) {
  std::memcpy(bases_[id] + at, bytes.data(), bytes.size());
  if (plan_.buffers[id].lifetime == Lifetime::Persistent) exec_.persistent_written(plan_.buffers[id]) = true;
  uploaded_[id] = true;
  pending_up_ += bytes.size();
}

void CpuPrepared::download_bytes(BufferId id, std::span<std::byte> bytes) const {
  std::memcpy(bytes.data(), bases_[id], bytes.size());
}

void CpuPrepared::run_dispatch(uint32_t task) {
  const Task& t = plan_.tasks[task];
  TaskContext ctx(*this, t);
  try {
    t.kernel->cpu(t.args.get(), ctx);
  } catch (const std::exception& e) {
    throw ExecutionError(fmt::format("task '{}' (kernel {}) failed: {}", t.name, t.kernel->name, e.what()));
  } catch (...) {
    throw ExecutionError(
        fmt::format("task '{}' (kernel {}) failed with a non-standard exception", t.name, t.kernel->name));
  }
}

void CpuPrepared::record_task_time(Trace& trace, uint32_t task, Clock::time_point t0, Clock::time_point a,
                                   Clock::time_point b) {
  double start = ms_between(t0, a), end = ms_between(t0, b);
  std::lock_guard lock(time_mutex_);
  if (trace.profile_tasks) trace.tasks[task].device_ms += end - start;
  for (uint32_t s : trace.span_chain(plan_, task)) {
    auto& w = span_window_[s];
    w.first = std::min(w.first, start);
    w.second = std::max(w.second, end);
  }
}

void CpuPrepared::report_span_ends(const Trace& trace, uint32_t task) const {
  if (!trace.on_span_end) return;
  for (uint32_t s : trace.span_chain(plan_, task))
    if (span_last_task_[s] == int64_t(task)) trace.on_span_end(s, span_window_[s].second - span_window_[s].first);
}

void CpuPrepared::report_tasks_start(const Trace& trace, uint32_t task, size_t count) {
  if (!trace.on_tasks_start) return;
  trace.on_tasks_start(plan_.tasks[task].span, tasks_done_, tasks_total_);
  tasks_done_ += count;
}

void CpuPrepared::run_submission(const Segment& seg, Trace& trace, Clock::time_point t0, std::vector<bool>& counted,
                                 bool continued) {
  const auto submission_start = Clock::now();
  if (!continued) {
    ++trace.counters.submissions;
    counted.assign(plan_.spans.size(), false);
  }
  size_t i = 0;
  while (i < seg.steps.size()) {
    // A group: a step and the following steps without a barrier; they are independent.
    size_t j = i + 1;
    while (j < seg.steps.size() && seg.steps[j].barrier == BarrierKind::None) ++j;
    auto run_one = [&](size_t k) {
      auto a = Clock::now();
      run_dispatch(seg.steps[k].task);
      record_task_time(trace, seg.steps[k].task, t0, a, Clock::now());
    };
    report_tasks_start(trace, seg.steps[i].task, j - i);
    if (j - i == 1) {
      run_one(i);
    } else {
      tbb::task_group group;
      for (size_t k = i; k < j; ++k) group.run([&, k] { run_one(k); });
      group.wait();  // rethrows the first failure
    }
    for (size_t k = i; k < j; ++k) {
      const Step& st = seg.steps[k];
      ++trace.counters.dispatches;
      if (st.barrier != BarrierKind::None) ++trace.counters.barriers;
      for (uint32_t s : trace.span_chain(plan_, st.task)) {
        ++trace.spans[s].dispatches;
        if (st.barrier != BarrierKind::None) ++trace.spans[s].barriers;
        if (!counted[s]) {
          counted[s] = true;
          ++trace.spans[s].submissions;
        }
      }
    }
    for (size_t k = i; k < j; ++k) report_span_ends(trace, seg.steps[k].task);
    i = j;
  }
  trace.submit_wait_ms += ms_between(submission_start, Clock::now());
  if (!continued) ++trace.counters.host_syncs;  // the host waits for the submission's work (TBB join)
}

void CpuPrepared::run_host(const Segment& seg, Trace& trace, Clock::time_point t0) {
  uint32_t task = seg.steps[0].task;
  const Task& t = plan_.tasks[task];
  HostTaskContext ctx(*this, t);
  report_tasks_start(trace, task, 1);
  auto a = Clock::now();
  try {
    t.host(ctx);
  } catch (const GraphError&) {
    throw;
  } catch (const std::exception& e) {
    throw ExecutionError(fmt::format("host task '{}' failed: {}", t.name, e.what()));
  } catch (...) {
    throw ExecutionError(fmt::format("host task '{}' failed with a non-standard exception", t.name));
  }
  record_task_time(trace, task, t0, a, Clock::now());
  ++trace.counters.host_tasks;
  report_span_ends(trace, task);
}

void CpuPrepared::run(Trace& trace) {
  for (BufferId id = 0; id < plan_.buffers.size(); ++id)
    if (plan_.buffers[id].lifetime == Lifetime::Input && !uploaded_[id] && plan_.memory.first_use[id] >= 0)
      throw InputError(fmt::format("Input buffer '{}' was {} before run()", plan_.buffers[id].name,
                                   plan_.memory.placement[id].in_arena() || plan_.buffers[id].writable
                                       ? "not uploaded again (it lives in the transient arena or is writable: "
                                         "upload it before every run)"
                                       : "not uploaded"));
  for (BufferId id = 0; id < plan_.buffers.size(); ++id) {
    const BufferDesc& b = plan_.buffers[id];
    if (b.lifetime != Lifetime::Persistent) continue;
    if (plan_.read_before_written(id) && !exec_.persistent_written(b))
      throw InputError(
          fmt::format("Persistent buffer '{}' is read before anything wrote it (run its setup graph first)", b.name));
  }
  trace.begin_run(plan_, std::string(exec_.name()), exec_.device_name());
  span_window_.assign(plan_.spans.size(), {1e300, -1e300});
  span_last_task_.assign(plan_.spans.size(), -1);
  if (trace.on_span_end)
    for (const Segment& seg : plan_.segments)
      for (const Step& st : seg.steps)
        for (uint32_t s : trace.span_chain(plan_, st.task)) span_last_task_[s] = st.task;
  tasks_done_ = tasks_total_ = 0;
  if (trace.on_tasks_start)
    for (const Segment& seg : plan_.segments) tasks_total_ += seg.steps.size();
  auto t0 = Clock::now();
  std::vector<bool> counted;
  for (size_t i = 0; i < plan_.segments.size(); ++i) {
    const Segment& seg = plan_.segments[i];
    if (seg.kind == Segment::Kind::Submission)
      run_submission(seg, trace, t0, counted, i >= 1 && plan_.host_inside(i - 1));
    else
      run_host(seg, trace, t0);
  }
  double total = ms_between(t0, Clock::now());
  // On the CPU the device is the host: both times are the wall-clock window of the span's tasks.
  for (size_t s = 0; s < plan_.spans.size(); ++s) {
    auto [start, end] = span_window_[s];
    if (s == 0) start = 0, end = total;
    if (end < start) continue;
    trace.spans[s].host_start_ms = start;
    trace.spans[s].device_start_ms = start;
    trace.spans[s].host_ms += end - start;
    trace.spans[s].device_ms = std::max(0.0, trace.spans[s].device_ms) + (end - start);
  }
  trace.total_host_ms += total;
  trace.counters.bytes_up += pending_up_;
  pending_up_ = 0;
  for (const BufferDesc& b : plan_.buffers)
    if (b.lifetime == Lifetime::Output) trace.counters.bytes_down += b.bytes();
  trace.counters.peak_device_bytes = std::max(trace.counters.peak_device_bytes, allocated_);
  // Only now: a run that threw has filled nothing that later plans may read.
  for (BufferId id = 0; id < plan_.buffers.size(); ++id)
    if (plan_.buffers[id].lifetime == Lifetime::Persistent && plan_.memory.first_use[id] >= 0)
      exec_.persistent_written(plan_.buffers[id]) = true;
  // Inputs in the arena share memory with later transients, writable ones are overwritten: the
  // next run needs them again.
  for (BufferId id = 0; id < plan_.buffers.size(); ++id)
    if (plan_.buffers[id].lifetime == Lifetime::Input &&
        (plan_.memory.placement[id].in_arena() || plan_.buffers[id].writable))
      uploaded_[id] = false;
}

}  // namespace

std::unique_ptr<Executor> make_cpu_executor() { return std::make_unique<CpuExecutor>(); }

}  // namespace vkstark
