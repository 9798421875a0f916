// Typed buffer handles and views (architecture.md, "Runtime concepts"). Value types, cheap to copy;
// thread-compatible. A handle is an id, a size and the id of the Graph that made it (a graph
// rejects handles of another graph): memory belongs to the executor that runs the plan.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string_view>
#include <type_traits>

namespace vkstark {

// When a buffer's contents exist.
enum class Lifetime : uint8_t {
  Input,       // uploaded from the host before a run; read-only for tasks
  Constant,    // contents given when the graph is built, uploaded by prepare(); read-only for tasks
  Output,      // written by tasks, downloadable after a run
  Persistent,  // owned by the executor across runs (proving-key data, twiddles), keyed by name
  Transient,   // lives inside one run; may share memory with transients whose lifetimes do not overlap
};
std::string_view to_string(Lifetime l);

enum class Access : uint8_t { Read, Write, ReadWrite };
inline bool reads(Access a) { return a != Access::Write; }
inline bool writes(Access a) { return a != Access::Read; }
std::string_view to_string(Access a);

// Element types: trivially copyable, a whole number of 32-bit words, with a name for messages.
// kernels/ specialises ElementTraits for Fp, Fp4 and Digest.
template <class T>
struct ElementTraits;
template <>
struct ElementTraits<uint32_t> {
  static constexpr std::string_view name = "u32";
};
template <>
struct ElementTraits<int32_t> {
  static constexpr std::string_view name = "i32";
};

template <class T>
concept DeviceElement = std::is_trivially_copyable_v<T> &&(sizeof(T) % 4 == 0) && requires {
  { ElementTraits<T>::name } -> std::convertible_to<std::string_view>;
};

// An element type as the runtime sees it. `glsl`: the GLSL type of one array entry in a kernel's
// storage-buffer declaration ("uint" unless ElementTraits<T>::glsl says otherwise, e.g. "uvec4").
struct TypeTag {
  std::string_view name;
  uint32_t size = 0;
  std::string_view glsl = "uint";
  bool operator==(const TypeTag& o) const { return name == o.name && size == o.size; }
};
template <DeviceElement T>
constexpr TypeTag type_tag() {
  if constexpr (requires { ElementTraits<T>::glsl; })
    return {ElementTraits<T>::name, static_cast<uint32_t>(sizeof(T)), ElementTraits<T>::glsl};
  else
    return {ElementTraits<T>::name, static_cast<uint32_t>(sizeof(T)), "uint"};
}

inline constexpr uint64_t kTransientAlignment = 256;  // >= every device's minStorageBufferOffsetAlignment

// The device limits a plan is compiled for (ExecutorLimits of the executor that will run it:
// memory_limits() in runtime/executor.hpp). Unlimited by default.
struct MemoryLimits {
  uint64_t max_allocation_bytes = ~uint64_t(0);  // one buffer, one arena chunk
  uint64_t max_binding_bytes = ~uint64_t(0);     // one view bound to a dispatch
  // The largest view a graph builder may bind wherever it starts: a binding starts at the view's
  // byte offset rounded down to a multiple of kTransientAlignment (at most), so it may cover that
  // much more than the view; and it lies in one allocation.
  uint64_t max_view_bytes() const {
    const uint64_t m = std::min(max_allocation_bytes, max_binding_bytes);
    return m == ~uint64_t(0) ? m : (m > kTransientAlignment ? m - kTransientAlignment : 0);
  }
  // Whether a view of `bytes` bytes from byte `offset` of its buffer fits one binding (compile()
  // checks every dispatch's views with it).
  bool binds(uint64_t offset, uint64_t bytes) const {
    return offset % kTransientAlignment + bytes <= std::min(max_allocation_bytes, max_binding_bytes);
  }
  bool operator==(const MemoryLimits&) const = default;
};

using BufferId = uint32_t;
inline constexpr BufferId kNoBuffer = ~0u;

// Process-unique id of a Graph (Graph::id()); handles and views carry the id of theirs.
using GraphId = uint64_t;
inline constexpr GraphId kNoGraph = 0;

// A typed window [offset, offset + count) of a buffer, in elements of T. Tasks access views.
// `bitcast` reinterprets the same bytes with another element type (e.g. Fp4 as 4 x Fp).
template <DeviceElement T>
struct View {
  BufferId buffer = kNoBuffer;
  uint64_t offset = 0;
  uint64_t count = 0;
  bool reinterpreted = false;  // made by bitcast: the buffer's element type differs on purpose
  GraphId graph = kNoGraph;    // the graph the buffer belongs to

  uint64_t byte_offset() const { return offset * sizeof(T); }
  uint64_t byte_count() const { return count * sizeof(T); }
  [[nodiscard]] View slice(uint64_t off, uint64_t n) const { return {buffer, offset + off, n, reinterpreted, graph}; }
  template <DeviceElement U>
  [[nodiscard]] View<U> bitcast() const {
    static_assert(sizeof(T) % sizeof(U) == 0 || sizeof(U) % sizeof(T) == 0, "bitcast between incompatible sizes");
    return {buffer, offset * sizeof(T) / sizeof(U), count * sizeof(T) / sizeof(U), true, graph};
  }
};

// A typed handle to a buffer of `count` elements of T, made by Graph::input/output/... .
template <DeviceElement T>
class Buffer {
 public:
  Buffer() = default;
  BufferId id() const { return id_; }
  uint64_t count() const { return count_; }
  GraphId graph() const { return graph_; }
  bool valid() const { return id_ != kNoBuffer; }
  [[nodiscard]] View<T> all() const { return {id_, 0, count_, false, graph_}; }
  // No range check here: the graph checks every view against its buffer when a task uses it.
  [[nodiscard]] View<T> slice(uint64_t offset, uint64_t n) const { return {id_, offset, n, false, graph_}; }
  operator View<T>() const { return all(); }  // NOLINT: a buffer used whole is a view of itself

 private:
  friend class Graph;
  Buffer(BufferId id, uint64_t count, GraphId graph) : id_(id), count_(count), graph_(graph) {}
  BufferId id_ = kNoBuffer;
  uint64_t count_ = 0;
  GraphId graph_ = kNoGraph;
};

}  // namespace vkstark
