// Symbolic expressions of an AIR's constraints (protocol.md 4.1-4.3): what a user writes in eval(),
// with operators that read like the math:
//
//   void eval(AirBuilder& b) const override {
//     Window m = b.main();
//     b.when_first_row().assert_eq(m.local(0), b.public_value(0));
//     b.when_transition().assert_eq(m.next(1), m.local(0) + m.local(1));
//   }
//
// An Expr is an immutable tree node shared by reference (copying an Expr copies a pointer), so an
// expression used twice is one tree node; the DAG builder (stages/air/dag.hpp) interns identical
// nodes and applies the simplifications of protocol.md 4.3. Degrees (`degree_multiple`) are
// computed here, on the trees before any simplification: variables and selectors 1, constants and
// public values 0, Add/Sub max, Mul sum, Neg the same.
//
// Value types; an Expr may be shared between threads once built (its node is never modified).
#pragma once

#include <concepts>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "kernels/field/fp.hpp"

namespace vkstark {

// Node kinds, numbered as the serialisation variant index of protocol.md 4.3.
enum class NodeKind : uint8_t {
  Variable = 0,
  IsFirstRow = 1,
  IsLastRow = 2,
  IsTransition = 3,
  Constant = 4,
  Add = 5,
  Sub = 6,
  Neg = 7,
  Mul = 8,
};

// Where a variable comes from (protocol.md 4.3 `Entry`, same variant numbers). Challenge variables
// are not supported (keygen rejects them).
enum class EntryKind : uint8_t { Preprocessed = 0, Main = 1, Public = 2, Challenge = 3 };

// A trace or public-value variable. `part` is the main part index (cached_0 .. cached_{m-1}, then
// the common main as part m) and matters only for Main; `offset` is 0 (local row) or 1 (next row)
// for Preprocessed and Main, and 0 for Public; `index` is the column (or public value) index.
struct Variable {
  EntryKind entry = EntryKind::Main;
  uint32_t part = 0;
  uint32_t offset = 0;
  uint32_t index = 0;
  bool operator==(const Variable&) const = default;
  auto operator<=>(const Variable&) const = default;
};

struct ExprNode;

class Expr {
 public:
  Expr();      // the constant 0
  Expr(Fp c);  // NOLINT(google-explicit-constructor): constants mix freely
  template <std::integral I>
  Expr(I c) : Expr(from_integer(static_cast<int64_t>(c))) {}  // NOLINT: reduced mod p, negatives too
  static Expr variable(Variable v);
  static Expr is_first_row();
  static Expr is_last_row();
  static Expr is_transition();

  NodeKind kind() const;
  uint32_t degree() const;  // degree_multiple
  const ExprNode& node() const { return *node_; }
  const ExprNode* id() const { return node_.get(); }  // identity of the tree node
  const std::shared_ptr<const ExprNode>& shared() const { return node_; }

  friend Expr operator+(const Expr& a, const Expr& b);
  friend Expr operator-(const Expr& a, const Expr& b);
  friend Expr operator*(const Expr& a, const Expr& b);
  friend Expr operator-(const Expr& a);
  Expr& operator+=(const Expr& o) { return *this = *this + o; }
  Expr& operator-=(const Expr& o) { return *this = *this - o; }
  Expr& operator*=(const Expr& o) { return *this = *this * o; }

  explicit Expr(std::shared_ptr<const ExprNode> n) : node_(std::move(n)) {}

 private:
  static Expr from_integer(int64_t c);
  std::shared_ptr<const ExprNode> node_;
};

struct ExprNode {
  NodeKind kind = NodeKind::Constant;
  uint32_t degree = 0;
  Variable var;  // Variable
  Fp constant;   // Constant
  // Add, Sub, Mul: both; Neg: left. Mutable only so that the destructor can take them apart
  // iteratively (a left-folded sum of 10^5 terms is that deep; recursive destruction would overflow
  // the stack); nothing else modifies a node after it is built.
  mutable std::shared_ptr<const ExprNode> left;
  mutable std::shared_ptr<const ExprNode> right;

  ExprNode() = default;
  ExprNode(const ExprNode&) = default;
  ExprNode(ExprNode&&) = default;
  ExprNode& operator=(const ExprNode&) = default;
  ExprNode& operator=(ExprNode&&) = default;
  ~ExprNode();
};

// Readable text of an expression (for error messages and the debug checker), e.g.
// "is_transition * (main[0].next[1] - (main[0][0] + main[0][1]))". Long expressions are cut at
// `max_chars` with "...".
std::string to_string(const Expr& e, size_t max_chars = 400);
// The same with each variable's text from `name` (column names: expression_text in air.hpp).
std::string to_string(const Expr& e, size_t max_chars, const std::function<std::string(const Variable&)>& name);
std::string to_string(const Variable& v);

// Common constraint shapes (Plonky3's arithmetisation, protocol.md 15.1).
Expr bool_check(const Expr& x);                          // x * (x - 1)
Expr xor2(const Expr& a, const Expr& b);                 // a + b - a * (b + b)
Expr xor3(const Expr& a, const Expr& b, const Expr& c);  // xor2(xor2(a, b), c)
Expr andn(const Expr& a, const Expr& b);                 // (1 - a) * b

}  // namespace vkstark
