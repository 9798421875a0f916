// Element types of device buffers defined by kernels/: names for messages and type checks.
#pragma once

#include "kernels/field/fp.hpp"
#include "kernels/field/fp4.hpp"
#include "kernels/hash/hash.hpp"
#include "runtime/buffer.hpp"
#include "runtime/kernel_abi.hpp"

namespace vkstark {

template <>
struct ElementTraits<Fp> {
  static constexpr std::string_view name = "Fp";
};
template <>
struct ElementTraits<Fp4> {
  static constexpr std::string_view name = "Fp4";
  static constexpr std::string_view glsl = "uvec4";  // kernels/glsl/fp4.glsl
};
template <>
struct ElementTraits<Digest> {
  static constexpr std::string_view name = "Digest";
  static constexpr std::string_view glsl = "uvec4";  // two per digest
};

// The device transcript: the 18 words of a DuplexSponge (state in Montgomery form, then
// absorb_idx, sample_idx), as kernels/glsl/transcript.glsl keeps them.
struct SpongeState {
  Poseidon2State state{};
  uint32_t absorb_idx = 0;
  uint32_t sample_idx = 0;
  bool operator==(const SpongeState&) const = default;
};
static_assert(sizeof(SpongeState) == 72);

// The constant of kernels/glsl/sponge_coop.glsl in the interface of a kernel that includes it
// (K::constants): its workgroup holds P2C_GROUPS groups of cooperating invocations, one state lane
// each.
constexpr KernelConstant sponge_coop_groups(uint32_t workgroup_size) {
  return {"P2C_GROUPS", workgroup_size / uint32_t(POSEIDON2_WIDTH)};
}
template <>
struct ElementTraits<SpongeState> {
  static constexpr std::string_view name = "SpongeState";
};

}  // namespace vkstark
