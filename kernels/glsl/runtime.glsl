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
// 1 where compute shaders have the basic and shuffle subgroup operations, else 0. A kernel that
// shuffles keeps a path without them, selected by this constant (the unused path is folded away).
layout(constant_id = 2) const uint VKS_SUBGROUP_SHUFFLE = 0;

// Index along grid.x. Large grids are spread over workgroup dimensions x and y by the executor.
uint vks_index_x() {
  return (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
}
// Index along grid.y (workgroup dimension z).
uint vks_index_y() { return gl_WorkGroupID.z; }
// Total invocations along x actually launched (>= grid_x); for grid-stride loops.
uint vks_launched_x() { return gl_NumWorkGroups.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x; }

#endif
