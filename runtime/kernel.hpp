// Kernels and their Args (architecture.md, "Kernels").
//
// A compiled kernel is a tag struct:
//
//   struct FpAdd {
//     static constexpr std::string_view name = "fp_add";   // = kernels/glsl/fp_add.comp
//     struct Args { In<Fp> a; In<Fp> b; Out<Fp> out; };    // views, view arrays, scalars
//     static Grid grid(const Args& a) { return {uint32_t(a.out.view.count)}; }  // optional
//     static void cpu(const Args& args, const CpuContext& ctx);  // C++ body over the whole dispatch
//   };
//
// Args is a plain aggregate, declared once; everything else derives from it. Its members, in
// declaration order and with their names, give the KernelAbi (runtime/kernel_abi.hpp): each view
// (In / Out / InOut) is one storage-buffer binding and one declared access for the scheduler, each
// view array (InArray / OutArray / InOutArray) one binding of up to N descriptors, each scalar
// member push-constant words. The GLSL body includes declarations generated from that ABI at build
// time (kernels/glsl/generate_abi.cpp), so nothing lists the bindings a second time.
//
// Optional statics in the tag:
// - `workgroup_size`: preferred invocations per workgroup (the Vulkan executor takes
//   min(preference, device limit));
// - `static Grid grid(const Args&)`: the grid the kernel needs for these views. Graph::dispatch
//   checks a given grid against it (GraphError naming the task), or uses it when none is given;
// - `static std::string check(const Args&)`: what is wrong with the scalars (empty if nothing), so
//   that both executors reject a bad dispatch when the graph is built, not one of them at run time;
// - `static constexpr KernelConstant constants[]`: the named constants its GLSL body shares with
//   the C++ side (`{"LANES", kSumcheckLanes}`), written into the generated interface
//   (runtime/kernel_abi.hpp); the build refuses a .comp that declares one of them itself.
//
// A run-time kernel (e.g. an AIR's constraints compiled at keygen) is a KernelInfo made with
// make_runtime_kernel: SPIR-V words, a KernelAbi, a CPU body, and the grid rule and check that a
// compiled kernel has as statics (required here), owned by whoever made it (the graph's tasks share
// ownership). It is dispatched with DynamicArgs (runtime/graph.hpp) and checked as a compiled one.
//
// Challenges are never scalars: kernels read them from buffers (architecture.md).
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "runtime/buffer.hpp"
#include "runtime/detail/fields.hpp"
#include "runtime/error.hpp"
#include "runtime/kernel_abi.hpp"

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

// Up to N views of one element type, bound as one binding of N descriptors (an AIR's variable
// number of trace parts, say). views[0, count) are used.
template <DeviceElement T, uint32_t N, Access A>
struct ViewArray {
  static_assert(N >= 1 && N <= kMaxViewArray, "a view array holds 1 .. kMaxViewArray views");
  std::array<View<T>, N> views{};
  uint32_t count = 0;

  ViewArray() = default;
  ViewArray(std::initializer_list<View<T>> vs) : ViewArray(std::span<const View<T>>(vs.begin(), vs.size())) {}
  ViewArray(std::span<const View<T>> vs) {  // NOLINT(google-explicit-constructor)
    for (const View<T>& v : vs) push_back(v);
  }
  void push_back(View<T> v) {
    if (count == N) throw GraphError("a view array of capacity " + std::to_string(N) + " is full");
    views[count++] = v;
  }
  static constexpr Access access = A;
  static constexpr uint32_t capacity = N;
  using element = T;
};
template <DeviceElement T, uint32_t N>
using InArray = ViewArray<T, N, Access::Read>;
template <DeviceElement T, uint32_t N>
using OutArray = ViewArray<T, N, Access::Write>;
template <DeviceElement T, uint32_t N>
using InOutArray = ViewArray<T, N, Access::ReadWrite>;

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

template <class P>
struct is_view_array : std::false_type {};
template <class T, uint32_t N, Access A>
struct is_view_array<ViewArray<T, N, A>> : std::true_type {};
template <class P>
inline constexpr bool is_view_array_v = is_view_array<std::remove_cvref_t<P>>::value;

