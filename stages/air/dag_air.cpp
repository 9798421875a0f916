#include "stages/air/dag_air.hpp"

#include <fmt/format.h>

#include <map>

#include "runtime/error.hpp"
#include "stages/air/dag.hpp"

namespace vkstark {

namespace {

[[noreturn]] void reject(const std::string& air, const std::string& what) {
  throw InputError(fmt::format("AIR {}: {}", air, what));
}

// One expression per node, its children the expressions of its child nodes (shared, so the trees
// are the DAG), each operation with the degree the entry stores.
std::vector<Expr> node_exprs(const SymbolicDag& dag) {
  std::vector<Expr> e;
  e.reserve(dag.nodes.size());
  for (const DagNode& d : dag.nodes) {
    ExprNode x;
    x.kind = d.kind;
    x.degree = node_degree(d);
    switch (d.kind) {
      case NodeKind::Variable:
        x.var = d.var;
        break;
      case NodeKind::Constant:
        x.constant = d.constant;
        break;
      case NodeKind::Add:
      case NodeKind::Sub:
      case NodeKind::Mul:
        x.right = e[d.right].shared();
        [[fallthrough]];
      case NodeKind::Neg:
        x.left = e[d.left].shared();
        break;
      default:
        break;
    }
    e.emplace_back(std::make_shared<const ExprNode>(std::move(x)));
  }
  return e;
}

void check_entry(const std::string& name, const StarkVerifyingKey& key, const std::optional<TraceMatrix>& pre) {
  const AirShape shape = key.shape();
  const SymbolicDag& dag = key.symbolic_constraints;
  if (const std::string problem = dag_problem(dag); !problem.empty()) reject(name, "constraint DAG: " + problem);
  if (dag.max_root_degree() > key.max_constraint_degree)
    reject(name, fmt::format("max_constraint_degree {} is below the degree {} of a constraint or interaction node",
                             key.max_constraint_degree, dag.max_root_degree()));
  for (uint32_t i = 0; i < dag.nodes.size(); ++i) {
    const DagNode& n = dag.nodes[i];
    if (n.kind != NodeKind::Variable) continue;
    if (const std::string problem = variable_problem(n.var, shape); !problem.empty())
      reject(name, fmt::format("constraint DAG: node {} reads {}: {}", i, to_string(n.var), problem));
  }
  if (key.preprocessed_data.has_value() != (shape.preprocessed_width > 0))
    reject(name, key.preprocessed_data ? "the entry has a preprocessed commitment but no preprocessed width"
                                       : "the entry has a preprocessed width but no preprocessed commitment");
  if (shape.preprocessed_width == 0) {
    if (pre) reject(name, "a preprocessed trace is given but the AIR has no preprocessed part");
    return;
  }
  if (!pre)
    reject(name,
           fmt::format("the AIR has a preprocessed part of width {}; its trace is missing", shape.preprocessed_width));
  if (pre->width != shape.preprocessed_width)
    reject(name, fmt::format("the preprocessed trace has {} columns, the verifying key says {}", pre->width,
                             shape.preprocessed_width));
  if (pre->values.size() != uint64_t(pre->width) * pre->height)
    reject(name, fmt::format("the preprocessed trace holds {} values, not {} columns x {} rows", pre->values.size(),
                             pre->width, pre->height));
}

}  // namespace

DagAir::DagAir(std::string name, StarkVerifyingKey key, std::optional<TraceMatrix> preprocessed, const Air* source)
    : name_(std::move(name)), key_(std::move(key)), preprocessed_(std::move(preprocessed)) {
  if (name_.empty()) throw InputError("an AIR given as data needs a name");
  check_entry(name_, key_, preprocessed_);
  shape_ = key_.shape();
  if (!source) return;
  // The AIR in code: its DAG must be the entry's; then its names and expressions stand for the DAG's.
  if (!has_constraints_of(*source, key_))
    reject(name_,
           fmt::format("the AIR in code ({}) does not have the verifying key's constraints or shape", source->name()));
  SymbolicAir s = symbolic_air(*source);
  std::vector<uint32_t> roots;
  (void)build_dag(s, &roots);
  std::map<uint32_t, Expr> first;  // constraint node -> the first constraint emitted for it
  for (size_t c = 0; c < roots.size(); ++c) first.emplace(roots[c], s.constraints[c]);
  s.constraints.clear();
  for (const auto& [node, e] : first) s.constraints.push_back(e);
  column_names_ = s.column_names;
  source_ = std::move(s);
}

bool has_constraints_of(const Air& air, const StarkVerifyingKey& entry) {
  const SymbolicAir s = symbolic_air(air);
  const AirShape shape = entry.shape();
  return s.shape.row_view_widths() == shape.row_view_widths() && s.shape.num_public_values == shape.num_public_values &&
         build_dag(s) == entry.symbolic_constraints;
}

void DagAir::eval(AirBuilder& b) const {
  if (source_) {
    for (const Expr& c : source_->constraints) b.assert_zero(c);
    for (const InteractionExpr& in : source_->interactions)
      b.push_interaction(in.bus, in.message, in.count, in.count_weight);
    for (const auto& [bus, name] : source_->bus_names) b.name_bus(bus, name);
    return;
  }
  const SymbolicDag& dag = key_.symbolic_constraints;
  const std::vector<Expr> e = node_exprs(dag);
  for (uint32_t i : dag.constraint_idx) b.assert_zero(e[i]);
  for (const DagInteraction& in : dag.interactions) {
    std::vector<Expr> message;
    message.reserve(in.message.size());
    for (uint32_t m : in.message) message.push_back(e[m]);
    b.push_interaction(in.bus, std::move(message), e[in.count], in.count_weight);
  }
}

std::vector<std::shared_ptr<const Air>> airs_from_vk(const MultiStarkVerifyingKey& vk,
                                                     std::span<const std::string> names,
                                                     std::vector<std::optional<TraceMatrix>> preprocessed,
                                                     std::span<const Air* const> sources) {
  const size_t n = vk.per_air.size();
  if (names.size() != n || preprocessed.size() != n || sources.size() > n)
    throw InputError(fmt::format("AIRs from a verifying key of {} AIRs: {} names, {} preprocessed entries, {} sources",
                                 n, names.size(), preprocessed.size(), sources.size()));
  std::vector<std::shared_ptr<const Air>> airs;
  airs.reserve(n);
  for (size_t a = 0; a < n; ++a) {
    try {
      airs.push_back(std::make_shared<DagAir>(names[a], vk.per_air[a], std::move(preprocessed[a]),
                                              a < sources.size() ? sources[a] : nullptr));
    } catch (const InputError& e) {
      throw InputError(fmt::format("verifying key AIR {}: {}", a, e.what()));
    }
  }
  return airs;
}

}  // namespace vkstark
