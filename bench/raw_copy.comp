#version 460
// runtime_bench's raw-Vulkan baseline (bench/raw_vulkan.cpp). One invocation per dispatch: the
// bench measures what a dispatch costs around the work, not the work. The element comes from a push
// constant, so one descriptor set bound once serves every dispatch.
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer X { uint x[]; };
layout(push_constant) uniform Push {
  uint i;
  uint mode;  // 0: chain (read element i - 1, a true dependency), 1: independent
} pc;

const uint kSeed = 7;  // raw_vulkan.cpp checks for it

void main() {
  if (pc.mode == 1) {
    x[pc.i] = pc.i;
  } else {
    x[pc.i] = pc.i == 0 ? kSeed : x[pc.i - 1] + 0;
  }
}
