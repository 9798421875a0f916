// Graph: tasks in program order with declared buffer accesses, built before any data moves
// (architecture.md, "Runtime concepts"). Thread-compatible: build a graph from one thread.
//
//   Graph g;
//   auto x = g.input<Fp>("x", n);
//   auto y = g.output<Fp>("y", n);
//   { auto s = g.span("phase");
//     g.dispatch<FpMul>("square", {.a = x, .b = x, .out = y}, Grid{uint32_t(n)}); }
//   Plan plan = compile(g);
//
// Mistakes are reported when the task is added, as GraphError naming the task and the buffer:
// wrong element type, view out of range, write to an Input, read of a Transient (or Output) that no
// earlier task wrote, a handle made by another graph.
#pragma once

#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "runtime/buffer.hpp"
#include "runtime/error.hpp"
#include "runtime/kernel.hpp"

namespace vkstark {

class Plan;
struct PlanOptions;

struct BufferDesc {
  std::string name;
  TypeTag type;
  uint64_t count = 0;
  Lifetime lifetime = Lifetime::Transient;
  std::shared_ptr<const std::vector<std::byte>> data;  // a Constant's contents
  std::string group;      // what the memory holds, for memory_breakdown (empty: by lifetime)
  bool writable = false;  // an Input that tasks may overwrite (Graph::writable_input)
  uint64_t bytes() const { return count * type.size; }
};

struct SpanDesc {
  std::string name;
  int32_t parent = -1;  // index into Graph::spans(), -1 for a root
  std::string path;     // "a/b/c"
};

// What a Host task sees: host copies of the views it declared. Spans are valid during the call.
class HostContext {
 public:
  virtual ~HostContext() = default;
  template <DeviceElement T>
  std::span<const T> read(const View<T>& v) const {
    return {reinterpret_cast<const T*>(address(v.buffer, v.byte_offset(), v.byte_count(), Access::Read)), v.count};
  }
  template <DeviceElement T>
  std::span<T> write(const View<T>& v) const {
    return {reinterpret_cast<T*>(address(v.buffer, v.byte_offset(), v.byte_count(), Access::Write)), v.count};
  }

 protected:
  // Throws GraphError if the range is not inside an access the task declared.
  virtual std::byte* address(BufferId buffer, uint64_t byte_offset, uint64_t bytes, Access access) const = 0;
};

// Declared accesses of a Host task.
template <DeviceElement T>
Binding host_read(const View<T>& v) {
  return make_binding(v, Access::Read);
}
template <DeviceElement T>
Binding host_write(const View<T>& v) {
  return make_binding(v, Access::Write);
}

// The arguments of a run-time kernel's dispatch, in the order of its KernelAbi: views and view
// arrays in the order of abi.views, scalar words in the order of abi.scalars. Access comes from the
// ABI; Graph::dispatch checks counts and element types against it.
class DynamicArgs {
 public:
  template <DeviceElement T>
  DynamicArgs& view(const View<T>& v) {
    params_.push_back({{make_binding(v, Access::Read)}, false});
    return *this;
  }
  template <DeviceElement T>
  DynamicArgs& views(std::span<const View<T>> vs) {
    Param p{{}, true};
    for (const View<T>& v : vs) p.slots.push_back(make_binding(v, Access::Read));
    params_.push_back(std::move(p));
    return *this;
  }
  template <DeviceElement T>
  DynamicArgs& views(std::initializer_list<View<T>> vs) {
    return views(std::span<const View<T>>(vs.begin(), vs.size()));
  }
  DynamicArgs& scalar(uint32_t word) {
    scalars_.push_back(word);
    return *this;
  }

 private:
  friend class Graph;
  struct Param {
    std::vector<Binding> slots;
    bool array = false;
  };
  std::vector<Param> params_;
  std::vector<uint32_t> scalars_;
};

enum class TaskKind : uint8_t { Dispatch, Host };

// Where a host task runs relative to the device's work.
//  Split: the executor ends the submission before the task, waits for it, and submits anew after
//    it (a submission and a host sync more).
//  InSubmission: the task runs while the submission is in flight, between two submission batches
//    submitted together: the device signals a timeline semaphore where the task starts and waits
//    on one the host signals where it ends; no submission or host sync more. Meant for short
//    sequential work (a transcript sponge) that a GPU does slowly. Executors without timeline
//    semaphores run it Split and count what they did; a task with no device work right before
//    and after it (first or last in the plan, or next to another host task) runs Split.
enum class HostPlacement : uint8_t { Split, InSubmission };

struct Task {
  std::string name;
  TaskKind kind = TaskKind::Dispatch;
  uint32_t span = 0;              // index into spans (0 = the graph's root span)
  std::vector<Binding> bindings;  // declared accesses; for a dispatch, in binding order
  // Dispatch only.
  std::shared_ptr<const KernelInfo> kernel;  // shares ownership of a run-time kernel
  std::shared_ptr<const void> args;          // the kernel's Args, for the CPU body (null: run-time kernel)
  std::vector<uint32_t> scalars;             // scalar words, in ABI order
  Grid grid;
  // Host only.
  std::function<void(const HostContext&)> host;
  HostPlacement placement = HostPlacement::Split;
};

class Graph {
 public:
  // Span 0 is an unnamed root that holds tasks added outside any span.
  Graph();

