#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "abi/ntt_stage_shared_fp.glsl"
#include "fp.glsl"
// NttStageSharedFp (kernels/ntt.hpp): one Stockham pass of radix up to 2^8 over Fp columns, a tile of groups per workgroup,
// in registers and shared memory.

#define NTT_T uint
#define NTT_ZERO 0u
#define NTT_ADD(a, b) fp_add(a, b)
#define NTT_SUB(a, b) fp_sub(a, b)
#define NTT_SCALE(a, w) fp_mul(a, w)
#define NTT_SHARED_MAIN
#include "ntt.glsl"
