// The symbolic constraint DAG (protocol.md 4.3): the verifying key's constraint representation and
// what every evaluator (host, CPU instruction stream, generated GLSL) walks.
//
// Built from an AIR's expression trees as the reference's SymbolicDagBuilder does: constraints in
// emission order, then each interaction's message fields and count; nodes appended in post-order
// (children first) and interned by content (kind, children, degree, variable, constant); constant
// folding and the identities x+0, 0+x, x-0, x*1, 1*x, x*0, 0*x, x+(-y) -> x-y, x-(-y) -> x+y, with both
// children interned before the rewrite is decided (so a child that ends up unused keeps its index).
// constraint_idx is sorted ascending and deduplicated: the batching power lambda^i goes to the i-th
// entry (constraint order is node order, protocol.md 16.1 item 12).
//
// Value types; thread-compatible.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "stages/air/air.hpp"
#include "stages/air/expr.hpp"

namespace vkstark {

struct DagNode {
  NodeKind kind = NodeKind::Constant;
  Variable var;         // Variable
  Fp constant;          // Constant
  uint32_t left = 0;    // Add, Sub, Mul; the operand of Neg (node indices, always < this node's)
  uint32_t right = 0;   // Add, Sub, Mul
  uint32_t degree = 0;  // degree_multiple of Add, Sub, Neg, Mul (0 for the others)
  bool operator==(const DagNode&) const = default;
};

struct DagInteraction {
  std::vector<uint32_t> message;  // node indices
  uint32_t count = 0;             // node index
  uint16_t bus = 0;
  uint32_t count_weight = 1;
  bool operator==(const DagInteraction&) const = default;
};

struct SymbolicDag {
  std::vector<DagNode> nodes;
  std::vector<uint32_t> constraint_idx;  // sorted, distinct
  std::vector<DagInteraction> interactions;
  bool operator==(const SymbolicDag&) const = default;

  uint32_t num_constraints() const { return static_cast<uint32_t>(constraint_idx.size()); }
  // Some variable node reads the next row.
  bool need_rot() const;
  // The largest node_degree of a constraint, message field or count node (0 when none).
  uint32_t max_root_degree() const;
  // Node counts by kind, indexed by NodeKind.
  std::vector<uint32_t> count_by_kind() const;
  // Nodes reachable from a constraint or an interaction (unused folded children are not), as a mask:
  // the AIR's own notion (what its verifying key's DAG needs). A constraint kernel evaluates fewer,
  // the nodes the constraints alone reach (the constraint compiler's schedule, which also checks the
  // DAG as it walks it); both stay, as they answer different questions.
  std::vector<bool> live_nodes() const;
  // Nodes reachable from `roots` (node indices; children come before their parents), as a mask.
  std::vector<bool> reachable(std::span<const uint32_t> roots) const;
};

// The degree a node carries: its degree_multiple for Add, Sub, Neg, Mul; 1 for trace variables
// and row selectors; 0 for constants and public values.
uint32_t node_degree(const DagNode& n);

// Bounds on a DAG taken as data (a verifying key from a file): nodes per AIR, and the depth of a
// node (a leaf is at depth 0, an operation one below its deeper child). The shipped AIRs stay far
// below them (keccakf: about 10^4 nodes, depth below 100).
inline constexpr uint32_t kMaxDagNodes = uint32_t(1) << 22;
inline constexpr uint32_t kMaxDagDepth = uint32_t(1) << 16;

// What is wrong with `dag` as a verifying key holds it, or "" when nothing is: more than
// kMaxDagNodes nodes, a node kind out of range, a child that is not below its node, a node deeper
// than kMaxDagDepth, an operation whose degree is below what its children give it (keygen stores the
// degree of the expression before simplification, which is never less), constraint_idx not sorted
// and distinct or past the nodes, an interaction with an empty message or a node past the nodes.
// Variables are not checked against a shape (variable_problem in air.hpp does that).
std::string dag_problem(const SymbolicDag& dag);

// The DAG of an AIR's constraints and interactions. Variables and public values are not checked
// against a shape here (keygen does that).
// `emitted_roots`, when given, receives the node index of each constraint in emission order (for
// messages that name a constraint as the AIR wrote it).
SymbolicDag build_dag(std::span<const Expr> constraints, std::span<const InteractionExpr> interactions,
                      std::vector<uint32_t>* emitted_roots = nullptr);
inline SymbolicDag build_dag(const SymbolicAir& air, std::vector<uint32_t>* emitted_roots = nullptr) {
  return build_dag(air.constraints, air.interactions, emitted_roots);
}

// The largest degree_multiple over the constraints, interaction counts and message fields, on the
// expression trees (before simplification); 0 when there are none.
uint32_t max_constraint_degree(const SymbolicAir& air);

// Text of node i as an expression over earlier nodes' text (for messages), cut at max_chars.
std::string node_to_string(const SymbolicDag& dag, uint32_t i, size_t max_chars = 400);

}  // namespace vkstark
