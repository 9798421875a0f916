#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "runtime.glsl"
#include "fp4.glsl"
// NttStageSharedFp4 (kernels/ntt.hpp): one Stockham pass of radix up to 2^8 over Fp4 columns with
// base-field twiddles, a tile of groups per workgroup, in registers and shared memory.
layout(set = 0, binding = 0) readonly buffer Src { uvec4 src_[]; };
layout(set = 0, binding = 1) writeonly buffer Dst { uvec4 dst_[]; };
layout(set = 0, binding = 2) readonly buffer Tw { uint tw_[]; };
VKS_PUSH_BEGIN VKS_VIEW(src) VKS_VIEW(dst) VKS_VIEW(tw)
  uint src_stride; uint dst_stride; uint log_n; uint stage; uint log_radix; uint log_src; uint log_tw; uint inverse; uint log_tile;
VKS_PUSH_END

#define NTT_T uvec4
#define NTT_ZERO FP4_ZERO
#define NTT_ADD(a, b) fp4_add(a, b)
#define NTT_SUB(a, b) fp4_sub(a, b)
#define NTT_SCALE(a, w) fp4_scale(a, w)
#define NTT_SHARED_CAPACITY 1024u  // kNttSharedCapacityFp4
#define NTT_SHARED_MAIN
#include "ntt.glsl"
