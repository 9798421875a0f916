#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "abi/ntt_stage_vec_fp.glsl"
#include "fp4.glsl"
// NttStageVecFp (kernels/ntt.hpp): one Stockham pass of radix up to 16 in registers over Fp
// columns at stage >= 2, four groups per invocation, loaded and stored 16 bytes at a time.

#define NTT_T uvec4
#define NTT_ZERO uvec4(0u)
#define NTT_ADD(a, b) fp4_add(a, b)
#define NTT_SUB(a, b) fp4_sub(a, b)
#define NTT_SCALE(a, w) fp4_scale(a, w)
#define NTT_VEC_MAIN
#include "ntt.glsl"
