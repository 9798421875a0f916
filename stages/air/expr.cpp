#include "stages/air/expr.hpp"

#include <algorithm>
#include <utility>

#include <fmt/format.h>

#include "stages/air/detail/expr_text.hpp"

namespace vkstark {

namespace {

Expr make(ExprNode n) { return Expr(std::make_shared<const ExprNode>(std::move(n))); }

Expr leaf(NodeKind kind, uint32_t degree) {
  ExprNode n;
  n.kind = kind;
  n.degree = degree;
  return make(std::move(n));
}

Expr binary(NodeKind kind, const Expr& a, const Expr& b, uint32_t degree) {
  ExprNode n;
  n.kind = kind;
  n.degree = degree;
  n.left = a.shared();
  n.right = b.shared();
  return make(std::move(n));
}

Expr constant(Fp c) {
  ExprNode n;
  n.kind = NodeKind::Constant;
  n.constant = c;
  return make(std::move(n));
}

const Expr& zero_expr() {
  static const Expr z = constant(Fp::zero());
  return z;
}

}  // namespace

ExprNode::~ExprNode() {
  // Children this node alone owns are released from an explicit stack, each after its own children
  // were moved out, so no destructor recurses.
  std::vector<std::shared_ptr<const ExprNode>> pending;
  auto take = [&](std::shared_ptr<const ExprNode>& p) {
    if (p && p.use_count() == 1) pending.push_back(std::move(p));
  };
  take(left);
  take(right);
  while (!pending.empty()) {
    std::shared_ptr<const ExprNode> n = std::move(pending.back());
    pending.pop_back();
    take(n->left);
    take(n->right);
  }
}

Expr::Expr() : node_(zero_expr().shared()) {}
Expr::Expr(Fp c) : Expr(constant(c)) {}
Expr Expr::from_integer(int64_t c) {
  const int64_t p = Fp::P;
  return constant(Fp::from_canonical_unchecked(static_cast<uint32_t>(((c % p) + p) % p)));
}

Expr Expr::variable(Variable v) {
  ExprNode n;
  n.kind = NodeKind::Variable;
  n.var = v;
  n.degree = (v.entry == EntryKind::Public || v.entry == EntryKind::Challenge) ? 0 : 1;
  return make(std::move(n));
}
Expr Expr::is_first_row() { return leaf(NodeKind::IsFirstRow, 1); }
Expr Expr::is_last_row() { return leaf(NodeKind::IsLastRow, 1); }
Expr Expr::is_transition() { return leaf(NodeKind::IsTransition, 1); }

NodeKind Expr::kind() const { return node_->kind; }
uint32_t Expr::degree() const { return node_->degree; }

Expr operator+(const Expr& a, const Expr& b) { return binary(NodeKind::Add, a, b, std::max(a.degree(), b.degree())); }
Expr operator-(const Expr& a, const Expr& b) { return binary(NodeKind::Sub, a, b, std::max(a.degree(), b.degree())); }
Expr operator*(const Expr& a, const Expr& b) { return binary(NodeKind::Mul, a, b, a.degree() + b.degree()); }
Expr operator-(const Expr& a) {
  ExprNode n;
  n.kind = NodeKind::Neg;
  n.degree = a.degree();
  n.left = a.shared();
  return make(std::move(n));
}

std::string to_string(const Variable& v) {
  const char* row = v.offset == 0 ? "" : ".next";
  switch (v.entry) {
    case EntryKind::Preprocessed:
      return fmt::format("preprocessed{}[{}]", row, v.index);
    case EntryKind::Main:
      return fmt::format("main[{}]{}[{}]", v.part, row, v.index);
    case EntryKind::Public:
      return fmt::format("public[{}]", v.index);
    case EntryKind::Challenge:
      return fmt::format("challenge[{}]", v.index);
  }
  return "?";
}

std::string to_string(const Expr& e, size_t max_chars) {
  return to_string(e, max_chars, [](const Variable& v) { return to_string(v); });
}

std::string to_string(const Expr& e, size_t max_chars, const std::function<std::string(const Variable&)>& name) {
  std::string out;
  detail::append_expr_text(
      e.id(), out, max_chars, [](const ExprNode* n) -> const ExprNode& { return *n; },
      [](const ExprNode& n) { return n.left.get(); }, [](const ExprNode& n) { return n.right.get(); }, name);
  if (out.size() > max_chars) {
    out.resize(max_chars);
    out += "...";
  } else if (out.size() > 2 && out.front() == '(' && out.back() == ')') {
    // drop the outermost parentheses of a binary expression
    int depth = 0;
    bool outer = true;
    for (size_t i = 0; i + 1 < out.size(); ++i) {
      depth += out[i] == '(' ? 1 : out[i] == ')' ? -1 : 0;
      if (depth == 0) {
        outer = false;
        break;
      }
    }
    if (outer) out = out.substr(1, out.size() - 2);
  }
  return out;
}

Expr bool_check(const Expr& x) { return x * (x - Expr(1)); }
Expr xor2(const Expr& a, const Expr& b) { return (a + b) - a * (b + b); }
Expr xor3(const Expr& a, const Expr& b, const Expr& c) { return xor2(xor2(a, b), c); }
Expr andn(const Expr& a, const Expr& b) { return (Expr(1) - a) * b; }

}  // namespace vkstark