// A scalar kernel argument: trivially copyable, whole 32-bit words (u32, ...).
template <class S>
concept Scalar = std::is_trivially_copyable_v<S> &&(sizeof(S) % 4 == 0) && !is_param_v<S> && !is_view_array_v<S>;

// Calls f(member) for every member of the aggregate `args`, in declaration order.
template <class Args, class F>
void for_each_field(Args& args, F&& f) {
  std::apply([&](auto&... m) { (f(m), ...); }, detail::tie_all(args));
}

// One descriptor slot of a dispatch: a view with its access (or, for an unused slot of a view
// array, no buffer).
struct Binding {
  BufferId buffer = kNoBuffer;
  uint64_t offset = 0;  // in elements of `type`
  uint64_t count = 0;   // in elements of `type`
  TypeTag type;
  Access access = Access::Read;
  bool reinterpreted = false;
  bool used() const { return buffer != kNoBuffer; }
  GraphId graph = kNoGraph;  // the graph of the view
  uint64_t byte_offset() const { return offset * type.size; }
  uint64_t byte_count() const { return count * type.size; }
};

template <DeviceElement T>
Binding make_binding(const View<T>& v, Access access) {
  return {v.buffer, v.offset, v.count, type_tag<T>(), access, v.reinterpreted, v.graph};
}

namespace detail {

template <class Args, size_t... I>
KernelAbi abi_of(std::index_sequence<I...>) {
  KernelAbi abi;
  auto add = [&]<size_t K>(std::integral_constant<size_t, K>) {
    using M = std::remove_cvref_t<std::tuple_element_t<K, decltype(tie_all(std::declval<Args&>()))>>;
    std::string name(field_name<Args, K>());
    if constexpr (is_param_v<M>) {
      abi.views.push_back({std::move(name), type_tag<typename M::element>(), M::access, 0});
    } else if constexpr (is_view_array_v<M>) {
      abi.views.push_back({std::move(name), type_tag<typename M::element>(), M::access, M::capacity});
    } else {
      static_assert(Scalar<M>, "kernel Args members are views, view arrays or 32-bit-word scalars");
      abi.scalars.push_back({std::move(name), static_cast<uint32_t>(sizeof(M) / 4)});
    }
  };
  (add(std::integral_constant<size_t, I>{}), ...);
  return abi;
}

}  // namespace detail

// The ABI of a compiled kernel's Args, from its members and their names.
template <class Args>
KernelAbi kernel_abi() {
  return detail::abi_of<Args>(std::make_index_sequence<detail::field_count<Args>()>{});
}

// The descriptor slots and scalar words of one dispatch, in ABI order.
template <class Args>
void collect_bindings(const Args& args, std::vector<Binding>& bindings, std::vector<uint32_t>& scalars) {
  for_each_field(args, [&](const auto& member) {
    using M = std::remove_cvref_t<decltype(member)>;
    if constexpr (is_param_v<M>) {
      bindings.push_back(make_binding(member.view, M::access));
    } else if constexpr (is_view_array_v<M>) {
      for (uint32_t i = 0; i < M::capacity; ++i) {
        Binding b = make_binding(member.views[i], M::access);
        if (i >= member.count) b = {kNoBuffer, 0, 0, b.type, M::access, false};
        bindings.push_back(b);
      }
    } else {
      uint32_t words[sizeof(M) / 4];
      std::memcpy(words, &member, sizeof(M));
      scalars.insert(scalars.end(), std::begin(words), std::end(words));
    }
  });
}

// One dispatch of a run-time kernel as its grid rule and check see it (RuntimeKernelDesc): the
// descriptor slots and scalar words in ABI order, as its CPU body sees them (CpuContext::bindings,
// scalars). The rules run before the graph checks the views (as K::grid and K::check): they must
// give an answer for any views, however wrong. Refers to the task's data; valid during the call.
struct RuntimeArgs {
  const KernelAbi& abi;
  std::span<const Binding> slots;
  std::span<const uint32_t> scalars;

