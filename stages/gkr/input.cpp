#include "stages/gkr/input.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "kernels/basic.hpp"
#include "kernels/elementwise.hpp"
#include "stages/common/device_value.hpp"
#include "stages/common/program.hpp"

namespace vkstark {

namespace {

// The DAG with every trace variable that the interactions reach renumbered to its place among the
// columns of its part they read (`columns`, per row-view part), and the shape of those parts.
SymbolicDag compact_dag(const SymbolicDag& dag, const AirShape& shape, std::vector<std::vector<uint32_t>>& columns,
                        AirShape& compact) {
  const bool pre = shape.preprocessed_width > 0;
  const size_t parts = shape.row_view_widths().size();
  auto part_of = [&](const Variable& v) -> int64_t {
    if (v.entry == EntryKind::Preprocessed) return 0;
    if (v.entry == EntryKind::Main) return int64_t(v.part) + (pre ? 1 : 0);
    return -1;
  };
  std::vector<bool> reached(dag.nodes.size(), false);
  for (const DagInteraction& in : dag.interactions) {
    reached[in.count] = true;
    for (uint32_t m : in.message) reached[m] = true;
  }
  for (size_t i = dag.nodes.size(); i-- > 0;) {  // operands come before the nodes that use them
    if (!reached[i]) continue;
    const DagNode& n = dag.nodes[i];
    if (n.kind == NodeKind::Add || n.kind == NodeKind::Sub || n.kind == NodeKind::Mul) {
      reached[n.left] = true;
      reached[n.right] = true;
    } else if (n.kind == NodeKind::Neg) {
      reached[n.left] = true;
    }
  }
  columns.assign(parts, {});
  for (size_t i = 0; i < dag.nodes.size(); ++i)
    if (reached[i] && dag.nodes[i].kind == NodeKind::Variable) {
      const int64_t p = part_of(dag.nodes[i].var);
      if (p >= 0) columns[size_t(p)].push_back(dag.nodes[i].var.index);
    }
  for (std::vector<uint32_t>& c : columns) {
    std::sort(c.begin(), c.end());
    c.erase(std::unique(c.begin(), c.end()), c.end());
    if (c.empty()) c.push_back(0);
  }
  compact = shape;
  size_t at = 0;
  if (pre) compact.preprocessed_width = uint32_t(columns[at++].size());
  for (uint32_t& w : compact.cached_widths) w = uint32_t(columns[at++].size());
  compact.common_width = uint32_t(columns[at].size());
  SymbolicDag out = dag;
  for (size_t i = 0; i < out.nodes.size(); ++i) {
    DagNode& n = out.nodes[i];
    if (n.kind != NodeKind::Variable) continue;
    const int64_t p = part_of(n.var);
    if (p < 0) continue;
    const std::vector<uint32_t>& c = columns[size_t(p)];
    const auto it = std::lower_bound(c.begin(), c.end(), n.var.index);
    // A variable no interaction reaches reads column 0: in range, and never evaluated.
    n.var.index = reached[i] ? uint32_t(it - c.begin()) : 0;
  }
  return out;
}

}  // namespace

std::shared_ptr<const InteractionKernels> make_interaction_kernels(const AirProvingKey& air, KernelGeneration gen,
                                                                   bool compact) {
  auto k = std::make_shared<InteractionKernels>();
  k->shape = air.shape;
  SymbolicDag renumbered;
  if (compact) renumbered = compact_dag(air.dag, air.shape, k->columns, k->shape);
  const SymbolicDag& dag = compact ? renumbered : air.dag;
  const std::string kind = compact ? "_compact" : "";
  for (size_t s = 0; s < dag.interactions.size(); ++s) {
    const DagInteraction& in = dag.interactions[s];
    InteractionKernels::Interaction out;
    out.length = uint32_t(in.message.size());
    out.bus = in.bus;
    SymbolicDag count = dag;
    count.constraint_idx = {in.count};
    out.count = make_constraint_kernel(fmt::format("{}{}_count{}", air.name, kind, s), count, k->shape,
                                       kConstraintChunkNodes, false, gen);
    std::map<uint32_t, std::vector<uint32_t>> roots;  // node -> message positions
    for (uint32_t j = 0; j < in.message.size(); ++j) roots[in.message[j]].push_back(j);
    SymbolicDag message = dag;
    message.constraint_idx.clear();
    for (auto& [node, positions] : roots) {
      message.constraint_idx.push_back(node);
      out.positions.push_back(std::move(positions));
    }
    DagNode one;
    one.kind = NodeKind::Constant;
    one.constant = Fp::one();
    message.nodes.push_back(one);
    message.constraint_idx.push_back(uint32_t(message.nodes.size() - 1));
    out.message = make_constraint_kernel(fmt::format("{}{}_message{}", air.name, kind, s), message, k->shape,
                                         kConstraintChunkNodes, false, gen);
    k->interactions.push_back(std::move(out));
  }
  return k;
}

void add_logup_input_layer(Graph& g, DeviceTranscript& t, std::span<const LogupInputTrace> traces,
                           const LogupLayout& layout, uint32_t l_skip, View<Fp4> alpha, View<Fp4> beta,
                           View<Fp4> p_leaves, View<Fp4> q_leaves) {
  const uint64_t leaves = uint64_t(1) << (l_skip + layout.n_logup);
  if (p_leaves.count != leaves || q_leaves.count != leaves || layout.row_start.size() != traces.size())
    throw GraphError(fmt::format("LogUp input layer: {} and {} leaves for 2^{}, {} slot lists for {} traces",
                                 p_leaves.count, q_leaves.count, l_skip + layout.n_logup, layout.row_start.size(),
                                 traces.size()));
  LogupInputLayer(g, t, traces, layout, l_skip, alpha, beta).leaves(0, p_leaves, q_leaves);
}

LogupInputLayer::LogupInputLayer(Graph& g, DeviceTranscript& t, std::span<const LogupInputTrace> traces,
                                 const LogupLayout& layout, uint32_t l_skip, View<Fp4> alpha, View<Fp4> beta)
    : g_(g), traces_(traces), layout_(layout), l_skip_(l_skip), alpha_(alpha) {
  if (layout.row_start.size() != traces.size())
    throw GraphError(
        fmt::format("LogUp input layer: {} slot lists for {} traces", layout.row_start.size(), traces.size()));
  // beta^0 .. beta^max_len, one program.
  uint32_t max_len = 0;
  for (const LogupInputTrace& tr : traces)
    for (const auto& in : tr.kernels->interactions) max_len = std::max(max_len, in.length);
  View<Fp4> beta_powers = g.transient<Fp4>("gkr.beta_powers", max_len + 1).all();
  {
    ProgramBuilder p(g, t, "gkr.beta_powers");
    const DeviceFp4 b = load_ext(p, beta);
    DeviceFp4 power = constant(p, Fp4::one());
    for (uint32_t j = 0; j <= max_len; ++j) {
      store_ext(beta_powers, power, j);
      if (j < max_len) power *= b;
    }
    p.emit();
  }
  for (size_t T = 0; T < traces.size(); ++T) {
    const LogupInputTrace& tr = traces[T];
    const uint64_t h = uint64_t(1) << tr.log_height;
    const uint64_t slot = uint64_t(1) << std::max(tr.log_height, l_skip);
    if (layout.row_start[T].size() != tr.kernels->interactions.size())
      throw GraphError(fmt::format("LogUp input layer: trace {} has {} slots for {} interactions", T,
                                   layout.row_start[T].size(), tr.kernels->interactions.size()));
    if (!tr.kernels->interactions.empty()) largest_slot_ = std::max(largest_slot_, slot);
    // p = count * 2^-(l - h) for a trace shorter than 2^l, whose slot repeats it (protocol.md 8.2).
    const Fp norm = Fp::from_canonical_unchecked(uint32_t(slot / h)).inverse();
    norms_.push_back(g.constant<Fp4>(fmt::format("gkr.input.{}.norm", T), std::vector<Fp4>{Fp4(norm)}).all());
    coeffs_.emplace_back();
    for (size_t s = 0; s < tr.kernels->interactions.size(); ++s) {
      const InteractionKernels::Interaction& in = tr.kernels->interactions[s];
      const std::string name = fmt::format("gkr.input.{}.{}", T, s);
      // The message roots' coefficients: sum of beta^j over the positions j of each root, then
      // alpha + beta^len (bus + 1) for the constant root.
      View<Fp4> coeffs = g.transient<Fp4>(name + ".coefficients", in.positions.size() + 1).all();
      {
        ProgramBuilder p(g, t, name + ".coefficients");
        for (size_t r = 0; r < in.positions.size(); ++r) {
          DeviceFp4 acc = load_ext(p, beta_powers, in.positions[r][0]);
          for (size_t i = 1; i < in.positions[r].size(); ++i) acc += load_ext(p, beta_powers, in.positions[r][i]);
          store_ext(coeffs, acc, r);
        }
        const Fp bus = Fp::from_canonical_unchecked(uint32_t(in.bus) + 1);
        store_ext(coeffs, load_ext(p, beta_powers, in.length) * bus + load_ext(p, alpha), in.positions.size());
        p.emit();
      }
      coeffs_.back().push_back(coeffs);
    }
  }
}

void LogupInputLayer::leaves(uint64_t first, View<Fp4> p_leaves, View<Fp4> q_leaves, const std::string& tag) {
  const uint64_t count = p_leaves.count, end = first + count;
  if (q_leaves.count != count || end > leaves() || count == 0)
    throw GraphError(fmt::format("LogUp input layer: leaves [{}, {}) and {} q leaves of 2^{}", first, end,
                                 q_leaves.count, l_skip_ + layout_.n_logup));
  const std::string base = "gkr.input" + tag;
  g_.dispatch<FillU32>(base + ".p.zero", {.out = p_leaves.bitcast<uint32_t>(), .value = 0});
  g_.dispatch<Fp4Repeat>(base + ".q.alpha", {.a = alpha_, .out = q_leaves});
  for (size_t T = 0; T < traces_.size(); ++T) {
    const LogupInputTrace& tr = traces_[T];
    const uint64_t h = uint64_t(1) << tr.log_height;
    const uint64_t slot = uint64_t(1) << std::max(tr.log_height, l_skip_);
    for (size_t s = 0; s < tr.kernels->interactions.size(); ++s) {
      const InteractionKernels::Interaction& in = tr.kernels->interactions[s];
      const uint64_t start = layout_.row_start[T][s];
      if (start + slot <= first || start >= end) continue;
      if (start < first || start + slot > end)
        throw GraphError(fmt::format("LogUp input layer: leaves [{}, {}) cut slot {} of trace {} ([{}, {}))", first,
                                     end, s, T, start, start + slot));
      const std::string name = fmt::format("{}.{}.{}", base, T, s);
      View<Fp4> p_slot = p_leaves.slice(start - first, slot), q_slot = q_leaves.slice(start - first, slot);
      eval_constraints(g_, name + ".count", *in.count, tr.kernels->shape, tr.parts, tr.public_values, norms_[T],
                       p_slot.slice(0, h), tr.log_height);
      eval_constraints(g_, name + ".message", *in.message, tr.kernels->shape, tr.parts, tr.public_values, coeffs_[T][s],
                       q_slot.slice(0, h), tr.log_height);
      if (slot > h) {
        g_.dispatch<Fp4Repeat>(name + ".count.lift", {.a = p_slot.slice(0, h), .out = p_slot.slice(h, slot - h)});
        g_.dispatch<Fp4Repeat>(name + ".message.lift", {.a = q_slot.slice(0, h), .out = q_slot.slice(h, slot - h)});
      }
    }
  }
}

}  // namespace vkstark
