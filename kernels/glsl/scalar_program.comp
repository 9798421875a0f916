#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_shuffle : require
#include "abi/scalar_program.glsl"
#define P2C_COMPACT  // the slowest pipeline to create (sponge_coop.glsl)
#include "sponge_coop.glsl"
#include "fp4.glsl"
#include "lane_sum.glsl"
#include "kernels/program_limits.h"
// ScalarProgram (kernels/program.hpp): interprets the instruction stream code_[] on one workgroup of
// 16 invocations. Every invocation runs the whole program on the same registers (the code, copied
// into shared memory first, and the views are read uniformly), so control flow is uniform and the
// cooperative sponge and sums can use barriers anywhere. Invalid instructions stop the program, by
// the rules of decode_program_instruction (kernels/program.cpp): nothing is read or written outside
// the views.
//
// No control flow in the loop depends on the invocation (stores are made by all 16 with the same
// value, the absorbing lanes pick their word by a select): a branch on the lane anywhere in the
// loop made every instruction cost 570 ns instead of 326 on an H100 (2026-11-27, an interpreter of
// this shape timed alone), the loop's control no longer uniform.
//
// One permutation call site: the sponge operations absorb up to a rate block or squeeze one word
// per pass of the interpreter loop and ask for a permutation by setting `permute`; the loop runs
// it at its top.
// (Each inlined cooperative permutation is a few thousand instructions: eleven call sites made this
// the slowest pipeline to create.) Multi-word operations (observe_ext, observe_in, sample_ext) keep
// their place in `sub` and stay at `pos` until their last word.

// OP_<name> (the ops), OP_COUNT and OP_SHAPE come from the kernel's constants (kernels/program.hpp):
// field kinds 0 unused (must be 0), 1 register, 2 in-view slot, 3 out-view slot; per op a | b << 2
// | c << 4, immediates << 8 (kProgramOpShapes).

bool field_ok(uint kind, uint v) {
  if (kind == 0u) return v == 0u;
  if (kind == 1u) return v < uint(VKSTARK_PROGRAM_REGISTERS);
  if (kind == 2u) return v < pc.in_count;
  return v < pc.out_count;
}

uint in_word(uint slot, uint i) { return in_[slot].data[pc.in_off[slot] + i]; }
uvec4 in_entry(uint slot, uint e) {
  const uint base = pc.in_off[slot] + 4u * e;
  return uvec4(in_[slot].data[base], in_[slot].data[base + 1u], in_[slot].data[base + 2u], in_[slot].data[base + 3u]);
}

// [first, first + (n - 1) stride] inside [0, size), or n = 0.
bool strided_range_inside(uint first, uint n, uint stride, uint size) {
  if (n == 0u) return true;
  if (first >= size) return false;
  return stride == 0u || (n - 1u) <= (size - 1u - first) / stride;
}

shared uint code_s[VKSTARK_PROGRAM_MAX_WORDS];
// The register file in shared memory, one copy per invocation (every invocation computes the same
// values). As a private array indexed at run time the pipeline took 1.0 to 1.2 s to create on an
// H100 (NVIDIA 580), in shared memory 0.3 s, an instruction costing the same (2026-11-27).
shared uvec4 regs_s[VKSTARK_PROGRAM_REGISTERS * 16];
#define REG(i) regs_s[(i) * 16u + lane]
shared uint op_shape_s[OP_COUNT];

