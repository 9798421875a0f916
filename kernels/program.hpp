// The scalar-program kernel: small per-round scalar math of the prover (sums of partials,
// interpolation, eq products, claim updates) together with the transcript operations around it,
// in one dispatch of one workgroup, instead of one hand-written kernel per formula. The program is
// an instruction stream in a buffer (a Graph::constant made by ProgramBuilder, stages/common/program.hpp);
// the kernel interprets it. Both bodies (GLSL: kernels/glsl/scalar_program.comp; CPU:
// kernels/cpu/program.cpp) give the same results for any instruction words.
//
// Machine. 32 registers r0..r31 of Fp4 (a base-field value is an Fp4 with c1 = c2 = c3 = 0), all
// zero at the start. Views are 32-bit words: up to 6 in-views in[0..5] and 4 out-views
// out[0..3] (callers bitcast Fp / Fp4 views to uint32_t; an Fp4 entry e of a view is words
// 4e .. 4e + 3, Montgomery form as in every buffer). The transcript t is the device sponge
// (kernels/transcript.hpp). Instructions run in order, once each: no jumps, so every program ends.
//
// Encoding. Word 0 of an instruction: op (bits 0..7) | a << 8 | b << 16 | c << 24; then the op's
// immediate words i0, i1, ... . a, b, c are register numbers (< 32) or view slots (< the number of
// views passed) as the table says; a field the op does not use must be 0.
//
//   op  name         a    b        c    immediates        effect
//    1  Const        dst  -        -    i0..i3            r[a] = (i0, i1, i2, i3), canonical values < p
//    2  Load         dst  in slot  -    i0 (word)         r[a] = (in[b][i0], 0, 0, 0)
//    3  LoadExt      dst  in slot  -    i0 (entry)        r[a] = Fp4 entry i0 of in[b]
//    4  Store        src  out slot -    i0 (word)         out[b][i0] = r[a].c0
//    5  StoreExt     src  out slot -    i0 (entry)        Fp4 entry i0 of out[b] = r[a]
//    6  Add          dst  src      src                    r[a] = r[b] + r[c]
//    7  Sub          dst  src      src                    r[a] = r[b] - r[c]
//    8  Mul          dst  src      src                    r[a] = r[b] * r[c]
//    9  Inv          dst  src      -                      r[a] = r[b]^-1, and 0 for r[b] = 0 (see below)
//   10  SumExt       dst  in slot  -    i0 first, i1 n,   r[a] = sum_{j < n} entry i0 + j i2 of in[b]
//                                       i2 stride         (the 16 invocations share the terms)
//   11  Observe      src  -        -                      observe(r[a].c0)
//   12  ObserveExt   src  -        -                      observe(r[a].c0), ..., observe(r[a].c3)
//   13  ObserveIn    -    in slot  -    i0 first, i1 n    observe(in[b][i0 + j]) for j < n
//   14  Sample       dst  -        -                      r[a] = (sample(), 0, 0, 0)
//   15  SampleExt    dst  -        -                      r[a] = (sample(), sample(), sample(), sample())
//
// Invalid instructions. An instruction is invalid when its op is unknown, its immediates run past
// the end of the code, a field is out of range or nonzero where unused, a constant is >= p, or an
// index or range lies outside its view. Both bodies stop at the first invalid instruction: what
// came before it stays done (stores, the transcript state), nothing after it runs. So a corrupt
// program never touches memory outside its views and gives the same state on every executor.
// ProgramBuilder validates every program when the graph is built (program_problem) and refuses an
// invalid one, so a prover never runs one; the stop rule is a safety net.
//
// Inverse of zero: defined as 0 (the GLSL fp4_inv convention), on both bodies, so that a program is
// a total function. Callers that need a nonzero denominator must make sure of it themselves.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "kernels/program_limits.h"
#include "kernels/transcript.hpp"
#include "kernels/types.hpp"
#include "runtime/kernel.hpp"