  template <DeviceElement T>
  [[nodiscard]] Buffer<T> input(std::string name, uint64_t count) {
    return add_buffer<T>(std::move(name), count, Lifetime::Input);
  }
  // An Input that tasks may also write (data uploaded, then transformed in place): it must be
  // uploaded again before every run. Uploads may fill it in ranges (PreparedPlan::upload with an
  // offset); what no upload fills holds whatever the last run left, so the graph must write it.
  template <DeviceElement T>
  [[nodiscard]] Buffer<T> writable_input(std::string name, uint64_t count) {
    Buffer<T> b = add_buffer<T>(std::move(name), count, Lifetime::Input);
    buffers_[b.id()].writable = true;
    return b;
  }
  template <DeviceElement T>
  [[nodiscard]] Buffer<T> output(std::string name, uint64_t count) {
    return add_buffer<T>(std::move(name), count, Lifetime::Output);
  }
  template <DeviceElement T>
  [[nodiscard]] Buffer<T> persistent(std::string name, uint64_t count) {
    return add_buffer<T>(std::move(name), count, Lifetime::Persistent);
  }
  template <DeviceElement T>
  [[nodiscard]] Buffer<T> transient(std::string name, uint64_t count) {
    return add_buffer<T>(std::move(name), count, Lifetime::Transient);
  }
  // A read-only buffer holding `values`, uploaded by prepare(): tables and programs that follow from
  // the graph's shape (a scalar program's instructions, say). Plans share its bytes.
  template <DeviceElement T>
  [[nodiscard]] Buffer<T> constant(std::string name, std::span<const T> values) {
    Buffer<T> b = add_buffer<T>(std::move(name), values.size(), Lifetime::Constant);
    auto bytes = std::as_bytes(values);
    buffers_[b.id()].data = std::make_shared<const std::vector<std::byte>>(bytes.begin(), bytes.end());
    return b;
  }
  template <DeviceElement T>
  [[nodiscard]] Buffer<T> constant(std::string name, const std::vector<T>& values) {
    return constant<T>(std::move(name), std::span<const T>(values));
  }

  // Whether a buffer is called `name`.
  [[nodiscard]] bool has(std::string_view name) const { return ids_.find(name) != ids_.end(); }
  // The buffer called `name`, as a Buffer<T>. GraphError if there is none or its element type is not T.
  template <DeviceElement T>
  [[nodiscard]] Buffer<T> find(std::string_view name) const {
    BufferId id = find_id(name);
    check_type(id, type_tag<T>(), "find");
    return Buffer<T>(id, buffers_[id].count, id_);
  }

  // A dispatch of compiled kernel K. GraphError (naming the task) on a view out of range, a wrong
  // element type, a grid other than K::grid(args), scalars K::check rejects, ...
  template <Kernel K>
  void dispatch(std::string name, const typename K::Args& args, Grid grid) {
    Task t;
    t.name = std::move(name);
    t.kind = TaskKind::Dispatch;
    // A compiled kernel's info is a static: the task refers to it without owning it.
    t.kernel = std::shared_ptr<const KernelInfo>(std::shared_ptr<const KernelInfo>(), &kernel_info<K>());
    collect_bindings(args, t.bindings, t.scalars);
    t.grid = grid;
    std::optional<Grid> required;
    std::string problem;
    if constexpr (requires { K::grid(args); }) required = K::grid(args);
    if constexpr (requires { K::check(args); }) problem = K::check(args);
    t.args = std::make_shared<const typename K::Args>(args);
    add_dispatch(std::move(t), required, problem);
  }
  // The same with the grid K::grid(args) states.
  template <Kernel K>
  requires requires(const typename K::Args& a) { K::grid(a); }
  void dispatch(std::string name, const typename K::Args& args) { dispatch<K>(std::move(name), args, K::grid(args)); }
  // A dispatch of a run-time kernel (make_runtime_kernel). GraphError (naming the task) when `args`
  // does not match its ABI (number of views, element types, array capacities, scalar words), and
  // as dispatch<K>: a view out of range, ..., a grid other than the kernel's grid rule gives,
  // arguments its check rejects.
  void dispatch(std::string name, std::shared_ptr<const KernelInfo> kernel, const DynamicArgs& args, Grid grid);

