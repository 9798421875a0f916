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
#include <memory>
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
  return {v.buffer, v.offset, v.count, type_tag<T>(), Access::Read, v.reinterpreted, v.graph};
}
template <DeviceElement T>
Binding host_write(const View<T>& v) {
  return {v.buffer, v.offset, v.count, type_tag<T>(), Access::Write, v.reinterpreted, v.graph};
}

enum class TaskKind : uint8_t { Dispatch, Host };

struct Task {
  std::string name;
  TaskKind kind = TaskKind::Dispatch;
  uint32_t span = 0;              // index into spans (0 = the graph's root span)
  std::vector<Binding> bindings;  // declared accesses; for a dispatch, in binding order
  // Dispatch only.
  const KernelInfo* kernel = nullptr;
  std::shared_ptr<const void> args;  // the kernel's Args, for the CPU body
  std::vector<uint32_t> scalars;     // push-constant words after the header and view words
  Grid grid;
  // Host only.
  std::function<void(const HostContext&)> host;
};

class Graph {
 public:
  // Span 0 is an unnamed root that holds tasks added outside any span.
  Graph();

  template <DeviceElement T>
  [[nodiscard]] Buffer<T> input(std::string name, uint64_t count) {
    return add_buffer<T>(std::move(name), count, Lifetime::Input);
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

  // The buffer called `name`, as a Buffer<T>. GraphError if there is none or its element type is not T.
  template <DeviceElement T>
  [[nodiscard]] Buffer<T> find(std::string_view name) const {
    BufferId id = find_id(name);
    check_type(id, type_tag<T>(), "find");
    return Buffer<T>(id, buffers_[id].count, id_);
  }

  template <Kernel K>
  void dispatch(std::string name, const typename K::Args& args, Grid grid) {
    Task t;
    t.name = std::move(name);
    t.kind = TaskKind::Dispatch;
    t.kernel = &kernel_info<K>();
    t.args = std::make_shared<const typename K::Args>(args);
    collect_bindings(args, t.bindings, t.scalars);
    t.grid = grid;
    add_task(std::move(t));
  }

  // A C++ callable on host copies of the declared views. Forces a host sync; counted in the trace.
  void host(std::string name, std::vector<Binding> accesses, std::function<void(const HostContext&)> fn);

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
  GraphId id_;
  // Buffer ids by name.
  std::unordered_map<std::string, BufferId, NameHash, std::equal_to<>> ids_;
};

}  // namespace vkstark
