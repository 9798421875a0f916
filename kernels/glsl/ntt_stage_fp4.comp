#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "runtime.glsl"
#include "fp4.glsl"
// NttStageFp4 (kernels/ntt.hpp): one Stockham pass of radix 2^log_radix over Fp4 columns with
// base-field twiddles.
layout(set = 0, binding = 0) readonly buffer Src { uvec4 src_[]; };
layout(set = 0, binding = 1) writeonly buffer Dst { uvec4 dst_[]; };
layout(set = 0, binding = 2) readonly buffer Tw { uint tw_[]; };
VKS_PUSH_BEGIN VKS_VIEW(src) VKS_VIEW(dst) VKS_VIEW(tw)
  uint src_stride; uint dst_stride; uint log_n; uint stage; uint log_radix; uint log_src; uint log_tw; uint inverse;
VKS_PUSH_END

#define NTT_T uvec4
#define NTT_ZERO FP4_ZERO
#define NTT_ADD(a, b) fp4_add(a, b)
#define NTT_SUB(a, b) fp4_sub(a, b)
#define NTT_SCALE(a, w) fp4_scale(a, w)
#define NTT_STAGE_MAIN
#include "ntt.glsl"
