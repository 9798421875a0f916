#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "abi/ntt_stage_fp.glsl"
#include "fp.glsl"
// NttStageFp (kernels/ntt.hpp): one Stockham pass of radix 2^log_radix over Fp columns.

#define NTT_T uint
#define NTT_ZERO 0u
#define NTT_ADD(a, b) fp_add(a, b)
#define NTT_SUB(a, b) fp_sub(a, b)
#define NTT_SCALE(a, w) fp_mul(a, w)
#define NTT_STAGE_MAIN
#include "ntt.glsl"
