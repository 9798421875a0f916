#include "stages/air/eval.hpp"

#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

#include "runtime/error.hpp"

namespace vkstark {

uint32_t row_view_part(const Variable& v, const AirShape& shape) {
  const uint32_t pre = shape.preprocessed_width > 0 ? 1 : 0;
  return v.entry == EntryKind::Preprocessed ? 0 : pre + v.part;
}

template <class T>
void eval_nodes(const SymbolicDag& dag, const AirShape& shape, const RowSource<T>& row, std::vector<T>& values) {
  values.resize(dag.nodes.size());
  for (size_t i = 0; i < dag.nodes.size(); ++i) {
    const DagNode& n = dag.nodes[i];
    switch (n.kind) {
      case NodeKind::Variable:
        if (n.var.entry == EntryKind::Public) {
          values[i] = T(row.public_value(n.var.index));
        } else if (n.var.entry == EntryKind::Challenge) {
          throw InputError("the constraint DAG reads a challenge variable, which vkstark does not support");
        } else {
          values[i] = row.value(row_view_part(n.var, shape), n.var.offset, n.var.index);
        }
        break;
      case NodeKind::IsFirstRow:
      case NodeKind::IsLastRow:
      case NodeKind::IsTransition:
        values[i] = row.selector(n.kind);
        break;
      case NodeKind::Constant:
        values[i] = T(n.constant);
        break;
      case NodeKind::Add:
        values[i] = values[n.left] + values[n.right];
        break;
      case NodeKind::Sub:
        values[i] = values[n.left] - values[n.right];
        break;
      case NodeKind::Neg:
        values[i] = -values[n.left];
        break;
      case NodeKind::Mul:
        values[i] = values[n.left] * values[n.right];
        break;
    }
  }
}

template <class T>
Fp4 fold_constraints(const SymbolicDag& dag, std::span<const T> values, std::span<const Fp4> lambda_powers) {
  if (lambda_powers.size() < dag.constraint_idx.size())
    throw InputError(
        fmt::format("{} lambda powers for {} constraints", lambda_powers.size(), dag.constraint_idx.size()));
  Fp4 acc;
  for (size_t i = 0; i < dag.constraint_idx.size(); ++i) acc += lambda_powers[i] * values[dag.constraint_idx[i]];
  return acc;
}

template void eval_nodes<Fp>(const SymbolicDag&, const AirShape&, const RowSource<Fp>&, std::vector<Fp>&);
template void eval_nodes<Fp4>(const SymbolicDag&, const AirShape&, const RowSource<Fp4>&, std::vector<Fp4>&);
template Fp4 fold_constraints<Fp>(const SymbolicDag&, std::span<const Fp>, std::span<const Fp4>);
template Fp4 fold_constraints<Fp4>(const SymbolicDag&, std::span<const Fp4>, std::span<const Fp4>);

std::vector<Fp4> powers(Fp4 lambda, size_t n) {
  std::vector<Fp4> p(n);
  Fp4 x = Fp4::one();
  for (size_t i = 0; i < n; ++i) {
    p[i] = x;
    x *= lambda;
  }
  return p;
}

TraceRows::TraceRows(std::span<const TraceMatrix> parts, std::span<const Fp> public_values)
    : pvs_(public_values), height_(parts.empty() ? 0 : parts.front().height) {
  for (const TraceMatrix& m : parts) parts_.push_back(&m);
}

TraceRows::TraceRows(std::span<const TraceMatrix* const> parts, std::span<const Fp> public_values)
    : parts_(parts.begin(), parts.end()), pvs_(public_values), height_(parts.empty() ? 0 : parts.front()->height) {}

Fp TraceRows::selector(NodeKind kind) const {
  const bool v = kind == NodeKind::IsFirstRow  ? row_ == 0
                 : kind == NodeKind::IsLastRow ? row_ == height_ - 1
                                               : row_ != height_ - 1;
  return v ? Fp::one() : Fp::zero();
}

Fp TraceRows::value(uint32_t part, uint32_t offset, uint32_t col) const {
  const uint32_t r = offset == 0 ? row_ : (row_ + 1) & (height_ - 1);
  return parts_[part]->at(r, col);
}

void check_trace_shape(const std::string& air, const AirShape& shape, std::span<const TraceMatrix> parts,
                       std::span<const Fp> public_values) {
  std::vector<const TraceMatrix*> refs;
  for (const TraceMatrix& m : parts) refs.push_back(&m);
  check_trace_shape(air, shape, std::span<const TraceMatrix* const>(refs), public_values);
}

void check_trace_shape(const std::string& air, const AirShape& shape, std::span<const TraceMatrix* const> parts,
                       std::span<const Fp> public_values) {
  const std::vector<uint32_t> widths = shape.row_view_widths();
  if (parts.size() != widths.size())
    throw InputError(fmt::format("AIR {}: {} trace parts given, the AIR has {}", air, parts.size(), widths.size()));
  if (public_values.size() != shape.num_public_values)
    throw InputError(fmt::format("AIR {}: {} public values given, the AIR has {}", air, public_values.size(),
                                 shape.num_public_values));
  const uint32_t pre = shape.preprocessed_width > 0 ? 1 : 0;
  auto part_name = [&](size_t p) {
    if (pre && p == 0) return std::string("preprocessed part");
    if (p + 1 == parts.size()) return std::string("common main part");
    return fmt::format("cached part {}", p - pre);
  };
  for (size_t p = 0; p < parts.size(); ++p)
    if (parts[p] == nullptr) throw InputError(fmt::format("AIR {}: its {} is missing", air, part_name(p)));
  const uint32_t h = parts.front()->height;
  if (h == 0 || (h & (h - 1)) != 0)
    throw InputError(fmt::format("AIR {}: trace height {} is not a power of two", air, h));
  for (size_t p = 0; p < parts.size(); ++p) {
    if (parts[p]->width != widths[p])
      throw InputError(
          fmt::format("AIR {}: {} has width {}, the AIR declares {}", air, part_name(p), parts[p]->width, widths[p]));
    if (parts[p]->height != h)
      throw InputError(
          fmt::format("AIR {}: {} has height {}, the {} has {}", air, part_name(p), parts[p]->height, part_name(0), h));
    if (parts[p]->values.size() != size_t(parts[p]->width) * h)
      throw InputError(fmt::format("AIR {}: {} holds {} values, not width x height = {}", air, part_name(p),
                                   parts[p]->values.size(), size_t(parts[p]->width) * h));
  }
}

std::vector<Fp4> eval_constraints_on_trace(const SymbolicDag& dag, const AirShape& shape,
                                           std::span<const TraceMatrix> parts, std::span<const Fp> public_values,
                                           std::span<const Fp4> lambda_powers) {
  check_trace_shape("(constraint evaluation)", shape, parts, public_values);
  TraceRows rows(parts, public_values);
  std::vector<Fp4> out(rows.height());
  std::vector<Fp> values;
  for (uint32_t r = 0; r < rows.height(); ++r) {
    rows.set_row(r);
    eval_nodes(dag, shape, rows, values);
    out[r] = fold_constraints<Fp>(dag, values, lambda_powers);
  }
  return out;
}

bool debug_constraints_enabled() {
  const char* e = std::getenv("VKSTARK_DEBUG_CONSTRAINTS");
  return e != nullptr && std::strcmp(e, "") != 0 && std::strcmp(e, "0") != 0;
}

}  // namespace vkstark
