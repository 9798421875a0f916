// ProgramBuilder: writes a scalar program (kernels/program.hpp) while the graph is built, and adds
// it as ScalarProgram dispatches. The stages' small per-round math and the transcript operations
// around it become one dependent dispatch instead of a chain of tiny kernels:
//
//   ProgramBuilder p(g, transcript, "whir.sumcheck3.program");
//   DeviceFp4 s1 = sum_ext(p, partials, 0, parts, 2);  // fused final reduction stage
//   store_ext(evals, s1, 0);
//   observe_ext(s1);
//   p.grind(bits, witness);                           // bits > 0: ends this dispatch, grinds, starts the next
//   store_ext(alpha, sample_ext(p));
//   p.emit();
//
// Values (DeviceFp4, stages/common/device_value.hpp) hold registers, released with their last copy; at most 32 are
// live at once. A grind with bits > 0 splits the program into two dispatches around the grind
// kernels (stages/common/transcript.hpp): values do not survive it. Views are bound to the dispatch's
// in/out slots as they are first used (identical views share a slot; at most 6 in, 4 out per
// dispatch); a program may not read a range it writes. Misuse is a GraphError naming the program.
// Thread-compatible; the Graph and the DeviceTranscript must outlive the builder.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kernels/program.hpp"
#include "runtime/graph.hpp"
#include "stages/common/transcript.hpp"

namespace vkstark {

// The most words one observe(View) absorbs in one dispatch of the interpreter. lavapipe (llvmpipe)
// stops a shader's loops after 65535 iterations in all, silently (2026-11-26: an observe of the
// Keccak-f AIR's column openings, 21064 words in one dispatch, came out wrong there). The
// interpreter absorbs a rate block per pass, about 4 loop iterations a word with the
// permutation's; 1024 words leave most of that budget to the rest of the program.
inline constexpr uint64_t kObserveWordsPerDispatch = 1024;
// With no register live, a view of at least kObserveKernelWords words goes to the transcript's own
// observe kernel (TranscriptObserve: blocks loaded while the previous one is permuted, its own
// permutation unrolled) in dispatches of at most kObserveKernelPiece words (lavapipe's loop budget
// again: pieces of 16384 words came out wrong there, 4096 are right). H100, keccakf's column
// openings (21064 words): 17.8 ms through the interpreter, docs/decisions.md 2026-11-27. Its
// permutation is the unrolled one, the interpreter's the compact one (sponge_coop.glsl): from a few
// blocks on, the extra dispatch pays (round 0's s_0, 244 words: 216 us in the interpreter).
inline constexpr uint64_t kObserveKernelWords = 64;
inline constexpr uint64_t kObserveKernelPiece = 4096;

class DeviceFp4;

class ProgramBuilder {
 public:
  ProgramBuilder(Graph& g, DeviceTranscript& t, std::string name);
  ProgramBuilder(const ProgramBuilder&) = delete;
  ProgramBuilder& operator=(const ProgramBuilder&) = delete;

  // The program's values are DeviceFp4 (stages/common/device_value.hpp): constant(p, v), load_ext(p, v, i),
  // sum_ext(...), sample_ext(p), arithmetic, store_ext(view, x, i), observe_ext(x).

  // The transcript, in program order with everything else in the program. With no register live,
  // a view of kObserveKernelWords or more is observed by the transcript's observe kernel (the
  // program split around it); a shorter one, or any with a register live, by the interpreter, in
  // pieces of kObserveWordsPerDispatch words (a dispatch each) where no register is live.
  void observe(View<Fp> v);
  void observe_ext(View<Fp4> v) { observe(v.bitcast<Fp>()); }
  void observe_commit(View<Digest> v) { observe(v.bitcast<Fp>()); }
  // Proof of work (protocol.md 2.6) into witness[0]. bits == 0: witness[0] = 0 inside the program,
  // transcript untouched. bits > 0: the program so far becomes one dispatch, the grind kernels
  // follow (DeviceTranscript::grind), and the rest of the program is a new dispatch; every
  // value made before is spent (using one is a GraphError).
  void grind(uint32_t bits, View<Fp> witness);

  // Adds the last dispatch (named as the builder; earlier parts, split by grinds, are named
  // "<name>", then "<name>.part1", ...). GraphError for an empty program. The builder is spent.
  void emit();

