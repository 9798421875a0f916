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
