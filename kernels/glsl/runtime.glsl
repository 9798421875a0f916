// Runtime contract of every kernel (runtime/kernel.hpp). Include first in each .comp:
//
//   #version 460
//   #extension GL_GOOGLE_include_directive : require
//   #include "runtime.glsl"
//   layout(set = 0, binding = 0) readonly buffer A { uint a[]; };   // one binding per view, in
//   layout(set = 0, binding = 1) writeonly buffer O { uint o[]; };  // Args declaration order
//   VKS_PUSH_BEGIN VKS_VIEW(a) VKS_VIEW(o) uint scalar0; VKS_PUSH_END
//   void main() { uint i = vks_index_x(); if (i >= pc.grid_x) return; o[pc.o_off + i] = a[pc.a_off + i]; }
//
// Push constants: grid_x, grid_y, then per view its element offset and element count (a view is
// bound as a whole buffer or an aligned window; `off` locates the view inside what is bound), then
// the Args scalars in declaration order.
#ifndef VKSTARK_RUNTIME_GLSL
#define VKSTARK_RUNTIME_GLSL

// Invocations per workgroup: chosen by the executor from device limits and the kernel's preference.
layout(local_size_x_id = 0, local_size_y = 1, local_size_z = 1) in;
// The device's subgroup size (for kernels that reduce within subgroups).
layout(constant_id = 1) const uint VKS_SUBGROUP_SIZE = 32;

#define VKS_PUSH_BEGIN layout(push_constant) uniform Push { uint grid_x; uint grid_y;
#define VKS_VIEW(name) uint name##_off; uint name##_len;
#define VKS_PUSH_END } pc;

// Index along grid.x. Large grids are spread over workgroup dimensions x and y by the executor.
uint vks_index_x() {
  return (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
}
// Index along grid.y (workgroup dimension z).
uint vks_index_y() { return gl_WorkGroupID.z; }
// Total invocations along x actually launched (>= grid_x); for grid-stride loops.
uint vks_launched_x() { return gl_NumWorkGroups.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x; }

#endif