  // The words of the part being written (tests, listings).
  const std::vector<uint32_t>& code() const { return code_; }
  const std::string& name() const { return name_; }

  // The register level under the values: registers (at most kProgramRegisters live) are allocated
  // as values are made and come back with release(). Protocol code does not see it: DeviceFp4
  // holds a register and releases it with its last copy; the builder's own tests reach it by
  // deriving (tests/parity/program_parity_test.cpp).
 protected:
  struct Reg {
    uint32_t index = ~0u;
  };
  [[nodiscard]] Reg constant(const Fp4& v);
  [[nodiscard]] Reg constant(Fp v) { return constant(Fp4(v)); }
  // v[i] (an Fp as an Fp4 with zero c1..c3) / v[i].
  [[nodiscard]] Reg load(View<Fp> v, uint64_t i = 0);
  [[nodiscard]] Reg load_ext(View<Fp4> v, uint64_t i = 0);
  // sum_{j < count} v[first + j stride], summed by the 16 invocations together.
  [[nodiscard]] Reg sum_ext(View<Fp4> v, uint64_t first, uint64_t count, uint64_t stride = 1);
  [[nodiscard]] Reg add(Reg x, Reg y);
  [[nodiscard]] Reg sub(Reg x, Reg y);
  [[nodiscard]] Reg mul(Reg x, Reg y);
  // x^-1; 0 for x = 0 (kernels/program.hpp).
  [[nodiscard]] Reg inv(Reg x);
  // dst[i] = x.c0 / dst[i] = x.
  void store(View<Fp> dst, Reg x, uint64_t i = 0);
  void store_ext(View<Fp4> dst, Reg x, uint64_t i = 0);
  void release(Reg x);
  void observe(Reg x);      // x.c0
  void observe_ext(Reg x);  // the 4 coefficients
  [[nodiscard]] Reg sample();
  [[nodiscard]] Reg sample_ext();

  // For values: the registers' generation, which a grind that splits the program or emit() ends,
  // and a release that does nothing for a register of an ended generation or one no longer live.
  uint32_t generation() const { return generation_; }
  void release_of_generation(Reg x, uint32_t generation) noexcept;

 private:
  friend class DeviceFp4;
  friend DeviceFp4 constant(ProgramBuilder& b, const Fp4& v);
  friend DeviceFp4 load(ProgramBuilder& b, View<Fp> v, uint64_t i);
  friend DeviceFp4 load_ext(ProgramBuilder& b, View<Fp4> v, uint64_t i);
  friend DeviceFp4 sum_ext(ProgramBuilder& b, View<Fp4> v, uint64_t first, uint64_t count, uint64_t stride);
  friend DeviceFp4 sample(ProgramBuilder& b);
  friend DeviceFp4 sample_ext(ProgramBuilder& b);
  friend void store(View<Fp> dst, const DeviceFp4& x, uint64_t i);
  friend void store_ext(View<Fp4> dst, const DeviceFp4& x, uint64_t i);
  friend void observe(const DeviceFp4& x);
  friend void observe_ext(const DeviceFp4& x);

  [[noreturn]] void fail(const std::string& what) const;
  Reg alloc();
  uint32_t live(Reg x, const char* op) const;
  struct Slot {
    uint32_t index = 0;
    uint64_t words = 0;  // where the view starts inside the slot's view
  };
  // The slot of a view that holds v at a multiple of `align` words, or a new one for v.
  Slot in_slot(View<uint32_t> v, uint64_t align);
  Slot out_slot(View<uint32_t> v, uint64_t align);
  void op(ProgramOp o, uint32_t a, uint32_t b = 0, uint32_t c = 0, std::initializer_list<uint32_t> imm = {});
  Reg binary(ProgramOp o, const char* what, Reg x, Reg y);  // add, sub, mul
  static uint32_t imm32(uint64_t v, const char* what, const std::string& name);
  void flush();

  Graph& g_;
  DeviceTranscript& t_;
  std::string name_;
  uint32_t part_ = 0;
  bool done_ = false;
  uint32_t live_ = 0;  // bit r: register r holds a value
  uint32_t generation_ = 0;
  std::vector<uint32_t> code_;
  std::vector<View<uint32_t>> in_, out_;
};

}  // namespace vkstark
