#include "stages/compiler/ext_program.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <memory>
#include <new>
#include <string>

#include "kernels/cpu/parallel.hpp"
#include "kernels/detail/grid.hpp"
#include "kernels/field/simd_level.hpp"
#include "kernels/glsl/compiler.hpp"
#include "runtime/error.hpp"
#include "stages/air/eval.hpp"
#include "stages/compiler/constraint_kernel.hpp"
#include "stages/compiler/detail/ext_cpu_program.hpp"

namespace vkstark {

namespace ext_cpu_detail {
namespace {
#include "kernels/field/detail/packed_scalar.inl"
#include "stages/compiler/detail/ext_cpu_blocks.inl"
}  // namespace
}  // namespace ext_cpu_detail

namespace {

constexpr uint32_t kNoSlot = ~0u;

// Bits of the encoded slot fields (dst: 12, a: 16).
static_assert(kExtInterpreterSlots <= (1u << 12) && (kExtInterpreterSlots & (kExtInterpreterSlots - 1)) == 0);
static_assert(kMaxViewArray <= (1u << 16));

// What compiling a DAG knows of each node.
struct NodeSlots {
  const std::vector<uint8_t>& need;  // the roots reach it (the schedule's live nodes)
  std::vector<uint32_t> uses;        // reads of it left (by an operation or a fold): the schedule's
  std::vector<uint32_t> slot;        // its slot (kNoSlot: none yet)
  std::vector<uint32_t> part;        // a trace read's row-view part
  std::vector<uint8_t> pinned;       // a prologue constant or public value: its slot is never freed
};

// Checks in DAG order (the first error is the first node's); the prologue (the constants' and
// public values' slots) and the trace reads' parts.
void add_prologue(const SymbolicDag& dag, const AirShape& shape, const std::vector<uint32_t>& widths, NodeSlots& s,
                  ExtProgram& p) {
  for (size_t i = 0; i < dag.nodes.size(); ++i) {
    if (!s.need[i]) continue;
    const DagNode& d = dag.nodes[i];
    switch (d.kind) {
      case NodeKind::Constant:
        s.pinned[i] = 1;
        s.slot[i] = p.slots++;
        p.code.push_back({ExtOp::Const, s.slot[i], 0, d.constant.mont()});
        break;
      case NodeKind::Variable: {
        const Variable& v = d.var;
        if (v.entry == EntryKind::Public) {
          if (v.index >= shape.num_public_values)
            throw InputError(
                fmt::format("DAG node {} reads public value {}, the AIR has {}", i, v.index, shape.num_public_values));
          s.pinned[i] = 1;
          s.slot[i] = p.slots++;
          p.code.push_back({ExtOp::Public, s.slot[i], 0, v.index});
          break;
        }
        if (v.entry == EntryKind::Challenge)
          throw InputError("the constraint DAG reads a challenge variable, which vkstark does not support");
        const bool ok = v.entry == EntryKind::Main ? v.part <= shape.num_cached() : shape.preprocessed_width > 0;
        s.part[i] = ok ? row_view_part(v, shape) : ~0u;
        if (s.part[i] >= widths.size() || v.index >= widths[s.part[i]])
          throw InputError(fmt::format("DAG node {} reads {}, which the AIR's parts do not have", i, to_string(v)));
        if (v.offset != 0)
          throw InputError(
              fmt::format("DAG node {} reads the next row: the extension kernel reads local tables only", i));
        break;
      }
      case NodeKind::Add:
      case NodeKind::Sub:
      case NodeKind::Mul:
      case NodeKind::Neg:
        break;
      default:
        throw InputError(
            fmt::format("DAG node {} is a selector: the extension kernel reads selectors as table columns", i));
    }
  }
  p.prologue = uint32_t(p.code.size());
}

// The body: the schedule's walk, each operation and each root's fold; a slot is free once its
// node's uses count down to zero, and freed slots (most recently freed first) are reused.
void add_body(const SymbolicDag& dag, const ConstraintSchedule& schedule, NodeSlots& s, ExtProgram& p) {
  std::vector<uint32_t> free_slots;
  auto alloc = [&] {
    if (free_slots.empty()) return p.slots++;
    const uint32_t f = free_slots.back();
    free_slots.pop_back();
    return f;
  };
  auto release = [&](uint32_t i) {
    if (--s.uses[i] == 0 && !s.pinned[i]) free_slots.push_back(s.slot[i]);
  };
  auto value = [&](uint32_t i) {  // node i's slot; a trace read is loaded here, at its first read
    if (s.slot[i] == kNoSlot) {
      s.slot[i] = alloc();
      p.code.push_back({ExtOp::Load, s.slot[i], s.part[i], dag.nodes[i].var.index});
    }
    return s.slot[i];
  };
  schedule.walk(
      [&](uint32_t i) {
        const DagNode& d = dag.nodes[i];
        if (!is_operation(d.kind)) return;
        const bool binary = d.kind != NodeKind::Neg;
        const uint32_t a = value(d.left), b = binary ? value(d.right) : 0;
        release(d.left);
        if (binary) release(d.right);
        const ExtOp op = d.kind == NodeKind::Add   ? ExtOp::Add
                         : d.kind == NodeKind::Sub ? ExtOp::Sub
                         : d.kind == NodeKind::Mul ? ExtOp::Mul
                                                   : ExtOp::Neg;
        s.slot[i] = alloc();
        p.code.push_back({op, s.slot[i], a, b});
      },
      [&](uint32_t, const ConstraintFold& f) {
        p.code.push_back({ExtOp::Fold, 0, value(f.node), f.constraint});
        release(f.node);
      });
}

}  // namespace

ExtProgram compile_ext_program(const SymbolicDag& dag, const AirShape& shape) {
  return compile_ext_program(dag, schedule_constraints(dag), shape);
}

ExtProgram compile_ext_program(const SymbolicDag& dag, const ConstraintSchedule& schedule, const AirShape& shape) {
  check_schedule(dag, schedule);
  const std::vector<uint32_t> widths = shape.row_view_widths();
  const size_t n = dag.nodes.size();
  NodeSlots s{schedule.live, schedule.uses, std::vector<uint32_t>(n, kNoSlot), std::vector<uint32_t>(n, 0),
              std::vector<uint8_t>(n, 0)};
  ExtProgram p;
  p.parts = uint32_t(widths.size());
  add_prologue(dag, shape, widths, s, p);
  add_body(dag, schedule, s, p);
  return p;
}

std::vector<uint32_t> encode_ext_program(const ExtProgram& program) {
  if (program.slots > kExtInterpreterSlots)
    throw InputError(
        fmt::format("the program needs {} slots, the interpreter has {}", program.slots, kExtInterpreterSlots));
  std::vector<uint32_t> words;
  words.reserve(2 * program.code.size());
  for (const ExtInstr& in : program.code) {
    words.push_back(uint32_t(in.op) | in.dst << 4 | in.a << 16);
    words.push_back(in.b);
  }
  return words;
}

ExtProgram decode_ext_program(std::span<const uint32_t> words, uint32_t parts, std::string_view task) {
  auto fail = [&](size_t at, const std::string& what) {
    throw ExecutionError(fmt::format("task '{}': extension program word {}: {}", task, at, what));
  };
  if (words.size() % 2 != 0) fail(words.size(), "odd number of words");
  ExtProgram p;
  p.parts = parts;
  std::vector<uint8_t> written(kExtInterpreterSlots, 0);
  bool body = false;
  for (size_t w = 0; w < words.size(); w += 2) {
    const uint32_t op = words[w] & 15u, dst = (words[w] >> 4) & 0xfffu, a = words[w] >> 16, b = words[w + 1];
    if (op >= kExtOps) fail(w, fmt::format("unknown op {}", op));
    ExtInstr in{ExtOp(op), dst, a, b};
    const bool prologue = in.op == ExtOp::Const || in.op == ExtOp::Public;
    if (prologue && body) fail(w, "a constant or public value after the prologue");
    body = !prologue;
    if (!body) ++p.prologue;
    const bool reads_a = in.op != ExtOp::Load && !prologue, reads_b = in.op >= ExtOp::Add && in.op <= ExtOp::Mul;
    if (in.op == ExtOp::Load && a >= parts) fail(w, fmt::format("part {} of {}", a, parts));
    if (in.op == ExtOp::Const && b >= Fp::P) fail(w, fmt::format("constant {} is not below p", b));
    if (reads_a && (a >= kExtInterpreterSlots || !written[a])) fail(w, fmt::format("slot {} read unwritten", a));
    if (reads_b && (b >= kExtInterpreterSlots || !written[b])) fail(w, fmt::format("slot {} read unwritten", b));
    if (in.op != ExtOp::Fold) {
      if (dst >= kExtInterpreterSlots) fail(w, fmt::format("slot {} past {}", dst, kExtInterpreterSlots));
      written[dst] = 1;
      p.slots = std::max(p.slots, dst + 1);
    }
    p.code.push_back(in);
  }
  return p;
}

namespace {

// What a program reads, from a dispatch's views.
struct ExtInputs {
  std::vector<std::span<const Fp4>> parts;
  std::span<const Fp> pvs;
  std::span<const Fp4> coeffs;
  uint32_t log_len = 0, x_first = 0;
};

// ExecutionError naming the task when `p` reads past a view (the program may be a decoded one).
void check_reads(const ExtProgram& p, const ExtInputs& in, uint32_t first_root, std::string_view task) {
  const uint64_t len = uint64_t(1) << in.log_len;
  for (const ExtInstr& i : p.code) {
    const bool bad = (i.op == ExtOp::Load &&
                      (i.a >= p.parts || i.a >= in.parts.size() || (uint64_t(i.b) + 1) * len > in.parts[i.a].size())) ||
                     (i.op == ExtOp::Public && i.b >= in.pvs.size()) ||
                     (i.op == ExtOp::Fold && uint64_t(first_root) + i.b >= in.coeffs.size());
    if (bad)
      throw ExecutionError(fmt::format("task '{}': the extension program reads past a view (op {}, operand {})", task,
                                       uint32_t(i.op), i.b));
  }
}

// One body instruction of the base-field interpreter over its slots; `load` gives a Load's value, a
// Fold adds coeffs[b] times its slot to acc. Const and Public are the prologue's. (The Fp4 programs
// run over blocks of points: detail/ext_cpu_blocks.inl.)
template <class LoadFn>
inline void run_instr(const ExtInstr& i, std::vector<Fp>& r, Fp4& acc, const Fp4* coeffs, LoadFn&& load) {
  switch (i.op) {
    case ExtOp::Load:
      r[i.dst] = load(i);
      break;
    case ExtOp::Add:
      r[i.dst] = r[i.a] + r[i.b];
      break;
    case ExtOp::Sub:
      r[i.dst] = r[i.a] - r[i.b];
      break;
    case ExtOp::Mul:
      r[i.dst] = r[i.a] * r[i.b];
      break;
    case ExtOp::Neg:
      r[i.dst] = -r[i.a];
      break;
    case ExtOp::Fold:
      acc += coeffs[i.b] * r[i.a];
      break;
    default:
      break;
  }
}

// A program as the block bodies run it (detail/ext_cpu_program.hpp): its body widened, and the
// prologue's slots (Const: the Montgomery word; Public: the value) as (slot, word).
struct BlockProgram {
  std::vector<ext_cpu_detail::Instr> body;
  std::vector<std::pair<uint32_t, uint32_t>> fixed;
  uint32_t slots = 0;
};

BlockProgram block_program(const ExtProgram& p, std::span<const Fp> pvs) {
  static_assert(uint32_t(ExtOp::Load) == ext_cpu_detail::kOpLoad && uint32_t(ExtOp::Add) == ext_cpu_detail::kOpAdd &&
                uint32_t(ExtOp::Sub) == ext_cpu_detail::kOpSub && uint32_t(ExtOp::Mul) == ext_cpu_detail::kOpMul &&
                uint32_t(ExtOp::Neg) == ext_cpu_detail::kOpNeg && uint32_t(ExtOp::Fold) == ext_cpu_detail::kOpFold);
  BlockProgram b;
  b.slots = p.slots;
  for (uint32_t j = 0; j < p.prologue; ++j) {
    const ExtInstr& i = p.code[j];
    b.fixed.emplace_back(i.dst, i.op == ExtOp::Const ? i.b : pvs[i.b].mont());
  }
  for (size_t j = p.prologue; j < p.code.size(); ++j) {
    const ExtInstr& i = p.code[j];
    b.body.push_back({uint32_t(i.op), i.dst, i.a, i.b});
  }
  return b;
}

// One task's block scratch: the slots (64-byte aligned, grown to the largest program) and the sums.
class BlockScratch {
 public:
  uint32_t* regs(uint32_t slots) {
    const size_t words = size_t(slots ? slots : 1) * 4 * ext_cpu_detail::kPointLanes;
    if (words > words_) {
      mem_.reset(static_cast<uint32_t*>(::operator new[](words * 4, std::align_val_t(64))));
      words_ = words;
    }
    return mem_.get();
  }
  alignas(64) uint32_t acc[4 * ext_cpu_detail::kPointLanes];

