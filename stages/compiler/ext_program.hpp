// The instruction stream of an extension-field constraint kernel chunk
// (stages/compiler/ext_kernel.hpp): one compile step from the chunk's DAG, run by the CPU bodies of
// both kernel modes and, encoded as words, by the interpreter kernel (ExtKernelMode::Interpreted)
// on any executor.
//
// Values live in Fp4 slots (base-field values as Fp4 with zero high coordinates: the field
// arithmetic is exact and canonical, so every result has the bits of the generated kernel's).
// Constants and public values come first (the prologue) in slots of their own; then the nodes in
// DAG order, a trace read just before its first use, each root folded right after its node, and a
// slot freed after its last use, so a chunk needs few slots (Keccak-f: at most 225 in 83 chunks).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "kernels/types.hpp"
#include "runtime/kernel.hpp"
#include "stages/air/air.hpp"
#include "stages/air/dag.hpp"
#include "stages/compiler/schedule.hpp"

namespace vkstark {

enum class ExtOp : uint8_t {
  Load = 0,    // slot dst = column b of part a, interpolated at the point
  Const = 1,   // slot dst = the base-field value with Montgomery form b
  Public = 2,  // slot dst = public value b
  Add = 3,     // slot dst = slot a + slot b
  Sub = 4,
  Mul = 5,
  Neg = 6,   // slot dst = -slot a
  Fold = 7,  // acc += coeffs[b] * slot a
};
inline constexpr uint32_t kExtOps = 8;

struct ExtInstr {
  ExtOp op = ExtOp::Load;
  uint32_t dst = 0;
  uint32_t a = 0;
  uint32_t b = 0;
};

struct ExtProgram {
  std::vector<ExtInstr> code;
  uint32_t prologue = 0;  // the leading Const and Public instructions (their slots are never reused)
  uint32_t slots = 0;     // slots used: every dst and operand is below
  uint32_t parts = 0;     // row-view parts of the shape
};

// Slots of the interpreter kernel (its private array); a chunk's program must fit.
inline constexpr uint32_t kExtInterpreterSlots = 512;

// The program adding sum_k coeffs[k] root_k (roots: dag.constraint_idx) to a point's sum, in the
// order of the DAG's schedule (schedule_constraints(dag) when not given; slots freed as its uses
// count down). InputError for a malformed DAG, a read past the shape, a challenge, a next-row read
// or a selector.
[[nodiscard]] ExtProgram compile_ext_program(const SymbolicDag& dag, const AirShape& shape);
[[nodiscard]] ExtProgram compile_ext_program(const SymbolicDag& dag, const ConstraintSchedule& schedule,
                                             const AirShape& shape);

// Two words per instruction: op | dst << 4 | a << 16, then b. InputError when a slot does not fit
// kExtInterpreterSlots.
[[nodiscard]] std::vector<uint32_t> encode_ext_program(const ExtProgram& program);
// The inverse of encode_ext_program for a kernel of `parts` parts. ExecutionError naming `task` on
// words that are no such program (odd length, unknown op, a slot past kExtInterpreterSlots, an
// operand slot never written, a part past `parts`, a prologue instruction after the body's start).
[[nodiscard]] ExtProgram decode_ext_program(std::span<const uint32_t> words, uint32_t parts, std::string_view task);

// Runs `program` for a dispatch of the extension kernel's ABI (ExtConstraintKernelArgs, views
// 0..kMaxViewArray + 2 of ctx), adding to out; parallel over runs of points.
void run_ext_program(const ExtProgram& program, const CpuContext& ctx);

// The interpreter kernel's ABI: the extension kernel's plus the chunk's program words.
struct ExtInterpreterArgs {
  InArray<Fp4, kMaxViewArray> parts;
  In<Fp> public_values;
  In<Fp4> coeffs;
  InOut<Fp4> out;
  In<uint32_t> program;  // encode_ext_program
  uint32_t log_len = 0;
  uint32_t x_first = 0;
};

// The interpreter kernel ("ext_constraint_interpreter"), made once per process. Its CPU body
// decodes the program view and runs it (run_ext_program).
[[nodiscard]] const std::shared_ptr<const KernelInfo>& ext_interpreter_kernel();

// Every chunk of an interpreted kernel in one dispatch (a round of the MLE sumcheck is then one
// dispatch whatever the chunk count, and all chunks run side by side). The program view is the
// chunks' directory, 3 words per chunk (the program's first word, counted from the view's start;
// its word count; the coefficient of its first root), then the programs (encode_ext_program).
// Grid (points, S), S = slices and points = out.count / S: invocation (o, s) runs chunks s, s + S,
// s + 2S, ... at point o and writes its sum to out[s * points + o]: S unsummed slices, each value
// written by one invocation, so `out` needs no clearing. The accumulating kernel (ExtFusedAddArgs)
// adds to out instead.
template <template <class> class OutT>
struct ExtFusedArgsOf {
  InArray<Fp4, kMaxViewArray> parts;
  In<Fp> public_values;
  In<Fp4> coeffs;  // all roots' coefficients; a chunk's first root picks its own
  OutT<Fp4> out;   // S x points
  In<uint32_t> program;
  uint32_t log_len = 0;
  uint32_t x_first = 0;
  uint32_t chunks = 0;
  uint32_t slices = 1;  // S: the bodies read grid.y, which the kernel's grid rule makes S
};
using ExtFusedArgs = ExtFusedArgsOf<Out>;
using ExtFusedAddArgs = ExtFusedArgsOf<InOut>;

// The program view's words for chunks of `programs` (encode_ext_program each) whose roots start at
// `first_roots`.
[[nodiscard]] std::vector<uint32_t> encode_fused_programs(std::span<const std::vector<uint32_t>> programs,
                                                          std::span<const uint32_t> first_roots);
// The chunks' programs and first roots back. ExecutionError naming `task` for a directory that
// points outside the words, programs that overlap it, or a program decode_ext_program refuses.
struct FusedPrograms {
  std::vector<ExtProgram> programs;
  std::vector<uint32_t> first_roots;
};
[[nodiscard]] FusedPrograms decode_fused_programs(std::span<const uint32_t> words, uint32_t chunks, uint32_t parts,
                                                  std::string_view task);

// The fused interpreter kernels ("ext_constraint_interpreter_fused", writing; with `accumulate`
// "ext_constraint_interpreter_fused_add", adding), made once per process.
[[nodiscard]] const std::shared_ptr<const KernelInfo>& ext_fused_kernel(bool accumulate = false);

}  // namespace vkstark