  // The dispatch as the Args its ABI was made from (kernel_abi<Args>()): a view array's count is
  // its used slots, as the kernel's <name>_count. GraphError when Args does not have the ABI's
  // shape (member kinds, element types, array capacities, scalar words).
  template <class Args>
  Args as() const;
};

// A run-time kernel's rule written over the Args its ABI was made from, as a compiled kernel's
// K::grid and K::check are: `rule(args.as<Args>())`.
template <class Args, class F>
auto over_args(F rule) {
  return [rule = std::move(rule)](const RuntimeArgs& a) { return rule(a.template as<Args>()); };
}

template <class Args>
Args RuntimeArgs::as() const {
  Args args{};
  size_t view = 0, slot = 0, scalar = 0, word = 0;
  bool fits = true;
  for_each_field(args, [&]<class M>(M& member) {
    if constexpr (is_param_v<M> || is_view_array_v<M>) {
      using T = typename M::element;
      uint32_t capacity = 0;
      if constexpr (is_view_array_v<M>) capacity = M::capacity;
      const uint32_t n = capacity == 0 ? 1 : capacity;
      fits = fits && view < abi.views.size() && abi.views[view].type == type_tag<T>() &&
             abi.views[view].array == capacity && abi.views[view].access == M::access && slot + n <= slots.size();
      if (!fits) return;
      auto view_of = [](const Binding& b) { return View<T>{b.buffer, b.offset, b.count, b.reinterpreted, b.graph}; };
      if constexpr (is_view_array_v<M>) {
        for (uint32_t i = 0; i < capacity; ++i) {
          member.views[i] = view_of(slots[slot + i]);
          member.count += slots[slot + i].used();
        }
      } else {
        member.view = view_of(slots[slot]);
      }
      ++view;
      slot += n;
    } else {
      constexpr size_t n = sizeof(M) / 4;
      fits = fits && scalar < abi.scalars.size() && abi.scalars[scalar].words == n && word + n <= scalars.size();
      if (!fits) return;
      std::memcpy(&member, scalars.data() + word, sizeof(M));
      ++scalar;
      word += n;
    }
  });
  if (!fits || view != abi.views.size() || scalar != abi.scalars.size())
    throw GraphError("the kernel's rules read Args whose members are not its interface");
  return args;
}

class CpuContext;

template <class K>
concept Kernel = requires(const typename K::Args& a, const CpuContext& ctx) {
  { K::name } -> std::convertible_to<std::string_view>;
  K::cpu(a, ctx);
};

// What the runtime keeps about a kernel: its name (the GLSL file of a compiled kernel), ABI,
// workgroup preference, CPU entry and, for a run-time kernel, its SPIR-V.
// The largest workgroup a kernel fixes for itself (KernelInfo::workgroup_size: its shared tiles are
// sized for it). A device with fewer invocations cannot run the library (the Vulkan executor refuses
// it); kernel_abi_test holds every kernel to it.
inline constexpr uint32_t kMaxFixedWorkgroupSize = 256;

struct KernelInfo {
  std::string name;
  KernelAbi abi;
  uint32_t workgroup_size = 0;  // 0: executor default
  // Compiled kernels: called with a pointer to the task's Args. Run-time kernels: args is null; the
  // body reads its views and scalars through CpuContext::view / scalars.
  std::function<void(const void* args, const CpuContext& ctx)> cpu;
  // Empty: the executor's embedded SPIR-V of `name` (kernels/glsl/<name>.comp).
  std::vector<uint32_t> spirv;
  uint64_t spirv_hash = 0;  // spirv_content_hash(spirv): executors share pipelines by content
  bool runtime = false;
  bool cpu_only = false;  // a run-time kernel without SPIR-V (RuntimeKernelDesc::cpu_only)
  // Run-time kernels: RuntimeKernelDesc::grid and check (compiled kernels: K::grid and K::check).
  std::function<Grid(const RuntimeArgs&)> runtime_grid;
  std::function<std::string(const RuntimeArgs&)> runtime_check;
  // Compiled kernels that hash: the Poseidon2 permutations one dispatch performs
  // (`static uint64_t permutations(const Args&)`); empty for the others. PlanCounts sums them.
  std::function<uint64_t(const void* args)> permutations;
};

