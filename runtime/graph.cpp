#include "runtime/graph.hpp"

#include <fmt/format.h>

#include <atomic>

namespace vkstark {

std::string_view to_string(Lifetime l) {
  switch (l) {
    case Lifetime::Input:
      return "Input";
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
  buffers_.push_back({std::move(name), type, count, lifetime});
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

void Graph::host(std::string name, std::vector<Binding> accesses, std::function<void(const HostContext&)> fn) {
  if (!fn) throw GraphError(fmt::format("host task '{}' has no callable", name));
  Task t;
  t.name = std::move(name);
  t.kind = TaskKind::Host;
  t.bindings = std::move(accesses);
  t.host = std::move(fn);
  add_task(std::move(t));
}

void Graph::add_task(Task t) {
  if (t.name.empty()) throw GraphError("every task needs a name");
  const std::string what = t.kind == TaskKind::Dispatch ? fmt::format("task '{}' (kernel {})", t.name, t.kernel->name)
                                                        : fmt::format("host task '{}'", t.name);
  if (t.kind == TaskKind::Dispatch) {
    size_t words = kPushHeaderWords + 2 * t.bindings.size() + t.scalars.size();
    if (words * 4 > kMaxPushBytes)
      throw GraphError(fmt::format("{}: {} bytes of push constants (max {}): pass fewer views or scalars", what,
                                   words * 4, kMaxPushBytes));
  }
  for (size_t i = 0; i < t.bindings.size(); ++i) {
    const Binding& b = t.bindings[i];
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
    if (writes(b.access) && buf.lifetime == Lifetime::Input)
      throw GraphError(fmt::format("{}: writes Input buffer '{}' (inputs are read-only; use an Output or Transient)",
                                   what, buf.name));
    if (reads(b.access) && !written_[b.buffer] &&
        (buf.lifetime == Lifetime::Transient || buf.lifetime == Lifetime::Output))
      throw GraphError(fmt::format("{}: reads {} buffer '{}', which no earlier task writes", what,
                                   to_string(buf.lifetime), buf.name));
  }
  for (const Binding& b : t.bindings)
    if (writes(b.access)) written_[b.buffer] = true;
  t.span = open_spans_.empty() ? 0 : open_spans_.back();
  tasks_.push_back(std::move(t));
}

}  // namespace vkstark
