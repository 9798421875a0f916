#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "abi/ntt_zeta_fp4.glsl"
#include "fp4.glsl"
// NttZetaFp4 (kernels/ntt.hpp): subset-zeta / Möbius over num_bits index bits of Fp4 columns, in place.

#define NTT_T uvec4
#define NTT_ZERO FP4_ZERO
#define NTT_ADD(a, b) fp4_add(a, b)
#define NTT_SUB(a, b) fp4_sub(a, b)
#define NTT_SCALE(a, w) fp4_scale(a, w)
#define NTT_ZETA_MAIN
#include "ntt.glsl"