  // A C++ callable on host copies of the declared views; counted in the trace. Split (the default)
  // forces a host sync; InSubmission runs inside the submission (HostPlacement).
  void host(std::string name, std::vector<Binding> accesses, std::function<void(const HostContext&)> fn,
            HostPlacement placement = HostPlacement::Split);

  class SpanScope {
   public:
    SpanScope(SpanScope&& o) noexcept : g_(o.g_) { o.g_ = nullptr; }
    SpanScope(const SpanScope&) = delete;
    SpanScope& operator=(const SpanScope&) = delete;
    SpanScope& operator=(SpanScope&&) = delete;
    ~SpanScope() {
      if (g_) g_->close_span();
    }

   private:
    friend class Graph;
    explicit SpanScope(Graph* g) : g_(g) {}
    Graph* g_;
  };
  // Opens a span; tasks added while the scope lives belong to it. Spans nest.
  [[nodiscard]] SpanScope span(std::string name);

  class GroupScope {
   public:
    GroupScope(GroupScope&& o) noexcept : g_(o.g_), previous_(std::move(o.previous_)) { o.g_ = nullptr; }
    GroupScope(const GroupScope&) = delete;
    GroupScope& operator=(const GroupScope&) = delete;
    GroupScope& operator=(GroupScope&&) = delete;
    ~GroupScope() {
      if (g_) g_->group_ = std::move(previous_);
    }

   private:
    friend class Graph;
    GroupScope(Graph* g, std::string previous) : g_(g), previous_(std::move(previous)) {}
    Graph* g_;
    std::string previous_;
  };
  // Names what the buffers made while the scope lives hold ("trace", "codeword", ...): the plan's
  // memory_breakdown adds memory up by these names. Scopes nest; the innermost names.
  [[nodiscard]] GroupScope memory_group(std::string name) {
    GroupScope scope(this, std::move(group_));
    group_ = std::move(name);
    return scope;
  }

  // The limits of the device the graph is built for (memory_limits(executor.limits())): builders
  // split buffers and tasks so that no buffer is larger than one allocation and no view larger than
  // limits.max_view_bytes(). compile() checks the plan against the tighter of these and
  // PlanOptions::limits. Unlimited by default.
  void set_memory_limits(const MemoryLimits& limits) { limits_ = limits; }
  const MemoryLimits& memory_limits() const { return limits_; }

  // Process-unique; a copy of a graph keeps it (handles made before the copy are valid in both).
  GraphId id() const { return id_; }
  const std::vector<BufferDesc>& buffers() const { return buffers_; }
  const std::vector<Task>& tasks() const { return tasks_; }
  const std::vector<SpanDesc>& spans() const { return spans_; }

 private:
  friend Plan compile(Graph&& graph, PlanOptions options);  // moves the tasks out

  template <DeviceElement T>
  Buffer<T> add_buffer(std::string name, uint64_t count, Lifetime lifetime) {
    return Buffer<T>(add_buffer_desc(std::move(name), type_tag<T>(), count, lifetime), count, id_);
  }
  BufferId add_buffer_desc(std::string name, TypeTag type, uint64_t count, Lifetime lifetime);
  BufferId find_id(std::string_view name) const;
  void check_type(BufferId id, TypeTag type, std::string_view what) const;
  void add_task(Task t);
  void check_bindings(const Task& t) const;
  void append(Task t);
  void add_dispatch(Task t, std::optional<Grid> required, const std::string& problem);
  void close_span();

  // Transparent hash: look names up by string_view without making a std::string.
  struct NameHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
  };

  std::vector<BufferDesc> buffers_;
  std::vector<bool> written_;  // per buffer: some earlier task writes it
  std::vector<Task> tasks_;
  std::vector<SpanDesc> spans_;
  std::vector<uint32_t> open_spans_;
  std::string group_;  // memory_group of new buffers
  MemoryLimits limits_;
  GraphId id_;
  // Buffer ids by name.
  std::unordered_map<std::string, BufferId, NameHash, std::equal_to<>> ids_;
};

}  // namespace vkstark
