#include "stages/common/program.hpp"

#include "kernels/transcript.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <limits>

namespace vkstark {

namespace {
bool overlap(const View<uint32_t>& x, const View<uint32_t>& y) {
  return x.buffer == y.buffer && x.offset < y.offset + y.count && y.offset < x.offset + x.count;
}
// `outer` holds all of `inner`.
bool contains(const View<uint32_t>& outer, const View<uint32_t>& inner) {
  return outer.buffer == inner.buffer && outer.graph == inner.graph && inner.offset >= outer.offset &&
         inner.offset + inner.count <= outer.offset + outer.count;
}
}  // namespace

ProgramBuilder::ProgramBuilder(Graph& g, DeviceTranscript& t, std::string name)
    : g_(g), t_(t), name_(std::move(name)) {}

void ProgramBuilder::fail(const std::string& what) const {
  throw GraphError(fmt::format("scalar program '{}': {}", name_, what));
}

uint32_t ProgramBuilder::imm32(uint64_t v, const char* what, const std::string& name) {
  if (v > std::numeric_limits<uint32_t>::max())
    throw GraphError(fmt::format("scalar program '{}': {} {} does not fit 32 bits", name, what, v));
  return static_cast<uint32_t>(v);
}

ProgramBuilder::Reg ProgramBuilder::alloc() {
  if (done_) fail("the program was emitted already");
  if (live_ == ~0u) fail(fmt::format("more than {} live registers: release some", kProgramRegisters));
  const uint32_t r = static_cast<uint32_t>(std::countr_one(live_));
  live_ |= 1u << r;
  return {r};
}

uint32_t ProgramBuilder::live(Reg x, const char* op) const {
  if (x.index >= kProgramRegisters || !(live_ >> x.index & 1u))
    fail(fmt::format("{}: register {} holds no value (released, lost at a grind, or of another program)", op, x.index));
  return x.index;
}

ProgramBuilder::Slot ProgramBuilder::in_slot(View<uint32_t> v, uint64_t align) {
  for (uint32_t s = 0; s < in_.size(); ++s)
    if (const uint64_t d = v.offset - in_[s].offset; contains(in_[s], v) && d % align == 0) return {s, d};
  for (const auto& o : out_)
    if (overlap(o, v)) fail("reads a range it writes");
  if (in_.size() == kProgramInViews) fail(fmt::format("more than {} in-views in one dispatch", kProgramInViews));
  imm32(v.count, "an in-view of words", name_);
  in_.push_back(v);
  return {static_cast<uint32_t>(in_.size() - 1), 0};
}

ProgramBuilder::Slot ProgramBuilder::out_slot(View<uint32_t> v, uint64_t align) {
  for (uint32_t s = 0; s < out_.size(); ++s)
    if (const uint64_t d = v.offset - out_[s].offset; contains(out_[s], v) && d % align == 0) return {s, d};
  for (const auto& o : out_)
    if (overlap(o, v)) fail("writes views that overlap without one holding the other");
  for (const auto& i : in_)
    if (overlap(i, v)) fail("writes a range it reads");
  if (out_.size() == kProgramOutViews) fail(fmt::format("more than {} out-views in one dispatch", kProgramOutViews));
  imm32(v.count, "an out-view of words", name_);
  out_.push_back(v);
  return {static_cast<uint32_t>(out_.size() - 1), 0};
}

void ProgramBuilder::op(ProgramOp o, uint32_t a, uint32_t b, uint32_t c, std::initializer_list<uint32_t> imm) {
  if (done_) fail("the program was emitted already");
  if (code_.size() + 1 + imm.size() > kProgramMaxWords)
    fail(fmt::format("longer than the {} code words one dispatch runs: split it", kProgramMaxWords));
  code_.push_back(program_word(o, a, b, c));
  code_.insert(code_.end(), imm.begin(), imm.end());
}

ProgramBuilder::Reg ProgramBuilder::constant(const Fp4& v) {
  Reg r = alloc();
  op(ProgramOp::Const, r.index, 0, 0, {v.c[0].value(), v.c[1].value(), v.c[2].value(), v.c[3].value()});
  return r;
}

ProgramBuilder::Reg ProgramBuilder::load(View<Fp> v, uint64_t i) {
  if (i >= v.count) fail(fmt::format("load of entry {} of a view of {}", i, v.count));
  const Slot s = in_slot(v.bitcast<uint32_t>(), 1);
  Reg r = alloc();
  op(ProgramOp::Load, r.index, s.index, 0, {imm32(s.words + i, "index", name_)});
  return r;
}

ProgramBuilder::Reg ProgramBuilder::load_ext(View<Fp4> v, uint64_t i) {
  if (i >= v.count) fail(fmt::format("load_ext of entry {} of a view of {}", i, v.count));
  const Slot s = in_slot(v.bitcast<uint32_t>(), 4);
  Reg r = alloc();
  op(ProgramOp::LoadExt, r.index, s.index, 0, {imm32(s.words / 4 + i, "index", name_)});
  return r;
}

ProgramBuilder::Reg ProgramBuilder::sum_ext(View<Fp4> v, uint64_t first, uint64_t count, uint64_t stride) {
  if (count > 0 && (first >= v.count || (stride > 0 && (count - 1) > (v.count - 1 - first) / stride)))
    fail(fmt::format("sum_ext of {} entries from {} at stride {} leaves a view of {}", count, first, stride, v.count));
  const Slot s = in_slot(v.bitcast<uint32_t>(), 4);
  Reg r = alloc();
  op(ProgramOp::SumExt, r.index, s.index, 0,
     {imm32(s.words / 4 + first, "first", name_), imm32(count, "count", name_), imm32(stride, "stride", name_)});
  return r;
}

ProgramBuilder::Reg ProgramBuilder::binary(ProgramOp o, const char* what, Reg x, Reg y) {
  const uint32_t a = live(x, what), b = live(y, what);
  Reg r = alloc();
  op(o, r.index, a, b);
  return r;
}

ProgramBuilder::Reg ProgramBuilder::add(Reg x, Reg y) { return binary(ProgramOp::Add, "add", x, y); }
ProgramBuilder::Reg ProgramBuilder::sub(Reg x, Reg y) { return binary(ProgramOp::Sub, "sub", x, y); }
ProgramBuilder::Reg ProgramBuilder::mul(Reg x, Reg y) { return binary(ProgramOp::Mul, "mul", x, y); }

ProgramBuilder::Reg ProgramBuilder::inv(Reg x) {
  const uint32_t a = live(x, "inv");
  Reg r = alloc();
  op(ProgramOp::Inv, r.index, a);
  return r;
}

void ProgramBuilder::store(View<Fp> dst, Reg x, uint64_t i) {
  const uint32_t a = live(x, "store");
  if (i >= dst.count) fail(fmt::format("store to entry {} of a view of {}", i, dst.count));
  const Slot s = out_slot(dst.bitcast<uint32_t>(), 1);
  op(ProgramOp::Store, a, s.index, 0, {imm32(s.words + i, "index", name_)});
}

void ProgramBuilder::store_ext(View<Fp4> dst, Reg x, uint64_t i) {
  const uint32_t a = live(x, "store_ext");
  if (i >= dst.count) fail(fmt::format("store_ext to entry {} of a view of {}", i, dst.count));
  const Slot s = out_slot(dst.bitcast<uint32_t>(), 4);
  op(ProgramOp::StoreExt, a, s.index, 0, {imm32(s.words / 4 + i, "index", name_)});
}

void ProgramBuilder::release(Reg x) { live_ &= ~(1u << live(x, "release")); }

void ProgramBuilder::release_of_generation(Reg x, uint32_t generation) noexcept {
  if (generation == generation_ && !done_ && x.index < kProgramRegisters) live_ &= ~(1u << x.index);
}

void ProgramBuilder::observe(Reg x) { op(ProgramOp::Observe, live(x, "observe")); }

void ProgramBuilder::observe_ext(Reg x) { op(ProgramOp::ObserveExt, live(x, "observe_ext")); }

void ProgramBuilder::observe(View<Fp> v) {
  if (live_ == 0 && v.count >= kObserveKernelWords) {
    if (!code_.empty()) flush();
    for (uint64_t first = 0; first < v.count; first += kObserveKernelPiece) {
      const uint64_t n = std::min<uint64_t>(kObserveKernelPiece, v.count - first);
      g_.dispatch<TranscriptObserve>(fmt::format("{}.observe{}", name_, part_),
                                     {.t = t_.state(), .values = v.slice(first, n)});
      ++part_;
    }
    return;
  }
  // Pieces of at most kObserveWordsPerDispatch words, a dispatch each while no register is live.
  for (uint64_t first = 0; first < v.count;) {
    if (first > 0) flush();
    const uint64_t n = live_ == 0 ? std::min<uint64_t>(kObserveWordsPerDispatch, v.count - first) : v.count - first;
    const Slot s = in_slot(v.slice(first, n).bitcast<uint32_t>(), 1);
    op(ProgramOp::ObserveIn, 0, s.index, 0, {imm32(s.words, "first", name_), imm32(n, "count", name_)});
    first += n;
  }
}

ProgramBuilder::Reg ProgramBuilder::sample() {
  Reg r = alloc();
  op(ProgramOp::Sample, r.index);
  return r;
}

ProgramBuilder::Reg ProgramBuilder::sample_ext() {
  Reg r = alloc();
  op(ProgramOp::SampleExt, r.index);
  return r;
}

void ProgramBuilder::grind(uint32_t bits, View<Fp> witness) {
  if (witness.count != 1) fail(fmt::format("grind: the witness view has {} elements, 1 expected", witness.count));
  if (bits == 0) {
    Reg zero = constant(Fp::zero());
    store(witness, zero);
    release(zero);
    return;
  }
  if (!code_.empty()) flush();
  t_.grind(bits, witness);
  live_ = 0;
  ++generation_;
}

void ProgramBuilder::flush() {
  std::vector<uint64_t> in_words, out_words;
  for (const auto& v : in_) in_words.push_back(v.count);
  for (const auto& v : out_) out_words.push_back(v.count);
  if (std::string p = program_problem(code_, in_words, out_words); !p.empty())
    fail(fmt::format("{}\n{}", p, program_listing(code_)));
  const std::string name = part_ == 0 ? name_ : fmt::format("{}.part{}", name_, part_);
  ScalarProgram::Args a;
  a.code = g_.constant<uint32_t>(name + ".code", code_);
  a.t = t_.state();
  for (const auto& v : in_) a.in.push_back(v);
  for (const auto& v : out_) a.out.push_back(v);
  g_.dispatch<ScalarProgram>(name, a);
  ++part_;
  code_.clear();
  in_.clear();
  out_.clear();
}

void ProgramBuilder::emit() {
  if (done_) fail("the program was emitted already");
  if (code_.empty()) {
    if (part_ == 0) fail("an empty program");
  } else {
    flush();
  }
  done_ = true;
  ++generation_;
}

}  // namespace vkstark
