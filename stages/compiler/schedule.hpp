// The schedule of a constraint DAG (architecture.md, "Generated kernels"): what every lowering of
// the constraints walks, computed once. The GLSL emitter (eval_glsl.cpp), the CPU block compiler
// (eval_cpu.cpp) and the Fp4 program compiler (ext_program.cpp) all evaluate the live nodes in node
// order (children first) and fold constraint k right after its node, so no constraint value stays
// live to the end; they agree on which nodes are evaluated and how often each value is read, hence
// where it dies.
//
// Live: the nodes the constraints reach. SymbolicDag::live_nodes (stages/air/dag.hpp) also keeps
// nodes that only interactions read; no constraint kernel evaluates those.
// Uses: the reads of a node by live operations (both operands of Add, Sub, Mul, one read twice
// counted twice; the operand of Neg) and one per fold of it. A lowering that frees a value's storage
// counts its uses down: it is dead at the read that takes them to zero.
//
// A value type; thread-compatible.
#pragma once

#include <cstdint>
#include <vector>

#include "stages/air/dag.hpp"

namespace vkstark {

// Add, Sub, Mul or Neg: a node that reads others.
[[nodiscard]] inline bool is_operation(NodeKind k) {
  return k == NodeKind::Add || k == NodeKind::Sub || k == NodeKind::Mul || k == NodeKind::Neg;
}

// Constraint `constraint` (its lambda power or coefficient: the index in constraint_idx) is node
// `node`.
struct ConstraintFold {
  uint32_t node = 0;
  uint32_t constraint = 0;
  bool operator==(const ConstraintFold&) const = default;
};

struct ConstraintSchedule {
  std::vector<uint8_t> live;   // per node: a constraint reaches it
  std::vector<uint32_t> uses;  // per node: reads by live operations and folds (0 when not live)
  // The fold order: by node, then constraint (with constraint_idx sorted as dag.hpp keeps it, the
  // k-th fold is constraint k). Each is folded right after its node is computed.
  std::vector<ConstraintFold> folds;
  uint64_t live_nodes = 0;  // nodes with `live` set

  // Walks the schedule: node(i) for each live node in node order, each followed by fold(f, c) for
  // the folds of it (f: the fold's position in `folds`, c: its ConstraintFold).
  template <class Node, class Fold>
  void walk(Node&& node, Fold&& fold) const {
    size_t f = 0;
    for (uint32_t i = 0; i < live.size(); ++i) {
      if (!live[i]) continue;
      node(i);
      for (; f < folds.size() && folds[f].node == i; ++f) fold(uint32_t(f), folds[f]);
    }
  }
};

// The schedule of `dag`'s constraints. InputError when a constraint index is past the nodes or a
// live operation reads a node that does not come before it (the first such node from the end).
// Variables are not checked against a shape (each lowering checks what it can read).
[[nodiscard]] ConstraintSchedule schedule_constraints(const SymbolicDag& dag);

// InputError unless `schedule` has one entry per node of `dag` (a schedule of another DAG).
void check_schedule(const SymbolicDag& dag, const ConstraintSchedule& schedule);

}  // namespace vkstark
