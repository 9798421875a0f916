#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "abi/ntt_rs_message_vec_from.glsl"
// NttRsMessageVecFrom (kernels/ntt.hpp): NttRsMessageVec from src_ into dst_ (the same column
// stride), which leaves the source as it was.
#define RS_LOAD(c, e) src_[pc.src_off + (c) * pc.col_stride + (e)]
#define RS_STORE(c, e, v) dst_[pc.dst_off + (c) * pc.col_stride + (e)] = (v)
#include "rs_message_vec_body.glsl"
