#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "abi/ntt_zeta_fp.glsl"
#include "fp.glsl"
// NttZetaFp (kernels/ntt.hpp): subset-zeta / Möbius over num_bits index bits of Fp columns, in place.

#define NTT_T uint
#define NTT_ZERO 0u
#define NTT_ADD(a, b) fp_add(a, b)
#define NTT_SUB(a, b) fp_sub(a, b)
#define NTT_SCALE(a, w) fp_mul(a, w)
#define NTT_ZETA_MAIN
#include "ntt.glsl"
