#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "runtime.glsl"
#include "fp.glsl"
// NttStageSharedFp (kernels/ntt.hpp): one Stockham pass of radix up to 2^8 over Fp columns, a tile of groups per workgroup,
// in registers and shared memory.
layout(set = 0, binding = 0) readonly buffer Src { uint src_[]; };
layout(set = 0, binding = 1) writeonly buffer Dst { uint dst_[]; };
layout(set = 0, binding = 2) readonly buffer Tw { uint tw_[]; };
VKS_PUSH_BEGIN VKS_VIEW(src) VKS_VIEW(dst) VKS_VIEW(tw)
  uint src_stride; uint dst_stride; uint log_n; uint stage; uint log_radix; uint log_src; uint log_tw; uint inverse; uint log_tile;
VKS_PUSH_END

#define NTT_T uint
#define NTT_ZERO 0u
#define NTT_ADD(a, b) fp_add(a, b)
#define NTT_SUB(a, b) fp_sub(a, b)
#define NTT_SCALE(a, w) fp_mul(a, w)
#define NTT_SHARED_CAPACITY 2048u  // kNttSharedCapacityFp
#define NTT_SHARED_MAIN
#include "ntt.glsl"