 private:
  struct Free {
    void operator()(uint32_t* q) const { ::operator delete[](q, std::align_val_t(64)); }
  };
  std::unique_ptr<uint32_t[], Free> mem_;
  size_t words_ = 0;
};

// Adds program `b`'s sums at points first .. first + count - 1 (count <= kPointLanes) to s.acc
// (coordinate t of lane l at t kPointLanes + l), at the SIMD level `level`.
void run_block(const BlockProgram& b, const ext_cpu_detail::Points& pts, BlockScratch& s, SimdLevel level,
               uint64_t first, uint64_t count) {
  using ext_cpu_detail::kPointLanes;
  uint32_t* regs = s.regs(b.slots);
  for (const auto& [slot, word] : b.fixed) {
    uint32_t* r = regs + size_t(slot) * 4 * kPointLanes;
    for (uint32_t l = 0; l < kPointLanes; ++l) r[l] = word;
    std::fill(r + kPointLanes, r + 4 * kPointLanes, 0u);
  }
  const ext_cpu_detail::Body body{b.body.data(), b.body.size()};
  switch (level) {
    case SimdLevel::Avx512:
      return ext_cpu_detail::ext_block_avx512(body, pts, regs, first, count, s.acc);
    case SimdLevel::Avx2:
      return ext_cpu_detail::ext_block_avx2(body, pts, regs, first, count, s.acc);
    case SimdLevel::Scalar:
      return ext_cpu_detail::ext_block(body, pts, regs, first, count, s.acc);
  }
}

// out[o] = (or +=) lane o - first of the block's sums, for o < count.
void store_block(const BlockScratch& s, Fp4* out, uint64_t count, bool accumulate) {
  using ext_cpu_detail::kPointLanes;
  for (uint64_t l = 0; l < count; ++l) {
    const Fp4 v(Fp::from_mont(s.acc[l]), Fp::from_mont(s.acc[kPointLanes + l]),
                Fp::from_mont(s.acc[2 * kPointLanes + l]), Fp::from_mont(s.acc[3 * kPointLanes + l]));
    out[l] = accumulate ? out[l] + v : v;
  }
}

ExtInputs ext_inputs(const CpuContext& ctx, uint32_t parts) {
  constexpr uint32_t kPvSlot = kMaxViewArray, kCoeffSlot = kMaxViewArray + 1;
  ExtInputs in;
  for (uint32_t q = 0; q < parts; ++q) in.parts.push_back(ctx.view<Fp4>(q));
  in.pvs = ctx.view<Fp>(kPvSlot);
  in.coeffs = ctx.view<Fp4>(kCoeffSlot);
  in.log_len = ctx.scalars()[0];
  in.x_first = ctx.scalars()[1];
  return in;
}

// The block bodies' view of a dispatch's inputs; `words` holds the parts' pointers.
ext_cpu_detail::Points block_points(const ExtInputs& in, uint32_t first_root, std::vector<const uint32_t*>& words) {
  words.clear();
  for (const auto& part : in.parts) words.push_back(reinterpret_cast<const uint32_t*>(part.data()));
  return {.parts = words.data(),
          .log_len = in.log_len,
          .x_first = in.x_first,
          .coeffs = reinterpret_cast<const uint32_t*>(in.coeffs.data() + first_root)};
}

// The row-view parts a dispatch binds (unbound array slots are zero-count views).
uint32_t bound_parts(const CpuContext& ctx) {
  uint32_t parts = 0;
  for (uint32_t q = 0; q < kMaxViewArray; ++q)
    if (ctx.bindings()[q].buffer != kNoBuffer) parts = q + 1;
  return parts;
}

}  // namespace

void run_ext_program(const ExtProgram& p, const CpuContext& ctx) {
  constexpr uint32_t kOutSlot = kMaxViewArray + 2;
  const ExtInputs in = ext_inputs(ctx, p.parts);
  const std::span<Fp4> out = ctx.view<Fp4>(kOutSlot);
  const uint64_t points = ctx.grid().x;
  check_reads(p, in, 0, ctx.task_name());
  if (points > out.size())
    throw ExecutionError(fmt::format("task '{}': {} points, out has {}", ctx.task_name(), points, out.size()));
  using ext_cpu_detail::kPointLanes;
  const BlockProgram b = block_program(p, in.pvs);
  std::vector<const uint32_t*> words;
  const ext_cpu_detail::Points pts = block_points(in, 0, words);
  const SimdLevel level = cpu_simd_level();
  cpu::for_each_chunk((points + kPointLanes - 1) / kPointLanes,
                      [&](uint64_t begin, uint64_t end) {
                        BlockScratch s;
                        for (uint64_t blk = begin; blk < end; ++blk) {
                          const uint64_t first = blk * kPointLanes,
                                         count = std::min<uint64_t>(kPointLanes, points - first);
                          std::fill(std::begin(s.acc), std::end(s.acc), 0u);
                          run_block(b, pts, s, level, first, count);
                          store_block(s, out.data() + first, count, true);
                        }
                      },
                      1);
}

std::vector<uint32_t> encode_fused_programs(std::span<const std::vector<uint32_t>> programs,
                                            std::span<const uint32_t> first_roots) {
  if (programs.size() != first_roots.size())
    throw InputError(fmt::format("{} programs and {} first roots", programs.size(), first_roots.size()));
  std::vector<uint32_t> words(3 * programs.size());
  for (size_t c = 0; c < programs.size(); ++c) {
    if (words.size() + programs[c].size() >= (uint64_t(1) << 32))
      throw InputError("the fused programs need 2^32 words or more");
    words[3 * c] = uint32_t(words.size());
    words[3 * c + 1] = uint32_t(programs[c].size());
    words[3 * c + 2] = first_roots[c];
    words.insert(words.end(), programs[c].begin(), programs[c].end());
  }
  return words;
}

FusedPrograms decode_fused_programs(std::span<const uint32_t> words, uint32_t chunks, uint32_t parts,
                                    std::string_view task) {
  if (uint64_t(3) * chunks > words.size())
    throw ExecutionError(fmt::format("task '{}': {} chunks need a {}-word directory, the program has {} words", task,
                                     chunks, uint64_t(3) * chunks, words.size()));
  FusedPrograms f;
  for (uint32_t c = 0; c < chunks; ++c) {
    const uint64_t at = words[3 * c], n = words[3 * c + 1];
    if (at < uint64_t(3) * chunks || at + n > words.size())
      throw ExecutionError(
          fmt::format("task '{}': chunk {}'s program (words {} to {}) is outside the program's {} "
                      "words after the directory",
                      task, c, at, at + n, words.size()));
    f.programs.push_back(decode_ext_program(words.subspan(at, n), parts, task));
    f.first_roots.push_back(words[3 * c + 2]);
  }
  return f;
}

namespace {

// s[MAX] holds the slots; program words as encode_ext_program. A read R(a, c) is the GLSL body's
// R<p>(c) with the part a run-time index (dynamically uniform: every invocation runs the program).
std::string interpreter_glsl_body() {
  return fmt::format(
      "#include \"fp4.glsl\"\n"
      "#define MAX {0}u\n"
      "void main() {{\n"
      "  const uint o = vks_index_x();\n"
      "  if (o >= pc.grid_x) return;\n"
      "  const uint len = 1u << pc.log_len;\n"
      "  const uint ylog = pc.log_len == 0u ? 0u : pc.log_len - 1u;\n"
      "  const uint y2 = 2u * (o & ((1u << ylog) - 1u));\n"
      "  const uint gx = fp_from_canonical(pc.x_first + (o >> ylog));\n"
      "  uvec4 s[MAX];\n"
      "  uvec4 acc = uvec4(0u);\n"
      "  for (uint i = 0u; i + 1u < pc.program_len; i += 2u) {{\n"
      "    const uint w = program_[pc.program_off + i], b = program_[pc.program_off + i + 1u];\n"
      "    const uint d = (w >> 4) & (MAX - 1u), a = w >> 16;\n"
      "    switch (w & 15u) {{\n"
      "      case 0u: {{\n"
      "        const uint q = min(a, {1}u), at = pc.parts_off[q] + b * len + y2;\n"
      "        const uvec4 t0 = parts_[q].data[at];\n"
      "        s[d] = gx == 0u ? t0 : fp4_add(t0, fp4_scale(fp4_sub(parts_[q].data[at + 1u], t0), gx));\n"
      "        break;\n"
      "      }}\n"
      "      case 1u: s[d] = uvec4(b, 0u, 0u, 0u); break;\n"
      "      case 2u: s[d] = uvec4(public_values_[pc.public_values_off + b], 0u, 0u, 0u); break;\n"
      "      case 3u: s[d] = fp4_add(s[a & (MAX - 1u)], s[b & (MAX - 1u)]); break;\n"
      "      case 4u: s[d] = fp4_sub(s[a & (MAX - 1u)], s[b & (MAX - 1u)]); break;\n"
      "      case 5u: s[d] = fp4_mul(s[a & (MAX - 1u)], s[b & (MAX - 1u)]); break;\n"
      "      case 6u: s[d] = fp4_neg(s[a & (MAX - 1u)]); break;\n"
      "      default: acc = fp4_add(acc, fp4_mul(coeffs_[pc.coeffs_off + b], s[a & (MAX - 1u)])); break;\n"
      "    }}\n"
      "  }}\n"
      "  out_[pc.out_off + o] = fp4_add(out_[pc.out_off + o], acc);\n"
      "}}\n",
      kExtInterpreterSlots, kMaxViewArray - 1);
}

// The pieces in which the two fused interpreters differ (the rest is one text, fused_glsl).
struct FusedGlsl {
  const char* setup;   // after sl: the point's values the loads need
  const char* slot;    // the slot type
  const char* load;    // statements setting s[d] for a Load of column b of part q
  const char* konst;   // Const b (Montgomery form) as a slot value
  const char* pub;     // public value b as a slot value
  const char* f;       // the slot field's function prefix (fp4, fp)
  const char* coeffs;  // the coefficients' view
  const char* fold;    // acc's update from coefficient k and slot v
  const char* store;   // out_[at]'s new value
};

std::string fused_glsl(const FusedGlsl& v) {
  return fmt::format(
      "#include \"fp4.glsl\"\n"
      "#define MAX {0}u\n"
      "void main() {{\n"
      "  const uint o = vks_index_x();\n"
      "  if (o >= pc.grid_x) return;\n"
      "  const uint sl = vks_index_y();\n"
      "{2}"
      "  {3} s[MAX];\n"
      "  uvec4 acc = uvec4(0u);\n"
      "  for (uint c = sl; c < pc.chunks; c += pc.grid_y) {{\n"
      "    const uint first = pc.program_off + program_[pc.program_off + 3u * c];\n"
      "    const uint end = first + program_[pc.program_off + 3u * c + 1u];\n"
      "    const uint k0 = pc.{8}_off + program_[pc.program_off + 3u * c + 2u];\n"
      "    for (uint i = first; i + 1u < end; i += 2u) {{\n"
      "      const uint w = program_[i], b = program_[i + 1u];\n"
      "      const uint d = (w >> 4) & (MAX - 1u), a = w >> 16;\n"
      "      switch (w & 15u) {{\n"
      "        case 0u: {{\n"
      "          const uint q = min(a, {1}u);\n"
      "{4}"
      "          break;\n"
      "        }}\n"
      "        case 1u: s[d] = {5}; break;\n"
      "        case 2u: s[d] = {6}; break;\n"
      "        case 3u: s[d] = {7}_add(s[a & (MAX - 1u)], s[b & (MAX - 1u)]); break;\n"
      "        case 4u: s[d] = {7}_sub(s[a & (MAX - 1u)], s[b & (MAX - 1u)]); break;\n"
      "        case 5u: s[d] = {7}_mul(s[a & (MAX - 1u)], s[b & (MAX - 1u)]); break;\n"
      "        case 6u: s[d] = {7}_neg(s[a & (MAX - 1u)]); break;\n"
      "        default: {{\n"
      "          const uvec4 k = {8}_[k0 + b];\n"
      "          const {3} v = s[a & (MAX - 1u)];\n"
      "          acc = fp4_add(acc, {9});\n"
      "          break;\n"
      "        }}\n"
      "      }}\n"
      "    }}\n"
      "  }}\n"
      "  const uint at = pc.out_off + sl * pc.grid_x + o;\n"
      "  out_[at] = {10};\n"
      "}}\n",
      kExtInterpreterSlots, kMaxViewArray - 1, v.setup, v.slot, v.load, v.konst, v.pub, v.f, v.coeffs, v.fold, v.store);
}

// The Fp4 fused interpreter: the per-chunk interpreter's body, looping over the chunks of slice s
// (see ExtFusedArgs).
std::string fused_glsl_body(bool accumulate) {
  return fused_glsl({.setup = "  const uint len = 1u << pc.log_len;\n"
                              "  const uint ylog = pc.log_len == 0u ? 0u : pc.log_len - 1u;\n"
                              "  const uint y2 = 2u * (o & ((1u << ylog) - 1u));\n"
                              "  const uint gx = fp_from_canonical(pc.x_first + (o >> ylog));\n",
                     .slot = "uvec4",
                     .load = "          const uint at = pc.parts_off[q] + b * len + y2;\n"
                             "          const uvec4 t0 = parts_[q].data[at];\n"
                             "          s[d] = gx == 0u ? t0 : fp4_add(t0, fp4_scale(fp4_sub(parts_[q].data[at + 1u], "
                             "t0), gx));\n",
                     .konst = "uvec4(b, 0u, 0u, 0u)",
                     .pub = "uvec4(public_values_[pc.public_values_off + b], 0u, 0u, 0u)",
                     .f = "fp4",
                     .coeffs = "coeffs",
                     .fold = "fp4_mul(k, v)",
                     .store = accumulate ? "fp4_add(out_[at], acc)" : "acc"});
}

// The interpreters' rules see the views, not the programs' reads (the CPU bodies check those when
// they decode the program): whole columns of tables, points the interpolation can address, a
// directory of `chunks` entries.
std::string interpreter_problem(const ExtInterpreterArgs& a) {
  if (std::string p = constraint_parts_problem(view_counts(a.parts), a.log_len, 30); !p.empty()) return p;
  return ext_points_problem(a.log_len, a.x_first, a.out.view.count);
}

template <class Args>
Grid fused_grid(const Args& a) {
  return {a.slices == 0 ? 0 : detail::grid_dim(a.out.view.count / a.slices), a.slices};
}

template <class Args>
std::string fused_problem(const Args& a) {
  if (a.slices == 0 || a.out.view.count % a.slices != 0)
    return fmt::format("out has {} values, not {} slices of the points", a.out.view.count, a.slices);
  if (std::string p = constraint_parts_problem(view_counts(a.parts), a.log_len, 30); !p.empty()) return p;
  if (std::string p = ext_points_problem(a.log_len, a.x_first, a.out.view.count / a.slices); !p.empty()) return p;
  if (a.chunks == 0 || a.program.view.count / 3 < a.chunks)
    return fmt::format("{} chunks, the program's directory has room for {}", a.chunks, a.program.view.count / 3);
  return {};
}

}  // namespace

const std::shared_ptr<const KernelInfo>& ext_interpreter_kernel() {
  static const std::shared_ptr<const KernelInfo> kernel =
      make_glsl_kernel({.name = "ext_constraint_interpreter",
                        .abi = kernel_abi<ExtInterpreterArgs>(),
                        .body = interpreter_glsl_body(),
                        .workgroup_size = 64,
                        .cpu =
                            [](const CpuContext& ctx) {
                              const ExtProgram p = decode_ext_program(ctx.view<uint32_t>(kMaxViewArray + 3),
                                                                      bound_parts(ctx), ctx.task_name());
                              run_ext_program(p, ctx);
                            },
                        .grid = over_args<ExtInterpreterArgs>(
                            [](const ExtInterpreterArgs& a) { return Grid{detail::grid_dim(a.out.view.count)}; }),
                        .check = over_args<ExtInterpreterArgs>(interpreter_problem)});
  return kernel;
}

namespace {

// The fused kernel's CPU body: tasks of (slice, block of points), each running its slice's chunks
// over its points into a local sum, then writing (adding) it.
void run_fused(const CpuContext& ctx, bool accumulate) {
  constexpr uint32_t kOutSlot = kMaxViewArray + 2, kProgramSlot = kMaxViewArray + 3;
  const uint32_t parts = bound_parts(ctx);
  const uint32_t chunks = ctx.scalars()[2];
  const FusedPrograms f = decode_fused_programs(ctx.view<uint32_t>(kProgramSlot), chunks, parts, ctx.task_name());
  const ExtInputs in = ext_inputs(ctx, parts);
  for (uint32_t c = 0; c < chunks; ++c) check_reads(f.programs[c], in, f.first_roots[c], ctx.task_name());
  const std::span<Fp4> out = ctx.view<Fp4>(kOutSlot);
  const uint64_t points = ctx.grid().x, slices = ctx.grid().y;
  if (points * slices > out.size())
    throw ExecutionError(fmt::format("task '{}': {} points x {} slices, out has {} values", ctx.task_name(), points,
                                     slices, out.size()));
  using ext_cpu_detail::kPointLanes;
  std::vector<BlockProgram> programs;
  for (const ExtProgram& p : f.programs) programs.push_back(block_program(p, in.pvs));
  std::vector<std::vector<const uint32_t*>> words(chunks);
  std::vector<ext_cpu_detail::Points> pts;
  for (uint32_t c = 0; c < chunks; ++c) pts.push_back(block_points(in, f.first_roots[c], words[c]));
  const SimdLevel level = cpu_simd_level();
  const uint64_t blocks = (points + kPointLanes - 1) / kPointLanes;
  cpu::for_each_chunk(
      blocks * slices,
      [&](uint64_t begin, uint64_t end) {
        BlockScratch s;
        for (uint64_t t = begin; t < end; ++t) {
          const uint64_t sl = t / blocks, first = (t % blocks) * kPointLanes;
          const uint64_t count = std::min<uint64_t>(kPointLanes, points - first);
          std::fill(std::begin(s.acc), std::end(s.acc), 0u);
          for (uint64_t c = sl; c < chunks; c += slices) run_block(programs[c], pts[c], s, level, first, count);
          store_block(s, out.data() + sl * points + first, count, accumulate);
        }
      },
      1);
}

}  // namespace

const std::shared_ptr<const KernelInfo>& ext_fused_kernel(bool accumulate) {
  static const std::shared_ptr<const KernelInfo> write =
      make_glsl_kernel({.name = "ext_constraint_interpreter_fused",
                        .abi = kernel_abi<ExtFusedArgs>(),
                        .body = fused_glsl_body(false),
                        .workgroup_size = 64,
                        .cpu = [](const CpuContext& ctx) { run_fused(ctx, false); },
                        .grid = over_args<ExtFusedArgs>(fused_grid<ExtFusedArgs>),
                        .check = over_args<ExtFusedArgs>(fused_problem<ExtFusedArgs>)});
  static const std::shared_ptr<const KernelInfo> add =
      make_glsl_kernel({.name = "ext_constraint_interpreter_fused_add",
                        .abi = kernel_abi<ExtFusedAddArgs>(),
                        .body = fused_glsl_body(true),
                        .workgroup_size = 64,
                        .cpu = [](const CpuContext& ctx) { run_fused(ctx, true); },
                        .grid = over_args<ExtFusedAddArgs>(fused_grid<ExtFusedAddArgs>),
                        .check = over_args<ExtFusedAddArgs>(fused_problem<ExtFusedAddArgs>)});
  return accumulate ? add : write;
}

namespace {

// The base-field fused interpreter (BaseFusedArgs, stages/compiler/constraint_kernel.hpp):
// compile_ext_program's programs over base-field slots, a Load reading column b of part a at row o.
std::string base_fused_glsl_body() {
  return fused_glsl({.setup = "  const uint h = 1u << pc.log_height;\n",
                     .slot = "uint",
                     .load = "          s[d] = parts_[q].data[pc.parts_off[q] + b * h + o];\n",
                     .konst = "b",
                     .pub = "public_values_[pc.public_values_off + b]",
                     .f = "fp",
                     .coeffs = "lambda_powers",
                     .fold = "fp4_scale(k, v)",
                     .store = "acc"});
}

// Its CPU body: tasks of (slice, block of rows), each running its slice's chunks over its rows.
void run_base_fused(const CpuContext& ctx) {
  constexpr uint32_t kPvSlot = kMaxViewArray, kCoeffSlot = kMaxViewArray + 1, kOutSlot = kMaxViewArray + 2,
                     kProgramSlot = kMaxViewArray + 3;
  const uint32_t nparts = bound_parts(ctx);
  const uint32_t log_height = ctx.scalars()[0], chunks = ctx.scalars()[1];
  const FusedPrograms f = decode_fused_programs(ctx.view<uint32_t>(kProgramSlot), chunks, nparts, ctx.task_name());
  std::vector<std::span<const Fp>> parts;
  for (uint32_t q = 0; q < nparts; ++q) parts.push_back(ctx.view<Fp>(q));
  const std::span<const Fp> pvs = ctx.view<Fp>(kPvSlot);
  const std::span<const Fp4> coeffs = ctx.view<Fp4>(kCoeffSlot);
  const std::span<Fp4> out = ctx.view<Fp4>(kOutSlot);
  const uint64_t h = uint64_t(1) << log_height, points = ctx.grid().x, slices = ctx.grid().y;
  for (uint32_t c = 0; c < chunks; ++c)
    for (const ExtInstr& i : f.programs[c].code) {
      const bool bad = (i.op == ExtOp::Load && (i.a >= parts.size() || (uint64_t(i.b) + 1) * h > parts[i.a].size())) ||
                       (i.op == ExtOp::Public && i.b >= pvs.size()) ||
                       (i.op == ExtOp::Fold && uint64_t(f.first_roots[c]) + i.b >= coeffs.size());
      if (bad)
        throw ExecutionError(fmt::format("task '{}': the base-field program reads past a view (op {}, operand {})",
                                         ctx.task_name(), uint32_t(i.op), i.b));
    }
  if (points > h || points * slices > out.size())
    throw ExecutionError(fmt::format("task '{}': {} rows x {} slices, height {} and {} output values", ctx.task_name(),
                                     points, slices, h, out.size()));
  constexpr uint64_t kBlock = 64;
  const uint64_t blocks = (points + kBlock - 1) / kBlock;
  cpu::for_each_chunk(
      blocks * slices,
      [&](uint64_t begin, uint64_t end) {
        std::vector<Fp> r;
        for (uint64_t t = begin; t < end; ++t) {
          const uint64_t sl = t / blocks, b0 = (t % blocks) * kBlock, b1 = std::min(points, b0 + kBlock);
          Fp4* dst = out.data() + sl * points;
          for (uint64_t o = b0; o < b1; ++o) dst[o] = Fp4();
          for (uint64_t c = sl; c < chunks; c += slices) {
            const ExtProgram& p = f.programs[c];
            const Fp4* k = coeffs.data() + f.first_roots[c];
            r.assign(p.slots, Fp());
            for (uint32_t j = 0; j < p.prologue; ++j) {
              const ExtInstr& i = p.code[j];
              r[i.dst] = i.op == ExtOp::Const ? Fp::from_mont(i.b) : pvs[i.b];
            }
            for (uint64_t o = b0; o < b1; ++o) {
              Fp4 acc;
              for (size_t j = p.prologue; j < p.code.size(); ++j)
                run_instr(p.code[j], r, acc, k, [&](const ExtInstr& ld) { return parts[ld.a][ld.b * h + o]; });
              dst[o] += acc;
            }
          }
        }
      },
      1);
}

// Grid (H, S): S = out.count / H slices of the rows.
Grid base_fused_grid(const BaseFusedArgs& a) {
  const uint64_t h = a.log_height > 31 ? 0 : uint64_t(1) << a.log_height;
  return {detail::grid_dim(h), h == 0 ? 0 : detail::grid_dim(a.out.view.count / h)};
}

std::string base_fused_problem(const BaseFusedArgs& a) {
  if (std::string p = constraint_parts_problem(view_counts(a.parts), a.log_height, 31); !p.empty()) return p;
  const uint64_t h = uint64_t(1) << a.log_height;
  if (a.out.view.count == 0 || a.out.view.count % h != 0)
    return fmt::format("out has {} values, not slices of height {}", a.out.view.count, h);
  if (a.chunks == 0 || a.program.view.count / 3 < a.chunks)
    return fmt::format("{} chunks, the program's directory has room for {}", a.chunks, a.program.view.count / 3);
  return {};
}

}  // namespace

const std::shared_ptr<const KernelInfo>& base_fused_kernel() {
  static const std::shared_ptr<const KernelInfo> kernel =
      make_glsl_kernel({.name = "base_constraint_interpreter_fused",
                        .abi = kernel_abi<BaseFusedArgs>(),
                        .body = base_fused_glsl_body(),
                        .workgroup_size = 64,
                        .cpu = run_base_fused,
                        .grid = over_args<BaseFusedArgs>(base_fused_grid),
                        .check = over_args<BaseFusedArgs>(base_fused_problem)});
  return kernel;
}

}  // namespace vkstark
