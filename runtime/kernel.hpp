// Kernels and their Args (architecture.md, "Kernels").
//
// A kernel is a tag struct:
//
//   struct FpAdd {
//     static constexpr std::string_view name = "fp_add";   // = kernels/glsl/fp_add.comp
//     struct Args { In<Fp> a; In<Fp> b; Out<Fp> out; };    // views, then scalars
//     static void cpu(const Args& args, const CpuContext& ctx);  // C++ body over the whole dispatch
//   };
//
// Args is a plain aggregate, declared once. Its members, in declaration order, give everything
// else: each view (In / Out / InOut) is one storage-buffer binding (binding = its index among the
// views) and one declared access for the scheduler; each scalar member is appended to the push
// constants. No list is written a second time: for_each_field() walks the members with structured
// bindings. The GLSL body declares the same bindings and push constants (see kernels/glsl/
// runtime.glsl for the push-constant header every kernel starts with).
//
// Optional statics in the tag: `workgroup_size` (preferred invocations per workgroup; the Vulkan
// executor takes min(preference, device limit)).
//
// Challenges are never scalars: kernels read them from buffers (architecture.md).
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <vector>

#include "runtime/buffer.hpp"

namespace vkstark {

// Kernel parameter wrappers: a view plus the access the kernel makes through it.
template <DeviceElement T>
struct In {
  View<T> view;
  In() = default;
  In(View<T> v) : view(v) {}                 // NOLINT(google-explicit-constructor)
  In(const Buffer<T>& b) : view(b.all()) {}  // NOLINT
  static constexpr Access access = Access::Read;
  using element = T;
};
template <DeviceElement T>
struct Out {
  View<T> view;
  Out() = default;
  Out(View<T> v) : view(v) {}                 // NOLINT
  Out(const Buffer<T>& b) : view(b.all()) {}  // NOLINT
  static constexpr Access access = Access::Write;
  using element = T;
};
template <DeviceElement T>
struct InOut {
  View<T> view;
  InOut() = default;
  InOut(View<T> v) : view(v) {}                 // NOLINT
  InOut(const Buffer<T>& b) : view(b.all()) {}  // NOLINT
  static constexpr Access access = Access::ReadWrite;
  using element = T;
};

template <class P>
struct is_param : std::false_type {};
template <class T>
struct is_param<In<T>> : std::true_type {};
template <class T>
struct is_param<Out<T>> : std::true_type {};
template <class T>
struct is_param<InOut<T>> : std::true_type {};
template <class P>
inline constexpr bool is_param_v = is_param<std::remove_cvref_t<P>>::value;

// A scalar kernel argument: trivially copyable, whole 32-bit words (u32, Fp, ...).
template <class S>
concept Scalar = std::is_trivially_copyable_v<S> &&(sizeof(S) % 4 == 0) && !is_param_v<S>;

// Number of invocations of a dispatch. x is the main (1-D) index space; y is a second dimension
// (rows, batch) mapped to workgroup z on Vulkan. Kernels guard with `if (i >= grid.x) return`.
struct Grid {
  uint32_t x = 1;
  uint32_t y = 1;
  bool operator==(const Grid&) const = default;
};

namespace detail {

// Aggregate member counting: T{Any, Any, ...} is valid up to the number of members. In/Out/InOut
// and field types have constructors, so braces cannot be elided into them.
struct AnyField {
  template <class U>
  constexpr operator U() const noexcept;  // NOLINT: declared only, never called
};
template <class T, class... A>
constexpr size_t field_count() {
  if constexpr (requires { T{A{}..., AnyField{}}; })
    return field_count<T, A..., AnyField>();
  else
    return sizeof...(A);
}

}  // namespace detail

// Calls f(member) for every member of the aggregate `args`, in declaration order (up to 16).
template <class Args, class F>
void for_each_field(Args& args, F&& f) {
  constexpr size_t n = detail::field_count<std::remove_const_t<Args>>();
  static_assert(n <= 16, "kernel Args: at most 16 members");
  // clang-format off
  if constexpr (n == 0) {
  } else if constexpr (n == 1) { auto& [a] = args; f(a);
  } else if constexpr (n == 2) { auto& [a, b] = args; f(a); f(b);
  } else if constexpr (n == 3) { auto& [a, b, c] = args; f(a); f(b); f(c);
  } else if constexpr (n == 4) { auto& [a, b, c, d] = args; f(a); f(b); f(c); f(d);
  } else if constexpr (n == 5) { auto& [a, b, c, d, e] = args; f(a); f(b); f(c); f(d); f(e);
  } else if constexpr (n == 6) { auto& [a, b, c, d, e, g] = args; f(a); f(b); f(c); f(d); f(e); f(g);
  } else if constexpr (n == 7) { auto& [a, b, c, d, e, g, h] = args; f(a); f(b); f(c); f(d); f(e); f(g); f(h);
  } else if constexpr (n == 8) { auto& [a, b, c, d, e, g, h, i] = args; f(a); f(b); f(c); f(d); f(e); f(g); f(h); f(i);
  } else if constexpr (n == 9) { auto& [a, b, c, d, e, g, h, i, j] = args; f(a); f(b); f(c); f(d); f(e); f(g); f(h); f(i); f(j);
  } else if constexpr (n == 10) { auto& [a, b, c, d, e, g, h, i, j, k] = args; f(a); f(b); f(c); f(d); f(e); f(g); f(h); f(i); f(j); f(k);
  } else if constexpr (n == 11) { auto& [a, b, c, d, e, g, h, i, j, k, l] = args; f(a); f(b); f(c); f(d); f(e); f(g); f(h); f(i); f(j); f(k); f(l);
  } else if constexpr (n == 12) { auto& [a, b, c, d, e, g, h, i, j, k, l, m] = args; f(a); f(b); f(c); f(d); f(e); f(g); f(h); f(i); f(j); f(k); f(l); f(m);
  } else if constexpr (n == 13) { auto& [a, b, c, d, e, g, h, i, j, k, l, m, o] = args; f(a); f(b); f(c); f(d); f(e); f(g); f(h); f(i); f(j); f(k); f(l); f(m); f(o);
  } else if constexpr (n == 14) { auto& [a, b, c, d, e, g, h, i, j, k, l, m, o, p] = args; f(a); f(b); f(c); f(d); f(e); f(g); f(h); f(i); f(j); f(k); f(l); f(m); f(o); f(p);
  } else if constexpr (n == 15) { auto& [a, b, c, d, e, g, h, i, j, k, l, m, o, p, q] = args; f(a); f(b); f(c); f(d); f(e); f(g); f(h); f(i); f(j); f(k); f(l); f(m); f(o); f(p); f(q);
  } else { auto& [a, b, c, d, e, g, h, i, j, k, l, m, o, p, q, r] = args; f(a); f(b); f(c); f(d); f(e); f(g); f(h); f(i); f(j); f(k); f(l); f(m); f(o); f(p); f(q); f(r);
  }
  // clang-format on
}

// One storage-buffer binding of a dispatch, derived from an In/Out/InOut member.
struct Binding {
  BufferId buffer = kNoBuffer;
  uint64_t offset = 0;  // in elements of `type`
  uint64_t count = 0;   // in elements of `type`
  TypeTag type;
  Access access = Access::Read;
  bool reinterpreted = false;
  GraphId graph = kNoGraph;  // the graph of the view
  uint64_t byte_offset() const { return offset * type.size; }
  uint64_t byte_count() const { return count * type.size; }
};

// Push-constant layout every kernel sees (kernels/glsl/runtime.glsl declares the same):
//   u32 grid_x, grid_y; then per binding u32 offset, u32 count (elements); then the scalars.
inline constexpr uint32_t kPushHeaderWords = 2;
inline constexpr uint32_t kMaxPushBytes = 128;  // guaranteed by every Vulkan device

template <class Args>
void collect_bindings(const Args& args, std::vector<Binding>& bindings, std::vector<uint32_t>& scalars) {
  for_each_field(args, [&](const auto& member) {
    using M = std::remove_cvref_t<decltype(member)>;
    if constexpr (is_param_v<M>) {
      using T = typename M::element;
      bindings.push_back({member.view.buffer, member.view.offset, member.view.count, type_tag<T>(), M::access,
                          member.view.reinterpreted, member.view.graph});
    } else {
      static_assert(Scalar<M>, "kernel Args members are In<T>, Out<T>, InOut<T> or 32-bit-word scalars");
      uint32_t words[sizeof(M) / 4];
      std::memcpy(words, &member, sizeof(M));
      scalars.insert(scalars.end(), std::begin(words), std::end(words));
    }
  });
}

class CpuContext;

template <class K>
concept Kernel = requires(const typename K::Args& a, const CpuContext& ctx) {
  { K::name } -> std::convertible_to<std::string_view>;
  K::cpu(a, ctx);
};

// What the runtime keeps about a kernel: name (= GLSL file), workgroup preference, CPU entry.
struct KernelInfo {
  std::string_view name;
  uint32_t workgroup_size = 0;  // 0: executor default
  void (*cpu)(const void* args, const CpuContext& ctx) = nullptr;
};

template <Kernel K>
const KernelInfo& kernel_info() {
  static const KernelInfo info = [] {
    KernelInfo i;
    i.name = K::name;
    if constexpr (requires { K::workgroup_size; }) i.workgroup_size = K::workgroup_size;
    i.cpu = [](const void* args, const CpuContext& ctx) { K::cpu(*static_cast<const typename K::Args*>(args), ctx); };
    return i;
  }();
  return info;
}

// What a CPU kernel body sees: memory of its views, the grid, its task name. Spans returned are
// valid for the duration of the body. Thread-safe for reads; bodies parallelise inside with TBB.
class CpuContext {
 public:
  virtual ~CpuContext() = default;
  virtual Grid grid() const = 0;
  virtual std::string_view task_name() const = 0;

  template <class T>
  std::span<const T> span(const In<T>& p) const {
    return {reinterpret_cast<const T*>(address(p.view.buffer, p.view.byte_offset())), p.view.count};
  }
  template <class T>
  std::span<T> span(const Out<T>& p) const {
    return {reinterpret_cast<T*>(address(p.view.buffer, p.view.byte_offset())), p.view.count};
  }
  template <class T>
  std::span<T> span(const InOut<T>& p) const {
    return {reinterpret_cast<T*>(address(p.view.buffer, p.view.byte_offset())), p.view.count};
  }

 protected:
  virtual std::byte* address(BufferId buffer, uint64_t byte_offset) const = 0;
};

}  // namespace vkstark
