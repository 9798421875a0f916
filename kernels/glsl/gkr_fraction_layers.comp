#version 460
#extension GL_GOOGLE_include_directive : require
#include "abi/gkr_fraction_layers.glsl"
#include "fp4.glsl"
// GkrFractionLayers (kernels/gkr.hpp): invocation i adds the fractions of input nodes 2i, 2i + 1
// (node i of the first layer, n = grid.x nodes); then the workgroup's nodes of each next layer are
// added from the previous one in shared memory, lane t taking entries 2t and 2t + 1. The layer of
// N nodes is written at out[N - L + t], L = n >> (layers - 1).

shared uvec4 sh_p[LANES];
shared uvec4 sh_q[LANES];

void add_fractions(uvec4 pa, uvec4 qa, uvec4 pb, uvec4 qb, out uvec4 p, out uvec4 q) {
  p = fp4_add(fp4_mul(pa, qb), fp4_mul(pb, qa));
  q = fp4_mul(qa, qb);
}

void main() {
  if (gl_WorkGroupSize.x != LANES) return;  // the layers above a workgroup's nodes assume 64 (kernels/gkr.hpp)
  const uint i = vks_index_x(), lane = gl_LocalInvocationID.x, group = i / LANES;
  const uint n = pc.grid_x, last = n >> (pc.layers - 1u);
  uvec4 p = FP4_ZERO, q = FP4_ZERO;
  if (i < n) {
    const uint c = 2u * i;
    add_fractions(p_in_[pc.p_in_off + c], q_in_[pc.q_in_off + c], p_in_[pc.p_in_off + c + 1u],
                  q_in_[pc.q_in_off + c + 1u], p, q);
    p_out_[pc.p_out_off + n - last + i] = p;
    q_out_[pc.q_out_off + n - last + i] = q;
  }
  sh_p[lane] = p;
  sh_q[lane] = q;
  barrier();
  // Every invocation runs every level (uniform control flow around the barriers).
  for (uint level = 1u; level < pc.layers; ++level) {
    const uint nodes = n >> level, width = LANES >> level, t = group * width + lane;
    const bool on = lane < width && t < nodes;
    uvec4 np = FP4_ZERO, nq = FP4_ZERO;
    if (on) add_fractions(sh_p[2u * lane], sh_q[2u * lane], sh_p[2u * lane + 1u], sh_q[2u * lane + 1u], np, nq);
    barrier();
    if (on) {
      sh_p[lane] = np;
      sh_q[lane] = nq;
      p_out_[pc.p_out_off + nodes - last + t] = np;
      q_out_[pc.q_out_off + nodes - last + t] = nq;
    }
    barrier();
  }
}
