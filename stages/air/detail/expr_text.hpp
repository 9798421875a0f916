// The text of an expression tree or DAG node (for messages), written once for both: `at(id)`
// gives a node with kind, var, constant, and children `left(n)`, `right(n)` as ids. Iterative over
// an explicit stack (a long left-folded sum is a deep tree); stops once out exceeds max_chars.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "stages/air/expr.hpp"

namespace vkstark::detail {

// `name(var)` gives a variable's text (to_string(var) when not given).
template <class Id, class At, class Left, class Right, class Name = std::string (*)(const Variable&)>
void append_expr_text(
    Id root, std::string& out, size_t max_chars, At at, Left left, Right right,
    Name name = [](const Variable& v) { return to_string(v); }) {
  struct Item {
    Id node;
    const char* text;  // literal text to emit instead of a node
  };
  std::vector<Item> stack{{root, nullptr}};
  while (!stack.empty() && out.size() <= max_chars) {
    Item it = stack.back();
    stack.pop_back();
    if (it.text) {
      out += it.text;
      continue;
    }
    const auto& n = at(it.node);
    switch (n.kind) {
      case NodeKind::Variable:
        out += name(n.var);
        break;
      case NodeKind::IsFirstRow:
        out += "is_first_row";
        break;
      case NodeKind::IsLastRow:
        out += "is_last_row";
        break;
      case NodeKind::IsTransition:
        out += "is_transition";
        break;
      case NodeKind::Constant:
        out += to_string(n.constant);
        break;
      case NodeKind::Neg:
        out += "-(";
        stack.push_back({Id{}, ")"});
        stack.push_back({left(n), nullptr});
        break;
      case NodeKind::Add:
      case NodeKind::Sub:
      case NodeKind::Mul: {
        const char* op = n.kind == NodeKind::Add ? " + " : n.kind == NodeKind::Sub ? " - " : " * ";
        out += "(";
        stack.push_back({Id{}, ")"});
        stack.push_back({right(n), nullptr});
        stack.push_back({Id{}, op});
        stack.push_back({left(n), nullptr});
        break;
      }
    }
  }
}

}  // namespace vkstark::detail
