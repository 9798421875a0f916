#include "stages/air/dag.hpp"

#include <algorithm>
#include <unordered_map>

#include <fmt/format.h>

#include "stages/air/detail/expr_text.hpp"

namespace vkstark {

namespace {

struct NodeHash {
  size_t operator()(const DagNode& n) const {
    uint64_t h = uint64_t(n.kind) * 0x9E3779B97F4A7C15ull;
    auto mix = [&](uint64_t v) { h = (h ^ v) * 0xff51afd7ed558ccdull + 0x632be59bd9b4e019ull; };
    mix(uint64_t(n.var.entry) | uint64_t(n.var.part) << 8 | uint64_t(n.var.offset) << 40);
    mix(n.var.index);
    mix(n.constant.mont());
    mix(uint64_t(n.left) | uint64_t(n.right) << 32);
    mix(n.degree);
    return static_cast<size_t>(h ^ (h >> 29));
  }
};

class DagBuilder {
 public:
  uint32_t add(const Expr& root) {
    // Iterative post-order over the tree: a long left-folded sum is deep.
    struct Frame {
      const ExprNode* node;
      bool expanded;
    };
    std::vector<Frame> stack{{root.id(), false}};
    while (!stack.empty()) {
      Frame& f = stack.back();
      const ExprNode* n = f.node;
      if (memo_.count(n)) {
        stack.pop_back();
        continue;
      }
      const bool binary = n->kind == NodeKind::Add || n->kind == NodeKind::Sub || n->kind == NodeKind::Mul;
      if (!f.expanded && (binary || n->kind == NodeKind::Neg)) {
        f.expanded = true;
        // Children in order left, right: push right first so left is done first.
        if (binary) stack.push_back({n->right.get(), false});
        stack.push_back({n->left.get(), false});
        continue;
      }
      stack.pop_back();
      memo_.emplace(n, finish(*n));
    }
    return memo_.at(root.id());
  }

  SymbolicDag take() { return std::move(dag_); }
  SymbolicDag& dag() { return dag_; }

 private:
  uint32_t intern(const DagNode& d) {
    auto [it, inserted] = index_.emplace(d, static_cast<uint32_t>(dag_.nodes.size()));
    if (inserted) dag_.nodes.push_back(d);
    return it->second;
  }
  uint32_t constant(Fp c) {
    DagNode d;
    d.kind = NodeKind::Constant;
    d.constant = c;
    return intern(d);
  }
  const DagNode& at(uint32_t i) const { return dag_.nodes[i]; }
  bool is_const(uint32_t i, Fp c) const { return at(i).kind == NodeKind::Constant && at(i).constant == c; }
  bool is_const(uint32_t i) const { return at(i).kind == NodeKind::Constant; }

  uint32_t finish(const ExprNode& n) {
    DagNode d;
    d.kind = n.kind;
    switch (n.kind) {
      case NodeKind::Variable:
        d.var = n.var;
        return intern(d);
      case NodeKind::IsFirstRow:
      case NodeKind::IsLastRow:
      case NodeKind::IsTransition:
        return intern(d);
      case NodeKind::Constant:
        d.constant = n.constant;
        return intern(d);
      case NodeKind::Neg: {
        const uint32_t x = memo_.at(n.left.get());
        if (is_const(x)) return constant(-at(x).constant);
        d.left = x;
        d.degree = n.degree;
        return intern(d);
      }
      case NodeKind::Add:
      case NodeKind::Sub:
      case NodeKind::Mul:
        break;
    }
    const uint32_t l = memo_.at(n.left.get());
    const uint32_t r = memo_.at(n.right.get());
    const Fp zero = Fp::zero(), one = Fp::one();
    d.degree = n.degree;
    d.left = l;
    d.right = r;
    if (n.kind == NodeKind::Add) {
      if (is_const(l) && is_const(r)) return constant(at(l).constant + at(r).constant);
      if (is_const(r, zero)) return l;
      if (is_const(l, zero)) return r;
      if (at(r).kind == NodeKind::Neg) {
        d.kind = NodeKind::Sub;
        d.right = at(r).left;
      }
      return intern(d);
    }
    if (n.kind == NodeKind::Sub) {
      if (is_const(l) && is_const(r)) return constant(at(l).constant - at(r).constant);
      if (is_const(r, zero)) return l;
      if (at(r).kind == NodeKind::Neg) {
        d.kind = NodeKind::Add;
        d.right = at(r).left;
      }
      return intern(d);
    }
    if (is_const(l) && is_const(r)) return constant(at(l).constant * at(r).constant);
    if (is_const(r, one)) return l;
    if (is_const(l, one)) return r;
    if (is_const(r, zero)) return r;
    if (is_const(l, zero)) return l;
    return intern(d);
  }

