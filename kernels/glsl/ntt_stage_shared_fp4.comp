#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "abi/ntt_stage_shared_fp4.glsl"
#include "fp4.glsl"
// NttStageSharedFp4 (kernels/ntt.hpp): one Stockham pass of radix up to 2^8 over Fp4 columns with
// base-field twiddles, a tile of groups per workgroup, in registers and shared memory.

#define NTT_T uvec4
#define NTT_ZERO FP4_ZERO
#define NTT_ADD(a, b) fp4_add(a, b)
#define NTT_SUB(a, b) fp4_sub(a, b)
#define NTT_SCALE(a, w) fp4_scale(a, w)
#define NTT_SHARED_MAIN
#include "ntt.glsl"
