#include "runtime/graph.hpp"

#include <fmt/format.h>

#include <atomic>

namespace vkstark {

std::string_view to_string(Lifetime l) {
  switch (l) {
    case Lifetime::Input:
      return "Input";
    case Lifetime::Constant:
      return "Constant";
    case Lifetime::Output:
      return "Output";
    case Lifetime::Persistent:
      return "Persistent";
    case Lifetime::Transient:
      return "Transient";
  }
  return "?";
}

std::string_view to_string(Access a) {
  switch (a) {
    case Access::Read:
      return "read";
    case Access::Write:
      return "write";
    case Access::ReadWrite:
      return "read-write";
  }
  return "?";
}

namespace {
GraphId next_graph_id() {
  static std::atomic<GraphId> next{kNoGraph + 1};
  return next.fetch_add(1, std::memory_order_relaxed);
}
}  // namespace

Graph::Graph() : id_(next_graph_id()) { spans_.push_back({"", -1, ""}); }

BufferId Graph::add_buffer_desc(std::string name, TypeTag type, uint64_t count, Lifetime lifetime) {
  if (name.empty()) throw GraphError(fmt::format("a {} buffer needs a name", to_string(lifetime)));
  const auto id = static_cast<BufferId>(buffers_.size());
  if (!ids_.emplace(name, id).second) throw GraphError(fmt::format("buffer name '{}' is used twice", name));
  buffers_.push_back({std::move(name), type, count, lifetime, nullptr, group_});
  written_.push_back(false);
  return id;
}

BufferId Graph::find_id(std::string_view name) const {
  auto it = ids_.find(name);
  if (it == ids_.end()) throw GraphError(fmt::format("no buffer named '{}'", name));
  return it->second;
}

void Graph::check_type(BufferId id, TypeTag type, std::string_view what) const {
  const BufferDesc& b = buffers_[id];
  if (b.type != type)
    throw GraphError(fmt::format("{}: wrong element type: buffer '{}' holds {} ({} bytes), not {} ({} bytes)", what,
                                 b.name, b.type.name, b.type.size, type.name, type.size));
}

Graph::SpanScope Graph::span(std::string name) {
  uint32_t parent = open_spans_.empty() ? 0 : open_spans_.back();
  std::string path = parent == 0 ? name : spans_[parent].path + "/" + name;
  spans_.push_back({std::move(name), static_cast<int32_t>(parent), std::move(path)});
  open_spans_.push_back(static_cast<uint32_t>(spans_.size() - 1));
  return SpanScope(this);
}

void Graph::close_span() {
  if (!open_spans_.empty()) open_spans_.pop_back();  // empty: the graph was compiled by move meanwhile
}

void Graph::host(std::string name, std::vector<Binding> accesses, std::function<void(const HostContext&)> fn,
                 HostPlacement placement) {
  if (!fn) throw GraphError(fmt::format("host task '{}' has no callable", name));
  Task t;
  t.name = std::move(name);
  t.kind = TaskKind::Host;
  t.bindings = std::move(accesses);
  t.host = std::move(fn);
  t.placement = placement;
  add_task(std::move(t));
}

namespace {

// Whether descriptor slot `slot` of the kernel belongs to a view array (unused slots are allowed there).
bool is_array_slot(const KernelInfo& k, size_t slot) {
  size_t s = 0;
  for (const ViewParam& v : k.abi.views) {
    if (slot < s + v.slots()) return v.array > 0;
    s += v.slots();
  }
  return false;
}

std::string grid_text(Grid g) { return fmt::format("{}x{}", g.x, g.y); }

}  // namespace

void Graph::add_dispatch(Task t, std::optional<Grid> required, const std::string& problem) {
  const KernelInfo& k = *t.kernel;
  // Args and ABI come from one declaration; a mismatch means the reflection itself is broken.
  if (t.bindings.size() != k.abi.slots() || t.scalars.size() != k.abi.scalar_words())
    throw GraphError(fmt::format("task '{}' (kernel {}): {} views and {} scalar words, its interface has {} and {}",
                                 t.name, k.name, t.bindings.size(), t.scalars.size(), k.abi.slots(),
                                 k.abi.scalar_words()));
  // The views themselves first: the kernel's own rules assume views of this graph.
  check_bindings(t);
  if (!problem.empty()) throw GraphError(fmt::format("task '{}' (kernel {}): {}", t.name, k.name, problem));
  if (required && *required != t.grid)
    throw GraphError(fmt::format("task '{}' (kernel {}): grid {} does not fit its views, which need grid {}", t.name,
                                 k.name, grid_text(t.grid), grid_text(*required)));
  append(std::move(t));
}

void Graph::dispatch(std::string name, std::shared_ptr<const KernelInfo> kernel, const DynamicArgs& args, Grid grid) {
  if (!kernel) throw GraphError(fmt::format("task '{}': no kernel", name));
  const KernelAbi& abi = kernel->abi;
  auto fail = [&](const std::string& what) {
    throw GraphError(fmt::format("task '{}' (kernel {}): {}", name, kernel->name, what));
  };
  // A compiled kernel's body reads its Args, which DynamicArgs do not carry.
  if (!kernel->runtime_grid || !kernel->runtime_check)
    fail("not a run-time kernel (make_runtime_kernel): dispatch a compiled kernel with dispatch<K>");
  if (args.params_.size() != abi.views.size())
    fail(fmt::format("{} view arguments, the kernel declares {}", args.params_.size(), abi.views.size()));
  Task t;
  t.kind = TaskKind::Dispatch;
  for (size_t i = 0; i < abi.views.size(); ++i) {
    const ViewParam& p = abi.views[i];
    const DynamicArgs::Param& a = args.params_[i];
    if (a.array != (p.array > 0))
      fail(fmt::format("view '{}' is {}", p.name, p.array ? "a view array: pass views()" : "one view: pass view()"));
    if (a.slots.size() > p.slots())
      fail(fmt::format("view array '{}' holds at most {} views, {} given", p.name, p.array, a.slots.size()));
    for (uint32_t s = 0; s < p.slots(); ++s) {
      Binding b = s < a.slots.size() ? a.slots[s] : Binding{kNoBuffer, 0, 0, p.type, p.access, false};
      if (b.type != p.type)
        fail(fmt::format("view '{}' holds {}, the kernel declares {}", p.name, b.type.name, p.type.name));
      b.access = p.access;
      t.bindings.push_back(b);
    }
  }
  if (args.scalars_.size() != abi.scalar_words())
    fail(fmt::format("{} scalar words, the kernel declares {}", args.scalars_.size(), abi.scalar_words()));
  t.scalars = args.scalars_;
  // The kernel's own rules, as K::grid and K::check of a compiled kernel: the same checks and
  // messages (add_dispatch).
  Grid required;
  std::string problem;
  try {
    const RuntimeArgs runtime_args{abi, t.bindings, t.scalars};
    required = kernel->runtime_grid(runtime_args);
    problem = kernel->runtime_check(runtime_args);
  } catch (const GraphError& e) {
    fail(e.what());
  }
  t.name = std::move(name);
  t.kernel = std::move(kernel);
  t.grid = grid;
  add_dispatch(std::move(t), required, problem);
}

void Graph::add_task(Task t) {
  check_bindings(t);
  append(std::move(t));
}

void Graph::check_bindings(const Task& t) const {
  if (t.name.empty()) throw GraphError("every task needs a name");
  const std::string what = t.kind == TaskKind::Dispatch ? fmt::format("task '{}' (kernel {})", t.name, t.kernel->name)
                                                        : fmt::format("host task '{}'", t.name);
  for (size_t i = 0; i < t.bindings.size(); ++i) {
    const Binding& b = t.bindings[i];
    if (!b.used() && t.kind == TaskKind::Dispatch && b.count == 0 && is_array_slot(*t.kernel, i)) continue;
    if (b.graph != id_)  // a handle no graph made, or one of another graph (its id may be valid here)
      throw GraphError(b.graph == kNoGraph ? fmt::format("{}: binding {} refers to no buffer of this graph", what, i)
                                           : fmt::format("{}: binding {} is a view of buffer {} of another graph "
                                                         "(graph {}), not of this one (graph {})",
                                                         what, i, b.buffer, b.graph, id_));
    if (b.buffer >= buffers_.size())
      throw GraphError(fmt::format("{}: binding {} refers to no buffer of this graph", what, i));
    const BufferDesc& buf = buffers_[b.buffer];
    if (!b.reinterpreted) {
      check_type(b.buffer, b.type, what);
    } else if (buf.bytes() % b.type.size != 0) {
      throw GraphError(fmt::format("{}: wrong element type: buffer '{}' ({} x {}) cannot be viewed as {}", what,
                                   buf.name, buf.count, buf.type.name, b.type.name));
    }
    if (b.byte_offset() + b.byte_count() > buf.bytes() || b.offset + b.count < b.offset)
      throw GraphError(fmt::format("{}: view out of range: elements [{}, {}) of buffer '{}', which has {} {}", what,
                                   b.offset, b.offset + b.count, buf.name, buf.bytes() / b.type.size, b.type.name));
    if (writes(b.access) && ((buf.lifetime == Lifetime::Input && !buf.writable) || buf.lifetime == Lifetime::Constant))
      throw GraphError(fmt::format("{}: writes {} buffer '{}' ({}s are read-only; use an Output or Transient)", what,
                                   to_string(buf.lifetime), buf.name, to_string(buf.lifetime)));
    if (reads(b.access) && !written_[b.buffer] &&
        (buf.lifetime == Lifetime::Transient || buf.lifetime == Lifetime::Output))
      throw GraphError(fmt::format("{}: reads {} buffer '{}', which no earlier task writes", what,
                                   to_string(buf.lifetime), buf.name));
  }
}

void Graph::append(Task t) {
  for (const Binding& b : t.bindings)
    if (b.used() && writes(b.access)) written_[b.buffer] = true;
  t.span = open_spans_.empty() ? 0 : open_spans_.back();
  tasks_.push_back(std::move(t));
}

}  // namespace vkstark