  SymbolicDag dag_;
  std::unordered_map<DagNode, uint32_t, NodeHash> index_;
  std::unordered_map<const ExprNode*, uint32_t> memo_;
};

}  // namespace

SymbolicDag build_dag(std::span<const Expr> constraints, std::span<const InteractionExpr> interactions,
                      std::vector<uint32_t>* emitted_roots) {
  DagBuilder b;
  std::vector<uint32_t> idx;
  idx.reserve(constraints.size());
  for (const Expr& c : constraints) idx.push_back(b.add(c));
  std::vector<DagInteraction> inter;
  for (const InteractionExpr& i : interactions) {
    DagInteraction d;
    d.bus = i.bus;
    d.count_weight = i.count_weight;
    for (const Expr& m : i.message) d.message.push_back(b.add(m));
    d.count = b.add(i.count);
    inter.push_back(std::move(d));
  }
  SymbolicDag dag = b.take();
  if (emitted_roots) *emitted_roots = idx;
  std::sort(idx.begin(), idx.end());
  idx.erase(std::unique(idx.begin(), idx.end()), idx.end());
  dag.constraint_idx = std::move(idx);
  dag.interactions = std::move(inter);
  return dag;
}

bool SymbolicDag::need_rot() const {
  return std::any_of(nodes.begin(), nodes.end(), [](const DagNode& n) {
    return n.kind == NodeKind::Variable && (n.var.entry == EntryKind::Main || n.var.entry == EntryKind::Preprocessed) &&
           n.var.offset == 1;
  });
}

uint32_t SymbolicDag::max_root_degree() const {
  uint32_t d = 0;
  for (uint32_t i : constraint_idx) d = std::max(d, node_degree(nodes[i]));
  for (const DagInteraction& in : interactions) {
    d = std::max(d, node_degree(nodes[in.count]));
    for (uint32_t m : in.message) d = std::max(d, node_degree(nodes[m]));
  }
  return d;
}

std::vector<uint32_t> SymbolicDag::count_by_kind() const {
  std::vector<uint32_t> c(9, 0);
  for (const DagNode& n : nodes) ++c[static_cast<size_t>(n.kind)];
  return c;
}

std::vector<bool> SymbolicDag::live_nodes() const {
  std::vector<uint32_t> roots(constraint_idx.begin(), constraint_idx.end());
  for (const DagInteraction& in : interactions) {
    roots.insert(roots.end(), in.message.begin(), in.message.end());
    roots.push_back(in.count);
  }
  return reachable(roots);
}

std::vector<bool> SymbolicDag::reachable(std::span<const uint32_t> roots) const {
  std::vector<bool> live(nodes.size(), false);
  for (uint32_t i : roots) live[i] = true;
  for (size_t i = nodes.size(); i-- > 0;) {
    if (!live[i]) continue;
    const DagNode& n = nodes[i];
    switch (n.kind) {
      case NodeKind::Add:
      case NodeKind::Sub:
      case NodeKind::Mul:
        live[n.right] = true;
        [[fallthrough]];
      case NodeKind::Neg:
        live[n.left] = true;
        break;
      default:
        break;
    }
  }
  return live;
}

uint32_t node_degree(const DagNode& n) {
  switch (n.kind) {
    case NodeKind::Variable:
      return n.var.entry == EntryKind::Preprocessed || n.var.entry == EntryKind::Main ? 1 : 0;
    case NodeKind::IsFirstRow:
    case NodeKind::IsLastRow:
    case NodeKind::IsTransition:
      return 1;
    case NodeKind::Constant:
      return 0;
    default:
      return n.degree;
  }
}

std::string dag_problem(const SymbolicDag& dag) {
  const size_t n = dag.nodes.size();
  if (n > kMaxDagNodes) return fmt::format("{} nodes, more than the {} supported", n, kMaxDagNodes);
  std::vector<uint32_t> depth(n, 0);
  for (uint32_t i = 0; i < n; ++i) {
    const DagNode& d = dag.nodes[i];
    if (static_cast<uint8_t>(d.kind) > static_cast<uint8_t>(NodeKind::Mul))
      return fmt::format("node {}: kind {} is not a node kind (0..8)", i, static_cast<uint32_t>(d.kind));
    const bool binary = d.kind == NodeKind::Add || d.kind == NodeKind::Sub || d.kind == NodeKind::Mul;
    if (!binary && d.kind != NodeKind::Neg) continue;
    if (d.left >= i || (binary && d.right >= i))
      return fmt::format("node {}: child {} is not below {}", i, d.left >= i ? d.left : d.right, i);
    const uint32_t l = node_degree(dag.nodes[d.left]);
    const uint32_t r = binary ? node_degree(dag.nodes[d.right]) : 0;
    const uint64_t least = d.kind == NodeKind::Mul ? uint64_t(l) + r : std::max(l, r);
    if (d.degree < least)
      return fmt::format("node {}: degree {} is below the degree {} its children give it", i, d.degree, least);
    depth[i] = 1 + std::max(depth[d.left], binary ? depth[d.right] : 0);
    if (depth[i] > kMaxDagDepth)
      return fmt::format("node {}: depth {} is more than the {} supported", i, depth[i], kMaxDagDepth);
  }
  for (size_t j = 0; j < dag.constraint_idx.size(); ++j) {
    const uint32_t c = dag.constraint_idx[j];
    if (c >= n) return fmt::format("constraint {}: node {} is not below the {} nodes", j, c, n);
    if (j > 0 && c <= dag.constraint_idx[j - 1])
      return fmt::format("constraint {}: node {} does not follow {} (constraint_idx is sorted, without repeats)", j, c,
                         dag.constraint_idx[j - 1]);
  }
  for (size_t j = 0; j < dag.interactions.size(); ++j) {
    const DagInteraction& in = dag.interactions[j];
    if (in.message.empty()) return fmt::format("interaction {} (bus {}): the message is empty", j, in.bus);
    for (size_t f = 0; f < in.message.size(); ++f)
      if (in.message[f] >= n)
        return fmt::format("interaction {} (bus {}): message field {} is node {}, not below the {} nodes", j, in.bus, f,
                           in.message[f], n);
    if (in.count >= n)
      return fmt::format("interaction {} (bus {}): the count is node {}, not below the {} nodes", j, in.bus, in.count,
                         n);
  }
  return {};
}

uint32_t max_constraint_degree(const SymbolicAir& air) {
  uint32_t d = 0;
  for (const Expr& c : air.constraints) d = std::max(d, c.degree());
  for (const InteractionExpr& i : air.interactions) {
    d = std::max(d, i.count.degree());
    for (const Expr& m : i.message) d = std::max(d, m.degree());
  }
  return d;
}

std::string node_to_string(const SymbolicDag& dag, uint32_t root, size_t max_chars) {
  std::string out;
  detail::append_expr_text(
      root, out, max_chars, [&](uint32_t i) -> const DagNode& { return dag.nodes.at(i); },
      [](const DagNode& n) { return n.left; }, [](const DagNode& n) { return n.right; });
  if (out.size() > max_chars) {
    out.resize(max_chars);
    out += "...";
  }
  return out;
}

}  // namespace vkstark
