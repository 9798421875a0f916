// CPU body of ScalarProgram (kernels/program.hpp): an interpreter over the host DuplexSponge, with
// the semantics the GLSL body has, invalid instructions included (it stops at the first).
#include <vector>

#include "kernels/hash/transcript.hpp"
#include "kernels/program.hpp"

namespace vkstark {

namespace {

Fp4 load_entry(std::span<const uint32_t> words, uint64_t entry) {
  return {Fp::from_mont(words[4 * entry]), Fp::from_mont(words[4 * entry + 1]), Fp::from_mont(words[4 * entry + 2]),
          Fp::from_mont(words[4 * entry + 3])};
}

}  // namespace

void ScalarProgram::cpu(const Args& a, const CpuContext& ctx) {
  const std::span<const uint32_t> code = ctx.span(a.code);
  std::vector<std::span<const uint32_t>> in;
  std::vector<std::span<uint32_t>> out;
  std::vector<uint64_t> in_words, out_words;
  for (uint32_t k = 0; k < a.in.count; ++k) {
    in.push_back(ctx.span(a.in, k));
    in_words.push_back(in.back().size());
  }
  for (uint32_t k = 0; k < a.out.count; ++k) {
    out.push_back(ctx.span(a.out, k));
    out_words.push_back(out.back().size());
  }
  SpongeState& state = ctx.span(a.t)[0];
  DuplexSponge t = DuplexSponge::from_state(state.state, state.absorb_idx, state.sample_idx);
  std::array<Fp4, kProgramRegisters> r{};
  for (size_t pos = 0; pos < code.size();) {
    ProgramInstruction ins;
    if (!decode_program_instruction(code, pos, in_words, out_words, ins).empty()) break;  // the device stops too
    pos += ins.words;
    const auto& imm = ins.imm;
    switch (ins.op) {
      case ProgramOp::Const:
        r[ins.a] = {Fp::from_canonical_unchecked(imm[0]), Fp::from_canonical_unchecked(imm[1]),
                    Fp::from_canonical_unchecked(imm[2]), Fp::from_canonical_unchecked(imm[3])};
        break;
      case ProgramOp::Load:
        r[ins.a] = Fp4(Fp::from_mont(in[ins.b][imm[0]]));
        break;
      case ProgramOp::LoadExt:
        r[ins.a] = load_entry(in[ins.b], imm[0]);
        break;
      case ProgramOp::Store:
        out[ins.b][imm[0]] = r[ins.a].c[0].mont();
        break;
      case ProgramOp::StoreExt:
        for (uint32_t i = 0; i < 4; ++i) out[ins.b][4 * uint64_t(imm[0]) + i] = r[ins.a].c[i].mont();
        break;
      case ProgramOp::Add:
        r[ins.a] = r[ins.b] + r[ins.c];
        break;
      case ProgramOp::Sub:
        r[ins.a] = r[ins.b] - r[ins.c];
        break;
      case ProgramOp::Mul:
        r[ins.a] = r[ins.b] * r[ins.c];
        break;
      case ProgramOp::Inv:
        r[ins.a] = r[ins.b].is_zero() ? Fp4::zero() : r[ins.b].inverse();
        break;
      case ProgramOp::SumExt: {
        Fp4 s = Fp4::zero();
        for (uint64_t j = 0; j < imm[1]; ++j) s += load_entry(in[ins.b], imm[0] + j * imm[2]);
        r[ins.a] = s;
        break;
      }
      case ProgramOp::Observe:
        t.observe(r[ins.a].c[0]);
        break;
      case ProgramOp::ObserveExt:
        t.observe_ext(r[ins.a]);
        break;
      case ProgramOp::ObserveIn:
        for (uint64_t j = 0; j < imm[1]; ++j) t.observe(Fp::from_mont(in[ins.b][imm[0] + j]));
        break;
      case ProgramOp::Sample:
        r[ins.a] = Fp4(t.sample());
        break;
      case ProgramOp::SampleExt:
        r[ins.a] = t.sample_ext();
        break;
    }
  }
  state = {t.state(), t.absorb_idx(), t.sample_idx()};
}

}  // namespace vkstark