template <Kernel K>
const KernelInfo& kernel_info() {
  static const KernelInfo info = [] {
    KernelInfo i;
    i.name = std::string(K::name);
    i.abi = kernel_abi<typename K::Args>();
    i.abi.validate(i.name);
    if constexpr (requires { K::workgroup_size; }) i.workgroup_size = K::workgroup_size;
    i.cpu = [](const void* args, const CpuContext& ctx) { K::cpu(*static_cast<const typename K::Args*>(args), ctx); };
    if constexpr (requires(const typename K::Args& a) {
                    { K::permutations(a) } -> std::convertible_to<uint64_t>;
                  })
      i.permutations = [](const void* args) -> uint64_t {
        return K::permutations(*static_cast<const typename K::Args*>(args));
      };
    return i;
  }();
  return info;
}

// A kernel made at run time. GraphError when the ABI is not usable (KernelAbi::validate), the
// words are not SPIR-V (magic number) or their interface is not the ABI, or a body or rule is
// missing.
//
// `grid` and `check` are required: the contract of a compiled kernel's K::grid and K::check, so
// that a dispatch a body would read or write past its views is refused when the graph is built,
// on every executor, with the same message. Graph::dispatch refuses a grid other than grid(args)
// and a non-empty check(args) (GraphError naming the task and kernel). A kernel whose Args type
// gave its ABI writes them over Args with over_args<Args>.
struct RuntimeKernelDesc {
  std::string name;
  KernelAbi abi;
  std::vector<uint32_t> spirv;
  uint32_t workgroup_size = 0;
  std::function<void(const CpuContext& ctx)> cpu;
  std::function<Grid(const RuntimeArgs&)> grid;          // the grid the views and scalars need
  std::function<std::string(const RuntimeArgs&)> check;  // what is wrong with them ("" if nothing)
  // A kernel for executors that run CPU bodies only (ExecutorLimits::runs_spirv false): `spirv`
  // empty and never compiled; an executor that runs SPIR-V refuses it (GraphError naming it).
  bool cpu_only = false;
};
[[nodiscard]] std::shared_ptr<const KernelInfo> make_runtime_kernel(RuntimeKernelDesc desc);

// A 64-bit hash of SPIR-V words and their count.
uint64_t spirv_content_hash(std::span<const uint32_t> words);

// What a CPU kernel body sees: memory of its views, the grid, its task name. Spans returned are
// valid for the duration of the body. Thread-safe for reads; bodies parallelise inside with TBB.
class CpuContext {
 public:
  virtual ~CpuContext() = default;
  virtual Grid grid() const = 0;
  virtual std::string_view task_name() const = 0;
  // The dispatch's descriptor slots and scalar words, in ABI order (run-time kernels read these).
  virtual std::span<const Binding> bindings() const = 0;
  virtual std::span<const uint32_t> scalars() const = 0;

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
  // View i < a.count of a view array (const elements for InArray).
  template <class T, uint32_t N, Access A>
  auto span(const ViewArray<T, N, A>& a, uint32_t i) const {
    using E = std::conditional_t<A == Access::Read, const T, T>;
    const View<T>& v = a.views.at(i);
    return std::span<E>(reinterpret_cast<E*>(address(v.buffer, v.byte_offset())), i < a.count ? v.count : 0);
  }
  // Descriptor slot `slot` as elements of T. ExecutionError if T is not the slot's element type.
  template <DeviceElement T>
  std::span<T> view(uint32_t slot) const {
    const Binding& b = checked_slot(slot, type_tag<T>());
    if (!b.used()) return {};
    return {reinterpret_cast<T*>(address(b.buffer, b.byte_offset())), b.count};
  }

 protected:
  virtual std::byte* address(BufferId buffer, uint64_t byte_offset) const = 0;

 private:
  const Binding& checked_slot(uint32_t slot, TypeTag type) const;
};

}  // namespace vkstark
