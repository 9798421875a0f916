// The interface of a kernel as both of its bodies see it (architecture.md, "Kernels"): its views
// (descriptor bindings, with element type and access), its scalars (push constants), and the one
// push-constant layout that follows from them. Written once: a compiled kernel derives it from its
// Args (runtime/kernel.hpp), a run-time kernel states it; the GLSL declarations of either are
// generated from it (glsl_declarations), never written by hand, and so are the named constants its
// GLSL body shares with C++ (KernelConstant).
//
// Push constants, in 32-bit words, in this order:
//   grid_x, grid_y;
//   per view:        <name>_off, <name>_len          (element offset inside what is bound; count)
//   per view array:  <name>_off[N], <name>_len[N], <name>_count
//   per scalar:      <name> (or <name>[words] for a scalar of several words)
// A view is bound as one storage buffer at binding = its index among the view parameters; a view
// array of capacity N is one binding with N descriptors (unused ones see an empty buffer).
//
// Value type; thread-compatible.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/buffer.hpp"

namespace vkstark {

// Every Vulkan device has at least 128 bytes of push constants; a graph is checked against this, the
// same on every executor.
inline constexpr uint32_t kMaxPushBytes = 128;
inline constexpr uint32_t kPushHeaderWords = 2;  // grid_x, grid_y
// The largest view array (descriptors of one binding).
inline constexpr uint32_t kMaxViewArray = 8;

struct ViewParam {
  std::string name;
  TypeTag type;
  Access access = Access::Read;
  uint32_t array = 0;  // 0: one view; N: an array of up to N views
  uint32_t slots() const { return array == 0 ? 1 : array; }
};

struct ScalarParam {
  std::string name;
  uint32_t words = 1;
};

struct KernelAbi {
  std::vector<ViewParam> views;
  std::vector<ScalarParam> scalars;

  // Descriptors of the dispatch: one per single view, N per array, in binding order.
  uint32_t slots() const;
  // Words of push constants, header included; of the scalars alone.
  uint32_t push_words() const;
  uint32_t scalar_words() const;
  // GraphError naming the kernel when a name is not a usable GLSL identifier (a reserved word, a
  // clash with the generated names), an array exceeds kMaxViewArray, an element type has no GLSL
  // mapping of its size, or the push constants exceed kMaxPushBytes.
  void validate(std::string_view kernel) const;
};

// Number of invocations of a dispatch. x is the main (1-D) index space; y is a second dimension
// (rows, batch) mapped to workgroup z on Vulkan. Kernels guard with `if (i >= grid.x) return`.
struct Grid {
  uint32_t x = 1;
  uint32_t y = 1;
  bool operator==(const Grid&) const = default;
};

struct Binding;

// The push-constant words of one dispatch, appended to `out`. `slots`: the dispatch's descriptor
// slots in ABI order (unused array slots have no buffer); `slot_first[s]`: where slot s's view
// starts inside what the executor binds for it (0 where it binds the view exactly); `scalars`: the
// scalar words in declaration order.
void pack_push_constants(const KernelAbi& abi, Grid grid, std::span<const Binding> slots,
                         std::span<const uint32_t> slot_first, std::span<const uint32_t> scalars,
                         std::vector<uint32_t>& out);

// One member of the push-constant block, in order: a uint, or uint[count] when count > 0.
struct PushMember {
  std::string name;
  uint32_t count = 0;
  std::string param;  // the Args member it comes from ("" for grid_x, grid_y)
};
std::vector<PushMember> push_members(const KernelAbi& abi);

// A named constant that a kernel's GLSL body shares with its C++ side (the lanes of a workgroup's
// reduction, a shared-memory capacity, opcodes): declared once, next to the kernel's Args
// (`static constexpr KernelConstant constants[]`, runtime/kernel.hpp), referring to the C++
// constant itself, and written into the generated interface, never copied by hand into GLSL.
// A `table` is an array constant (`value` unused). Names are upper case ([A-Z][A-Z0-9_]*), so they
// cannot clash with the interface's own names, and not VKS_ (runtime.glsl's).
struct KernelConstant {
  std::string_view name;
  uint32_t value = 0;
  std::span<const uint32_t> table = {};
};

// The GLSL a kernel body includes instead of declaring its interface: the bindings (array
// `<name>_` of the element type's GLSL type, readonly for reads, writeonly for writes) and the push
// block `pc` laid out as above, after `#include "runtime.glsl"`; then the kernel's constants, as
// `const uint NAME = <value>u;` (a table: `const uint NAME[n] = uint[n](...);`). GraphError naming
// the kernel for a constant's name that is not upper case, is VKS_..., or is given twice.
std::string glsl_declarations(const KernelAbi& abi, std::string_view kernel,
                              std::span<const KernelConstant> constants = {});

}  // namespace vkstark
