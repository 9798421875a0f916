// Runtime contract of every kernel (runtime/kernel.hpp): workgroup size, subgroup size, grid
// indices. A kernel does not include this file, nor declare its own bindings or push constants: it
// includes its interface, generated at build time from its C++ Args (runtime/kernel_abi.hpp,
// kernels/glsl/generate_abi.cpp), which includes this file:
//
//   #version 460
//   #extension GL_GOOGLE_include_directive : require
//   #include "abi/copy_u32.glsl"   // src_[], dst_[], pc.src_off, pc.src_len, pc.dst_off, ...
//   void main() { uint i = vks_index_x(); if (i >= pc.grid_x) return; dst_[pc.dst_off + i] = src_[pc.src_off + i]; }
//
// The build checks this (cmake/EmbedShaders.cmake). Push constants: grid_x, grid_y, then per view
// its element offset inside what is bound and its element count, then the Args scalars in
// declaration order.
#ifndef VKSTARK_RUNTIME_GLSL
#define VKSTARK_RUNTIME_GLSL

// Invocations per workgroup: chosen by the executor from device limits and the kernel's preference.
layout(local_size_x_id = 0, local_size_y = 1, local_size_z = 1) in;
// The device's subgroup size (for kernels that reduce within subgroups).
layout(constant_id = 1) const uint VKS_SUBGROUP_SIZE = 32;
// 1 where compute shaders have the basic and shuffle subgroup operations and the subgroup size is
// fixed at 16 or 32 (the sizes the subgroup paths are tested at: lavapipe, NVIDIA), else 0 (sizes of
// 4, 8, 64, or sizes that vary: vulkan::Context::subgroup_shuffle). A kernel that shuffles keeps a
// path without them, correct at any size, selected by this constant (the unused path is folded away).
layout(constant_id = 2) const uint VKS_SUBGROUP_SHUFFLE = 0;

// Workgroups along x: ceil(grid.x / workgroup size), and past VKS_SPILL_X of them, rows of exactly
// VKS_SPILL_X along x, stacked along y (the executor's rule, the same on every device: Vulkan
// guarantees 65535 along x). Nothing here reads gl_NumWorkGroups: on an H100 a shader that reads it
// costs about 0.13 us more GPU time per dispatch (the driver supplies the dispatch's size), which is
// half the cost of a small dispatch.
const uint VKS_SPILL_X = 65535u;

// Index along grid.x.
uint vks_index_x() {
  return (gl_WorkGroupID.y * VKS_SPILL_X + gl_WorkGroupID.x) * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
}
// Index along grid.y (workgroup dimension z).
uint vks_index_y() { return gl_WorkGroupID.z; }
// This workgroup's place among the workgroups along grid.x, and how many were launched for grid.x
// (pc.grid_x): for loops that hand out work a workgroup at a time.
uint vks_group_x() { return gl_WorkGroupID.y * VKS_SPILL_X + gl_WorkGroupID.x; }
uint vks_launched_groups_x(uint grid_x) {
  const uint n = grid_x / gl_WorkGroupSize.x + (grid_x % gl_WorkGroupSize.x != 0u ? 1u : 0u);
  return n <= VKS_SPILL_X ? n : VKS_SPILL_X * (n / VKS_SPILL_X + (n % VKS_SPILL_X != 0u ? 1u : 0u));
}
// Invocations launched along x (>= grid_x): for grid-stride loops.
uint vks_launched_x(uint grid_x) { return vks_launched_groups_x(grid_x) * gl_WorkGroupSize.x; }

#endif