namespace vkstark {

inline constexpr uint32_t kProgramRegisters = VKSTARK_PROGRAM_REGISTERS;
inline constexpr uint32_t kProgramMaxWords = VKSTARK_PROGRAM_MAX_WORDS;  // code words of one dispatch
inline constexpr uint32_t kProgramInViews = 6;
inline constexpr uint32_t kProgramOutViews = 4;

enum class ProgramOp : uint8_t {
  Const = 1,
  Load = 2,
  LoadExt = 3,
  Store = 4,
  StoreExt = 5,
  Add = 6,
  Sub = 7,
  Mul = 8,
  Inv = 9,
  SumExt = 10,
  Observe = 11,
  ObserveExt = 12,
  ObserveIn = 13,
  Sample = 14,
  SampleExt = 15,
};
inline constexpr uint32_t kProgramOpCount = 16;  // ops are 1 .. kProgramOpCount - 1

// What fields a, b, c of an op hold, and its immediate words: the table both bodies decode by (the
// GLSL body's OP_SHAPE is generated from kProgramOpShapeWords).
enum class ProgramField : uint8_t { Unused = 0, Reg = 1, InSlot = 2, OutSlot = 3 };
struct ProgramOpShape {
  std::string_view name;
  ProgramField a, b, c;
  uint32_t immediates;
};
// Indexed by op; entry 0 (no op) has an empty name.
inline constexpr std::array<ProgramOpShape, kProgramOpCount> kProgramOpShapes = {{
    {"", ProgramField::Unused, ProgramField::Unused, ProgramField::Unused, 0},
    {"const", ProgramField::Reg, ProgramField::Unused, ProgramField::Unused, 4},
    {"load", ProgramField::Reg, ProgramField::InSlot, ProgramField::Unused, 1},
    {"load_ext", ProgramField::Reg, ProgramField::InSlot, ProgramField::Unused, 1},
    {"store", ProgramField::Reg, ProgramField::OutSlot, ProgramField::Unused, 1},
    {"store_ext", ProgramField::Reg, ProgramField::OutSlot, ProgramField::Unused, 1},
    {"add", ProgramField::Reg, ProgramField::Reg, ProgramField::Reg, 0},
    {"sub", ProgramField::Reg, ProgramField::Reg, ProgramField::Reg, 0},
    {"mul", ProgramField::Reg, ProgramField::Reg, ProgramField::Reg, 0},
    {"inv", ProgramField::Reg, ProgramField::Reg, ProgramField::Unused, 0},
    {"sum_ext", ProgramField::Reg, ProgramField::InSlot, ProgramField::Unused, 3},
    {"observe", ProgramField::Reg, ProgramField::Unused, ProgramField::Unused, 0},
    {"observe_ext", ProgramField::Reg, ProgramField::Unused, ProgramField::Unused, 0},
    {"observe_in", ProgramField::Unused, ProgramField::InSlot, ProgramField::Unused, 2},
    {"sample", ProgramField::Reg, ProgramField::Unused, ProgramField::Unused, 0},
    {"sample_ext", ProgramField::Reg, ProgramField::Unused, ProgramField::Unused, 0},
}};
// One word per op: a | b << 2 | c << 4 | immediates << 8.
inline constexpr std::array<uint32_t, kProgramOpCount> kProgramOpShapeWords = [] {
  std::array<uint32_t, kProgramOpCount> words{};
  for (uint32_t op = 0; op < kProgramOpCount; ++op) {
    const ProgramOpShape& s = kProgramOpShapes[op];
    words[op] = uint32_t(s.a) | uint32_t(s.b) << 2 | uint32_t(s.c) << 4 | s.immediates << 8;
  }
  return words;
}();

// Word 0 of an instruction.
constexpr uint32_t program_word(ProgramOp op, uint32_t a = 0, uint32_t b = 0, uint32_t c = 0) {
  return uint32_t(op) | (a << 8) | (b << 16) | (c << 24);
}

// One decoded instruction.
struct ProgramInstruction {
  ProgramOp op{};
  uint32_t a = 0, b = 0, c = 0;
  std::array<uint32_t, 4> imm{};
  uint32_t words = 0;  // 1 + immediates
};

// Decodes the instruction at code[pos] for views of in_words / out_words 32-bit words. Returns ""
// and fills `out`, or says why the instruction is invalid (where both bodies stop).
std::string decode_program_instruction(std::span<const uint32_t> code, size_t pos, std::span<const uint64_t> in_words,
                                       std::span<const uint64_t> out_words, ProgramInstruction& out);

// The first invalid instruction of a whole program ("" if none), naming its word offset.
std::string program_problem(std::span<const uint32_t> code, std::span<const uint64_t> in_words,
                            std::span<const uint64_t> out_words);

// A readable listing, one instruction per line (plan dumps, test failures).
std::string program_listing(std::span<const uint32_t> code);

// Runs `code` on one workgroup of 16 invocations (the grid of the transcript kernels) with the
// transcript t. check() sees only the views, not the code's contents: ProgramBuilder validates the
// code itself when it emits it.
struct ScalarProgram {
  static constexpr std::string_view name = "scalar_program";
  static constexpr uint32_t workgroup_size = 16;  // one cooperating workgroup: a sponge lane each
  static constexpr KernelConstant constants[] = {sponge_coop_groups(workgroup_size),
                                                 {"OP_CONST", uint32_t(ProgramOp::Const)},
                                                 {"OP_LOAD", uint32_t(ProgramOp::Load)},
                                                 {"OP_LOAD_EXT", uint32_t(ProgramOp::LoadExt)},
                                                 {"OP_STORE", uint32_t(ProgramOp::Store)},
                                                 {"OP_STORE_EXT", uint32_t(ProgramOp::StoreExt)},
                                                 {"OP_ADD", uint32_t(ProgramOp::Add)},
                                                 {"OP_SUB", uint32_t(ProgramOp::Sub)},
                                                 {"OP_MUL", uint32_t(ProgramOp::Mul)},
                                                 {"OP_INV", uint32_t(ProgramOp::Inv)},
                                                 {"OP_SUM_EXT", uint32_t(ProgramOp::SumExt)},
                                                 {"OP_OBSERVE", uint32_t(ProgramOp::Observe)},
                                                 {"OP_OBSERVE_EXT", uint32_t(ProgramOp::ObserveExt)},
                                                 {"OP_OBSERVE_IN", uint32_t(ProgramOp::ObserveIn)},
                                                 {"OP_SAMPLE", uint32_t(ProgramOp::Sample)},
                                                 {"OP_SAMPLE_EXT", uint32_t(ProgramOp::SampleExt)},
                                                 {"OP_COUNT", kProgramOpCount},
                                                 {"OP_SHAPE", 0, kProgramOpShapeWords}};
  struct Args {
    In<uint32_t> code;
    InOut<SpongeState> t;
    InArray<uint32_t, kProgramInViews> in;
    OutArray<uint32_t, kProgramOutViews> out;
  };
  static Grid grid(const Args&) { return kTranscriptGrid; }
  static std::string check(const Args& a);
  static void cpu(const Args& a, const CpuContext& ctx);
};

}  // namespace vkstark
