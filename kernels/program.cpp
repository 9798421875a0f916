// Decoding and validation of scalar programs (kernels/program.hpp), shared by the CPU body and by
// ProgramBuilder. kernels/glsl/scalar_program.comp applies the same rules word for word.
#include "kernels/program.hpp"

#include <fmt/format.h>

#include "kernels/field/fp.hpp"

namespace vkstark {

namespace {

using enum ProgramField;

std::string field_problem(char name, ProgramField kind, uint32_t v, size_t in_count, size_t out_count) {
  switch (kind) {
    case Unused:
      if (v != 0) return fmt::format("field {} is {}, unused by the op (must be 0)", name, v);
      return {};
    case Reg:
      if (v >= kProgramRegisters)
        return fmt::format("register r{} (field {}) is not below {}", v, name, kProgramRegisters);
      return {};
    case InSlot:
      if (v >= in_count) return fmt::format("in-view slot {} (field {}), {} in-views passed", v, name, in_count);
      return {};
    case OutSlot:
      if (v >= out_count) return fmt::format("out-view slot {} (field {}), {} out-views passed", v, name, out_count);
      return {};
  }
  return {};
}

// "" when [first, first + (n - 1) stride] lies inside [0, size) (or n = 0).
bool strided_range_inside(uint64_t first, uint64_t n, uint64_t stride, uint64_t size) {
  if (n == 0) return true;
  if (first >= size) return false;
  return stride == 0 || (n - 1) <= (size - 1 - first) / stride;
}

}  // namespace

std::string decode_program_instruction(std::span<const uint32_t> code, size_t pos, std::span<const uint64_t> in_words,
                                       std::span<const uint64_t> out_words, ProgramInstruction& out) {
  const uint32_t w = code[pos];
  const uint32_t op = w & 0xFFu;
  if (op == 0 || op >= kProgramOpCount) return fmt::format("unknown op {}", op);
  const ProgramOpShape& s = kProgramOpShapes[op];
  if (code.size() - pos - 1 < s.immediates)
    return fmt::format("{} needs {} immediate words, {} left", s.name, s.immediates, code.size() - pos - 1);
  ProgramInstruction ins;
  ins.op = ProgramOp(op);
  ins.a = (w >> 8) & 0xFFu;
  ins.b = (w >> 16) & 0xFFu;
  ins.c = w >> 24;
  ins.words = 1 + s.immediates;
  for (uint32_t i = 0; i < s.immediates; ++i) ins.imm[i] = code[pos + 1 + i];
  for (auto [name, kind, v] : {std::tuple{'a', s.a, ins.a}, std::tuple{'b', s.b, ins.b}, std::tuple{'c', s.c, ins.c}})
    if (std::string p = field_problem(name, kind, v, in_words.size(), out_words.size()); !p.empty())
      return fmt::format("{}: {}", s.name, p);
  const auto& imm = ins.imm;
  switch (ins.op) {
    case ProgramOp::Const:
      for (uint32_t i = 0; i < 4; ++i)
        if (imm[i] >= Fp::P) return fmt::format("const: coefficient {} = {} is not below p", i, imm[i]);
      break;
    case ProgramOp::Load:
      if (imm[0] >= in_words[ins.b])
        return fmt::format("load: word {} of in-view {} ({} words)", imm[0], ins.b, in_words[ins.b]);
      break;
    case ProgramOp::LoadExt:
      if (imm[0] >= in_words[ins.b] / 4)
        return fmt::format("load_ext: entry {} of in-view {} ({} words)", imm[0], ins.b, in_words[ins.b]);
      break;
    case ProgramOp::Store:
      if (imm[0] >= out_words[ins.b])
        return fmt::format("store: word {} of out-view {} ({} words)", imm[0], ins.b, out_words[ins.b]);
      break;
    case ProgramOp::StoreExt:
      if (imm[0] >= out_words[ins.b] / 4)
        return fmt::format("store_ext: entry {} of out-view {} ({} words)", imm[0], ins.b, out_words[ins.b]);
      break;
    case ProgramOp::SumExt:
      if (!strided_range_inside(imm[0], imm[1], imm[2], in_words[ins.b] / 4))
        return fmt::format("sum_ext: {} entries from {} at stride {} leave in-view {} ({} words)", imm[1], imm[0],
                           imm[2], ins.b, in_words[ins.b]);
      break;
    case ProgramOp::ObserveIn:
      if (imm[0] > in_words[ins.b] || imm[1] > in_words[ins.b] - imm[0])
        return fmt::format("observe_in: {} words from {} leave in-view {} ({} words)", imm[1], imm[0], ins.b,
                           in_words[ins.b]);
      break;
    default:
      break;
  }
  out = ins;
  return {};
}

std::string program_problem(std::span<const uint32_t> code, std::span<const uint64_t> in_words,
                            std::span<const uint64_t> out_words) {
  for (size_t pos = 0; pos < code.size();) {
    ProgramInstruction ins;
    if (std::string p = decode_program_instruction(code, pos, in_words, out_words, ins); !p.empty())
      return fmt::format("instruction at word {}: {}", pos, p);
    pos += ins.words;
  }
  return {};
}

std::string program_listing(std::span<const uint32_t> code) {
  std::string out;
  for (size_t pos = 0; pos < code.size();) {
    const uint32_t w = code[pos], op = w & 0xFFu;
    if (op == 0 || op >= kProgramOpCount || code.size() - pos - 1 < kProgramOpShapes[op].immediates) {
      out += fmt::format("{:5}: invalid word 0x{:08x}\n", pos, w);
      ++pos;
      continue;
    }
    const ProgramOpShape& s = kProgramOpShapes[op];
    out += fmt::format("{:5}: {}", pos, s.name);
    const char* sep = " ";
    for (auto [kind, v] :
         {std::pair{s.a, (w >> 8) & 0xFFu}, std::pair{s.b, (w >> 16) & 0xFFu}, std::pair{s.c, w >> 24}}) {
      if (kind == Unused) continue;
      out += fmt::format("{}{}{}", sep, kind == Reg ? "r" : kind == InSlot ? "in" : "out", v);
      sep = ", ";
    }
    for (uint32_t i = 0; i < s.immediates; ++i) {
      out += fmt::format("{}{}", sep, code[pos + 1 + i]);
      sep = ", ";
    }
    out += "\n";
    pos += 1 + s.immediates;
  }
  return out;
}

}  // namespace vkstark
