#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "abi/ntt_rs_message_vec.glsl"
// NttRsMessageVec (kernels/ntt.hpp): NttRsMessage for chunks of 16 entries of Fp columns bound as
// uvec4 entries (four consecutive Fp; data_ offsets and col_stride count uvec4), in place.
#define RS_LOAD(c, e) data_[pc.data_off + (c) * pc.col_stride + (e)]
#define RS_STORE(c, e, v) data_[pc.data_off + (c) * pc.col_stride + (e)] = (v)
#include "rs_message_vec_body.glsl"
