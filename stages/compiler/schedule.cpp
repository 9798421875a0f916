#include "stages/compiler/schedule.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "runtime/error.hpp"

namespace vkstark {

ConstraintSchedule schedule_constraints(const SymbolicDag& dag) {
  const size_t n = dag.nodes.size();
  ConstraintSchedule s{std::vector<uint8_t>(n, 0), std::vector<uint32_t>(n, 0), {}, 0};
  for (uint32_t k = 0; k < dag.constraint_idx.size(); ++k) {
    const uint32_t i = dag.constraint_idx[k];
    if (i >= n) throw InputError(fmt::format("constraint node {} is past the DAG's {} nodes", i, n));
    s.live[i] = 1;
    ++s.uses[i];
    s.folds.push_back({i, k});
  }
  // Children come before their parents: one pass from the end reaches every node a constraint needs.
  for (size_t i = n; i-- > 0;) {
    const DagNode& d = dag.nodes[i];
    if (!s.live[i]) continue;
    ++s.live_nodes;
    if (!is_operation(d.kind)) continue;
    const bool binary = d.kind != NodeKind::Neg;
    if (d.left >= i || (binary && d.right >= i))
      throw InputError(
          fmt::format("DAG node {} reads node {}, which does not come before it", i, d.left >= i ? d.left : d.right));
    s.live[d.left] = 1;
    ++s.uses[d.left];
    if (binary) {
      s.live[d.right] = 1;
      ++s.uses[d.right];
    }
  }
  std::sort(s.folds.begin(), s.folds.end(), [](const ConstraintFold& a, const ConstraintFold& b) {
    return a.node != b.node ? a.node < b.node : a.constraint < b.constraint;
  });
  return s;
}

void check_schedule(const SymbolicDag& dag, const ConstraintSchedule& schedule) {
  if (schedule.live.size() != dag.nodes.size() || schedule.uses.size() != dag.nodes.size())
    throw InputError(fmt::format("a schedule of {} nodes for a DAG of {}", schedule.live.size(), dag.nodes.size()));
}

}  // namespace vkstark
