#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "abi/ntt_stage_vec0_fp.glsl"
#include "fp4.glsl"
// NttStageVec0Fp (kernels/ntt.hpp): NttStageVecFp's pass at stage 0, its outputs staged in shared
// memory and stored as one run per workgroup.

#define NTT_T uvec4
#define NTT_ZERO uvec4(0u)
#define NTT_ADD(a, b) fp4_add(a, b)
#define NTT_SUB(a, b) fp4_sub(a, b)
#define NTT_SCALE(a, w) fp4_scale(a, w)
#define NTT_VEC_STAGE0
#define NTT_VEC_MAIN
#include "ntt.glsl"
