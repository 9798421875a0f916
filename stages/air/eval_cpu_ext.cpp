// The CPU body of the extension-field constraint kernel (stages/air/ext_kernel.hpp): the chunk's
// DAG compiled once into a short instruction stream over Fp4 slots (one per node the roots reach;
// a chunk has at most a few hundred), interpreted point by point, in parallel over points, one slot
// file per run of points. Trace reads interpolate the tables as the GLSL body does; constants and
// public values are loaded into their slots once per run.
#include <fmt/format.h>

#include <vector>

#include "kernels/cpu/parallel.hpp"
#include "runtime/error.hpp"
#include "stages/air/constraint_kernel.hpp"
#include "stages/air/eval.hpp"

namespace vkstark {

namespace {

enum class XOp : uint8_t { Load, Add, Sub, Mul, Neg, Fold };
struct XInstr {
  XOp op;
  uint32_t dst = 0;  // slot written (Fold: the term index)
  uint32_t a = 0;    // Load: the part; else a slot
  uint32_t b = 0;    // Load: the column; else a slot
};

struct ExtProgram {
  std::vector<XInstr> code;
  std::vector<std::pair<uint32_t, Fp>> constants;           // slot, value
  std::vector<std::pair<uint32_t, uint32_t>> public_reads;  // slot, public value index
  uint32_t slots = 0, parts = 0, num_public_values = 0;
};

ExtProgram compile(const SymbolicDag& dag, const AirShape& shape) {
  const size_t n = dag.nodes.size();
  const std::vector<uint32_t> widths = shape.row_view_widths();
  std::vector<uint8_t> need(n, 0);
  for (uint32_t c : dag.constraint_idx) {
    if (c >= n) throw InputError(fmt::format("constraint DAG: constraint node {} of {} nodes", c, n));
    need[c] = 1;
  }
  for (size_t i = n; i-- > 0;) {
    const DagNode& d = dag.nodes[i];
    if (!need[i]) continue;
    const bool arith =
        d.kind == NodeKind::Add || d.kind == NodeKind::Sub || d.kind == NodeKind::Mul || d.kind == NodeKind::Neg;
    if (!arith) continue;
    const bool binary = d.kind != NodeKind::Neg;
    if (d.left >= i || (binary && d.right >= i))
      throw InputError(fmt::format("constraint DAG: node {} reads a node that is not before it", i));
    need[d.left] = 1;
    if (binary) need[d.right] = 1;
  }
  ExtProgram p;
  p.parts = uint32_t(widths.size());
  std::vector<uint32_t> slot(n, 0);
  for (size_t i = 0; i < n; ++i) {
    if (!need[i]) continue;
    const DagNode& d = dag.nodes[i];
    const uint32_t s = slot[i] = p.slots++;
    switch (d.kind) {
      case NodeKind::Constant:
        p.constants.emplace_back(s, d.constant);
        break;
      case NodeKind::Variable: {
        const Variable& v = d.var;
        if (v.entry == EntryKind::Public) {
          if (v.index >= shape.num_public_values)
            throw InputError(
                fmt::format("DAG node {} reads public value {}, the AIR has {}", i, v.index, shape.num_public_values));
          p.public_reads.emplace_back(s, v.index);
          p.num_public_values = std::max(p.num_public_values, v.index + 1);
          break;
        }
        if (v.entry == EntryKind::Challenge)
          throw InputError("the constraint DAG reads a challenge variable, which vkstark does not support");
        const bool ok = v.entry == EntryKind::Main ? v.part <= shape.num_cached() : shape.preprocessed_width > 0;
        const uint32_t part = ok ? row_view_part(v, shape) : ~0u;
        if (part >= widths.size() || v.index >= widths[part])
          throw InputError(fmt::format("DAG node {} reads {}, which the AIR's parts do not have", i, to_string(v)));
        if (v.offset != 0)
          throw InputError(
              fmt::format("DAG node {} reads the next row: the extension kernel reads local tables only", i));
        p.code.push_back({XOp::Load, s, part, v.index});
        break;
      }
      case NodeKind::Add:
        p.code.push_back({XOp::Add, s, slot[d.left], slot[d.right]});
        break;
      case NodeKind::Sub:
        p.code.push_back({XOp::Sub, s, slot[d.left], slot[d.right]});
        break;
      case NodeKind::Mul:
        p.code.push_back({XOp::Mul, s, slot[d.left], slot[d.right]});
        break;
      case NodeKind::Neg:
        p.code.push_back({XOp::Neg, s, slot[d.left], 0});
        break;
      default:
        throw InputError(
            fmt::format("DAG node {} is a selector: the extension kernel reads selectors as table columns", i));
    }
  }
  for (uint32_t k = 0; k < dag.constraint_idx.size(); ++k)
    p.code.push_back({XOp::Fold, k, slot[dag.constraint_idx[k]], 0});
  return p;
}

}  // namespace

std::function<void(const CpuContext&)> ext_constraint_cpu_body(const SymbolicDag& dag, const AirShape& shape) {
  constexpr uint32_t kPvSlot = kMaxViewArray, kCoeffSlot = kMaxViewArray + 1, kOutSlot = kMaxViewArray + 2;
  auto program = std::make_shared<const ExtProgram>(compile(dag, shape));
  if (program->parts > kMaxViewArray)
    throw InputError(fmt::format("extension kernel: {} row-view parts, at most {}", program->parts, kMaxViewArray));
  return [program](const CpuContext& ctx) {
    const ExtProgram& p = *program;
    std::vector<std::span<const Fp4>> parts;
    for (uint32_t q = 0; q < p.parts; ++q) parts.push_back(ctx.view<Fp4>(q));
    const std::span<const Fp> pvs = ctx.view<Fp>(kPvSlot);
    const std::span<const Fp4> coeffs = ctx.view<Fp4>(kCoeffSlot);
    const std::span<Fp4> out = ctx.view<Fp4>(kOutSlot);
    const uint32_t log_len = ctx.scalars()[0], x_first = ctx.scalars()[1];
    const uint64_t len = uint64_t(1) << log_len, ylog = log_len == 0 ? 0 : log_len - 1;
    const uint64_t points = ctx.grid().x;
    cpu::for_each_chunk(
        points,
        [&](uint64_t begin, uint64_t end) {
          std::vector<Fp4> r(p.slots);
          for (const auto& [s, v] : p.constants) r[s] = Fp4(v);
          for (const auto& [s, i] : p.public_reads) r[s] = Fp4(pvs[i]);
          for (uint64_t o = begin; o < end; ++o) {
            const uint64_t y = o & ((uint64_t(1) << ylog) - 1), x = x_first + (o >> ylog);
            const Fp xf = Fp::from_canonical_unchecked(uint32_t(x));
            Fp4 acc;
            for (const XInstr& in : p.code) {
              switch (in.op) {
                case XOp::Load: {
                  const Fp4* t = parts[in.a].data() + in.b * len + 2 * y;
                  r[in.dst] = x == 0 ? t[0] : t[0] + (t[1] - t[0]) * xf;
                  break;
                }
                case XOp::Add:
                  r[in.dst] = r[in.a] + r[in.b];
                  break;
                case XOp::Sub:
                  r[in.dst] = r[in.a] - r[in.b];
                  break;
                case XOp::Mul:
                  r[in.dst] = r[in.a] * r[in.b];
                  break;
                case XOp::Neg:
                  r[in.dst] = -r[in.a];
                  break;
                case XOp::Fold:
                  acc += coeffs[in.dst] * r[in.a];
                  break;
              }
            }
            out[o] += acc;
          }
        },
        16);
  };
}

}  // namespace vkstark
