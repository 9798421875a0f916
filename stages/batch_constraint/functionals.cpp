#include "stages/batch_constraint/functionals.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "runtime/error.hpp"
#include "stages/air/eval.hpp"
#include "stages/compiler/ext_kernel.hpp"

namespace vkstark {

uint32_t source_column(const std::vector<uint32_t>& widths, bool need_rot, uint32_t part, bool next, uint32_t col) {
  uint32_t at = 0;
  for (uint32_t p = 0; p < part; ++p) at += widths[p] * (need_rot ? 2 : 1);
  return at + (next ? widths[part] : 0) + col;
}

uint32_t points_source_column(const std::vector<uint32_t>& widths, const std::vector<std::vector<uint32_t>>& rotated,
                              uint32_t part, bool next, uint32_t col) {
  uint32_t at = 0;
  for (uint32_t p = 0; p < part; ++p) at += widths[p] + uint32_t(rotated[p].size());
  if (!next) return at + col;
  const auto& r = rotated[part];
  const auto it = std::lower_bound(r.begin(), r.end(), col);
  if (it == r.end() || *it != col)
    throw InputError(fmt::format("column {} of row-view part {} is not read at the next row", col, part));
  return at + widths[part] + uint32_t(it - r.begin());
}

std::vector<std::vector<uint32_t>> rotated_columns(const SymbolicDag& dag, const AirShape& shape) {
  const std::vector<uint32_t> widths = shape.row_view_widths();
  std::vector<std::vector<uint32_t>> out(widths.size());
  for (const DagNode& d : dag.nodes) {
    if (d.kind != NodeKind::Variable || d.var.offset != 1) continue;
    const Variable& x = d.var;
    if (x.entry != EntryKind::Main && x.entry != EntryKind::Preprocessed) continue;
    const bool ok = x.entry == EntryKind::Main ? x.part <= shape.num_cached() : shape.preprocessed_width > 0;
    const uint32_t p = ok ? row_view_part(x, shape) : ~0u;
    if (p >= widths.size() || x.index >= widths[p])
      throw InputError(
          fmt::format("the DAG reads {} at the next row, which the AIR's parts do not have", to_string(x)));
    out[p].push_back(x.index);
  }
  for (auto& r : out) {
    std::sort(r.begin(), r.end());
    r.erase(std::unique(r.begin(), r.end()), r.end());
  }
  return out;
}

namespace {

// The DAG's nodes with every trace read mapped to part 0 and every selector to part 1 (see the
// header); roots not set. `column` gives a trace read's index in part 0 (part, next, column).
template <class ColumnFn>
std::vector<DagNode> source_nodes(const SymbolicDag& dag, const AirShape& shape, const std::vector<uint32_t>& widths,
                                  bool need_rot, ColumnFn&& column) {
  std::vector<DagNode> nodes = dag.nodes;
  for (size_t i = 0; i < nodes.size(); ++i) {
    DagNode& d = nodes[i];
    Variable v;
    v.entry = EntryKind::Main;
    v.offset = 0;
    switch (d.kind) {
      case NodeKind::IsFirstRow:
      case NodeKind::IsLastRow:
      case NodeKind::IsTransition:
        v.part = 1;
        v.index = uint32_t(d.kind) - uint32_t(NodeKind::IsFirstRow);
        break;
      case NodeKind::Variable: {
        const Variable& x = d.var;
        if (x.entry == EntryKind::Public) continue;
        if (x.entry == EntryKind::Challenge)
          throw InputError(fmt::format("DAG node {} reads a challenge, which vkstark does not support", i));
        if (x.entry == EntryKind::Preprocessed && shape.preprocessed_width == 0)
          throw InputError(fmt::format("DAG node {} reads the preprocessed part, the AIR has none", i));
        if (x.entry == EntryKind::Main && x.part > shape.num_cached())
          throw InputError(
              fmt::format("DAG node {} reads main part {}, the AIR has {}", i, x.part, shape.num_cached() + 1));
        const uint32_t p = row_view_part(x, shape);
        if (x.index >= widths[p])
          throw InputError(fmt::format("DAG node {} reads column {} of row-view part {}, which has {} columns", i,
                                       x.index, p, widths[p]));
        if (x.offset > 1 || (x.offset == 1 && !need_rot))
          throw InputError(fmt::format("DAG node {} reads row offset {}{}", i, x.offset,
                                       need_rot ? " (0 or 1 only)" : " without need_rot"));
        v.part = 0;
        v.index = column(p, x.offset == 1, x.index);
        break;
      }
      default:
        continue;
    }
    d = DagNode{};
    d.kind = NodeKind::Variable;
    d.var = v;
  }
  return nodes;
}

// The numerator's and denominator's DAGs (roots, terms, lengths, buses) over `nodes`.
void add_interactions(AirFunctionals& f, const SymbolicDag& dag, const std::vector<DagNode>& nodes) {
  std::map<uint32_t, std::vector<uint32_t>> counts;
  std::map<uint32_t, std::vector<std::pair<uint32_t, uint32_t>>> messages;
  for (uint32_t s = 0; s < dag.interactions.size(); ++s) {
    const DagInteraction& in = dag.interactions[s];
    if (in.count >= nodes.size())
      throw InputError(
          fmt::format("interaction {}: count node {} is past the DAG's {} nodes", s, in.count, nodes.size()));
    counts[in.count].push_back(s);
    for (uint32_t j = 0; j < in.message.size(); ++j) {
      if (in.message[j] >= nodes.size())
        throw InputError(
            fmt::format("interaction {}: message node {} is past the DAG's {} nodes", s, in.message[j], nodes.size()));
      messages[in.message[j]].emplace_back(s, j);
    }
    f.lengths.push_back(uint32_t(in.message.size()));
    f.buses.push_back(in.bus);
  }
  SymbolicDag& num = f.dags[uint32_t(Functional::Numerator)];
  num.nodes = nodes;
  for (auto& [node, terms] : counts) {
    num.constraint_idx.push_back(node);
    f.numerator_terms.push_back(std::move(terms));
  }
  SymbolicDag& den = f.dags[uint32_t(Functional::Denominator)];
  den.nodes = nodes;
  for (auto& [node, terms] : messages) {
    den.constraint_idx.push_back(node);
    f.denominator_terms.push_back(std::move(terms));
  }
  DagNode one;
  one.kind = NodeKind::Constant;
  one.constant = Fp::one();
  den.nodes.push_back(one);
  den.constraint_idx.push_back(uint32_t(den.nodes.size() - 1));
}

}  // namespace

AirFunctionals make_air_functionals(const SymbolicDag& dag, const AirShape& shape, bool need_rot) {
  AirFunctionals f;
  f.need_rot = need_rot;
  f.widths = shape.row_view_widths();
  for (uint32_t w : f.widths) f.columns += w * (need_rot ? 2 : 1);
  f.shape.cached_widths = {f.columns};
  f.shape.common_width = 3;
  f.shape.num_public_values = shape.num_public_values;
  const std::vector<DagNode> nodes =
      source_nodes(dag, shape, f.widths, need_rot,
                   [&](uint32_t p, bool next, uint32_t c) { return source_column(f.widths, need_rot, p, next, c); });
  for (uint32_t i : dag.constraint_idx)
    if (i >= nodes.size())
      throw InputError(fmt::format("constraint node {} is past the DAG's {} nodes", i, nodes.size()));

  SymbolicDag& zc = f.dags[uint32_t(Functional::Zerocheck)];
  zc.nodes = nodes;
  zc.constraint_idx = dag.constraint_idx;

  if (!dag.interactions.empty()) add_interactions(f, dag, nodes);
  // Round 0's sources: the same DAGs over part 0 without the next rows nobody reads.
  f.rotated = need_rot ? rotated_columns(dag, shape) : std::vector<std::vector<uint32_t>>(f.widths.size());
  for (size_t p = 0; p < f.widths.size(); ++p) f.points_columns += f.widths[p] + uint32_t(f.rotated[p].size());
  f.points_shape = f.shape;
  f.points_shape.cached_widths = {f.points_columns};
  const std::vector<DagNode> points_nodes = source_nodes(
      dag, shape, f.widths, need_rot,
      [&](uint32_t p, bool next, uint32_t c) { return points_source_column(f.widths, f.rotated, p, next, c); });
  for (uint32_t i = 0; i < kFunctionals; ++i) {
    f.points_dags[i] = f.dags[i];
    if (f.dags[i].nodes.size() >= points_nodes.size())  // the denominator's has its constant 1 after them
      std::copy(points_nodes.begin(), points_nodes.end(), f.points_dags[i].nodes.begin());
  }
  return f;
}

namespace {
std::string functional_kernel_name(const std::string& air, uint32_t f) {
  static constexpr const char* kSuffix[kFunctionals] = {"zc", "num", "den"};
  return fmt::format("{}_{}", air, kSuffix[f]);
}
}  // namespace

std::shared_ptr<const AirFunctionalKernels> with_generated_points(const std::string& air,
                                                                  const AirFunctionalKernels& kernels,
                                                                  uint32_t points_chunk_nodes, KernelGeneration gen) {
  auto k = std::make_shared<AirFunctionalKernels>(kernels);
  for (uint32_t f = 0; f < kFunctionals; ++f) {
    if (!k->points[f]) continue;
    k->points[f] = make_constraint_kernel(functional_kernel_name(air, f), k->f.points_dags[f], k->f.points_shape,
                                          points_chunk_nodes, false, gen);
    if (!k->points[f]) return nullptr;
  }
  return k;
}

std::shared_ptr<const AirFunctionalKernels> make_air_functional_kernels(
    const std::string& air, const SymbolicDag& dag, const AirShape& shape, bool need_rot, ExtKernelMode ext_mode,
    uint32_t ext_chunk_nodes, bool points_interpreted, uint32_t points_chunk_nodes, KernelGeneration gen) {
  auto k = std::make_shared<AirFunctionalKernels>();
  try {
    k->f = make_air_functionals(dag, shape, need_rot);
  } catch (const InputError& e) {
    throw InputError(fmt::format("AIR {}: {}", air, e.what()));
  }
  for (uint32_t f = 0; f < kFunctionals; ++f) {
    if (k->f.dags[f].constraint_idx.empty()) continue;
    const std::string name = functional_kernel_name(air, f);
    k->points[f] = make_constraint_kernel(name, k->f.points_dags[f], k->f.points_shape, points_chunk_nodes,
                                          points_interpreted, gen);
    k->folded[f] = make_ext_constraint_kernel(name, k->f.dags[f], k->f.shape, ext_chunk_nodes, ext_mode, gen);
  }
  return k;
}

}  // namespace vkstark