void main() {
  if (gl_WorkGroupSize.x != 16u * P2C_GROUPS || gl_WorkGroupID.x + gl_WorkGroupID.y + gl_WorkGroupID.z != 0u) return;
  const uint lane = gl_LocalInvocationID.x;
  const uint code_len = min(pc.code_len, uint(VKSTARK_PROGRAM_MAX_WORDS));  // check() keeps it within
  for (uint i = lane; i < code_len; i += 16u) code_s[i] = code_[pc.code_off + i];
  barrier();
  CoopSponge sp;
  COOP_SPONGE_LOAD(sp, t_, pc.t_off * 18u);
  for (uint i = 0u; i < uint(VKSTARK_PROGRAM_REGISTERS); ++i) REG(i) = FP4_ZERO;
  if (lane == 0u)
    for (uint i = 0u; i < OP_COUNT; ++i) op_shape_s[i] = OP_SHAPE[i];
  barrier();
  uint pos = 0u, sub = 0u;
  bool permute = false;
  [[dont_unroll]] while (true) {
    if (permute) {
      coop_sponge_permute(sp);
      permute = false;
    }
    if (pos >= code_len) break;
    const uint w = code_s[pos];
    const uint op = w & 0xFFu, a = (w >> 8) & 0xFFu, b = (w >> 16) & 0xFFu, c = w >> 24;
    if (op == 0u || op >= OP_COUNT) break;
    const uint shape = op_shape_s[op], nimm = shape >> 8;
    if (code_len - pos - 1u < nimm) break;
    if (!field_ok(shape & 3u, a) || !field_ok((shape >> 2) & 3u, b) || !field_ok((shape >> 4) & 3u, c)) break;
    uint i0 = 0u, i1 = 0u, i2 = 0u, i3 = 0u;
    if (nimm > 0u) i0 = code_s[pos + 1u];
    if (nimm > 1u) i1 = code_s[pos + 2u];
    if (nimm > 2u) i2 = code_s[pos + 3u];
    if (nimm > 3u) i3 = code_s[pos + 4u];
    const uint next = pos + 1u + nimm;
    if (op >= OP_OBSERVE && op <= OP_OBSERVE_IN) {
      // As many words absorbed per pass as the rate block has room for: lane absorb_idx + j takes
      // word sub + j (the lanes load side by side: one load latency per block, not per word).
      if (op == OP_OBSERVE_IN && (i0 > pc.in_len[b] || i1 > pc.in_len[b] - i0)) break;
      const uint n = op == OP_OBSERVE ? 1u : op == OP_OBSERVE_EXT ? 4u : i1;
      if (sub < n) {
        const uint k = min(n - sub, P2_RATE - sp.absorb_idx), l = p2c_lane();
        const bool mine = l >= sp.absorb_idx && l - sp.absorb_idx < k;
        const uint j = mine ? sub + l - sp.absorb_idx : sub;  // in [sub, n): a valid read either way
        const uint v = op == OP_OBSERVE_IN ? in_word(b, i0 + j) : REG(a)[min(j, 3u)];
        sp.x = mine ? v : sp.x;
        sp.absorb_idx += k;
        permute = sp.absorb_idx == P2_RATE;
        sub += k;
      }
      if (sub >= n) {
        sub = 0u;
        pos = next;
      }
      continue;
    }
    if (op == OP_SAMPLE || op == OP_SAMPLE_EXT) {
      // One word squeezed per pass, after the permutation a squeeze needs.
      if (sp.absorb_idx != 0u || sp.sample_idx == 0u) {
        permute = true;
        continue;
      }
      sp.sample_idx -= 1u;
      REG(a)[sub] = p2c_lane_value(sp.x, sp.sample_idx);
      if (op == OP_SAMPLE) REG(a) = uvec4(REG(a).x, 0u, 0u, 0u);
      sub += 1u;
      if (op == OP_SAMPLE || sub == 4u) {
        sub = 0u;
        pos = next;
      }
      continue;
    }
    pos = next;
    // A switch rather than a chain of ifs: H100, kernel_bench --only latency (2026-11-27), an
    // interpreted Fp4 addition 411.5 -> 397.4 ns, a multiplication 613.4 -> 584.3 ns.
    bool stop = false;
    switch (op) {
      case OP_CONST:
        stop = i0 >= FP_P || i1 >= FP_P || i2 >= FP_P || i3 >= FP_P;
        if (!stop) REG(a) = uvec4(fp_from_canonical(i0), fp_from_canonical(i1), fp_from_canonical(i2), fp_from_canonical(i3));
        break;
      case OP_LOAD:
        stop = i0 >= pc.in_len[b];
        if (!stop) REG(a) = uvec4(in_word(b, i0), 0u, 0u, 0u);
        break;
      case OP_LOAD_EXT:
        stop = i0 >= pc.in_len[b] / 4u;
        if (!stop) REG(a) = in_entry(b, i0);
        break;
      case OP_STORE:
        stop = i0 >= pc.out_len[b];
        if (!stop) out_[b].data[pc.out_off[b] + i0] = REG(a).x;
        break;
      case OP_STORE_EXT: {
        stop = i0 >= pc.out_len[b] / 4u;
        if (!stop) {
          const uint base = pc.out_off[b] + 4u * i0;
          out_[b].data[base] = REG(a).x;
          out_[b].data[base + 1u] = REG(a).y;
          out_[b].data[base + 2u] = REG(a).z;
          out_[b].data[base + 3u] = REG(a).w;
        }
        break;
      }
      case OP_ADD: REG(a) = fp4_add(REG(b), REG(c)); break;
      case OP_SUB: REG(a) = fp4_sub(REG(b), REG(c)); break;
      case OP_MUL: REG(a) = fp4_mul(REG(b), REG(c)); break;
      case OP_INV: REG(a) = REG(b) == FP4_ZERO ? FP4_ZERO : fp4_inv(REG(b)); break;
      default: {  // OP_SUM_EXT
        stop = !strided_range_inside(i0, i1, i2, pc.in_len[b] / 4u);
        if (!stop) {
          uvec4 s = FP4_ZERO;
          for (uint j = lane; j < i1; j += 16u) s = fp4_add(s, in_entry(b, i0 + j * i2));
          REG(a) = lane_sum16(s, lane);
        }
        break;
      }
    }
    if (stop) break;
  }
  COOP_SPONGE_STORE(sp, t_, pc.t_off * 18u);
}
