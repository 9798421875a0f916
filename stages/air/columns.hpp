// Typed columns: an AIR declares its columns as a struct template over the slot type, and reads,
// fills and names them through it instead of by index.
//
//   template <class T>
//   struct RangeCols {
//     T x, lo, hi;
//     std::array<std::array<T, 4>, 2> limbs;  // limbs[i][j]
//     PairCols<T> pair;                       // a nested group: pair.a, pair.b
//     template <class F> void visit(F&& f) { f("x", x); f("lo", lo); f("hi", hi); f("limbs", limbs); f("pair", pair); }
//   };
//
//   AirShape shape() const override { return {.common_width = column_count<RangeCols>()}; }
//   std::vector<std::vector<std::string>> column_names() const override { return {column_names_of<RangeCols>()}; }
//   void eval(AirBuilder& b) const override {
//     const RangeCols<Expr> local = read_columns<RangeCols>(b.main(), 0), next = read_columns<RangeCols>(b.main(), 1);
//     b.assert_eq(local.x, local.lo + local.hi * 256);
//   }
//   // trace generation: static const RangeCols<uint32_t> at = column_indices<RangeCols>();
//   //                   trace.at(row, at.limbs[1][2]) = ...;
//
// visit() names every member in column order; a member is a slot (T), a std::array of members (any
// depth: names "limbs[1][2]"), or a struct with its own visit() (names "pair.a"). Columns are
// numbered in visit order. Every member must be visited, once: a member left out would be a column
// no constraint sees (an AIR under-constrained without a word), so the first use of a column
// struct (column_count, column_indices, column_names_of, read_columns: so its AIR's shape(), and
// keygen) throws InputError naming the struct and the member's place ("4 bytes after column 'lo'")
// where Cols<uint32_t>'s slots do not cover it exactly. A column struct holds columns only. With Air::column_names, the
// debug checker and every message about the AIR's columns use these names ("limbs[1][2]", "x'" for the next row)
// instead of "main[0][5]".
#pragma once

#include <cxxabi.h>
#include <fmt/format.h>

#include <array>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <vector>

#include "runtime/error.hpp"
#include "stages/air/air.hpp"

namespace vkstark {

namespace columns_detail {

template <class S>
struct is_std_array : std::false_type {};
template <class S, size_t N>
struct is_std_array<std::array<S, N>> : std::true_type {};

struct NoOp {
  template <class M>
  void operator()(const char*, M&) const {}
};
template <class S>
concept Visitable = requires(S& s) {
  s.visit(NoOp{});
};

// f(name, slot) for every slot of `s` in column order.
template <class Slot, class S, class F>
void walk(const std::string& name, S& s, F& f) {
  if constexpr (std::is_same_v<S, Slot>) {
    f(name, s);
  } else if constexpr (is_std_array<S>::value) {
    for (size_t i = 0; i < s.size(); ++i) walk<Slot>(name + "[" + std::to_string(i) + "]", s[i], f);
  } else {
    static_assert(Visitable<S>, "a column struct member must be a slot, a std::array, or a struct with visit()");
    s.visit([&](const char* member, auto& m) { walk<Slot>(name.empty() ? member : name + "." + member, m, f); });
  }
}

// The type's name as written ("TestCols<unsigned int>"), for messages.
inline std::string type_name(const char* mangled) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> name(abi::__cxa_demangle(mangled, nullptr, nullptr, &status), std::free);
  return status == 0 && name ? std::string(name.get()) : std::string(mangled);
}

// "" when the visited slots of `c` (a Cols<uint32_t>) cover its bytes exactly once, else what is
// wrong: the first byte range no slot covers (a member not visited, named by the column before it)
// or a slot visited twice.
template <class S>
std::string coverage_error(S& c) {
  std::map<size_t, std::string> at;  // byte offset -> the column there
  std::string twice;
  auto note = [&](const std::string& name, uint32_t& slot) {
    const size_t offset = size_t(reinterpret_cast<const char*>(&slot) - reinterpret_cast<const char*>(&c));
    if (!at.emplace(offset, name).second && twice.empty())
      twice = fmt::format("column '{}' is the slot of column '{}' again (a member visited twice)", name, at[offset]);
  };
  walk<uint32_t>("", c, note);
  if (!twice.empty()) return twice;
  size_t expected = 0;
  std::string before;
  for (const auto& [offset, name] : at) {
    if (offset != expected) break;
    expected += sizeof(uint32_t);
    before = name;
  }
  if (expected == sizeof(S) && at.size() * sizeof(uint32_t) == sizeof(S)) return "";
  const std::string where = before.empty() ? "before the first column" : fmt::format("after column '{}'", before);
  return fmt::format("bytes {}.. of its {} are in no column ({}): a member visit() leaves out", expected, sizeof(S),
                     where);
}

// Throws InputError, once per Cols, where visit() does not cover Cols exactly (coverage_error).
template <template <class> class Cols>
void check_covered() {
  static const bool checked = [] {
    Cols<uint32_t> c{};
    if (const std::string e = coverage_error(c); !e.empty())
      throw InputError(fmt::format("column struct {}: {}; every member must be visited once (stages/air/columns.hpp)",
                                   type_name(typeid(Cols<uint32_t>).name()), e));
    return true;
  }();
  (void)checked;
}

}  // namespace columns_detail

// The number of columns of Cols.
template <template <class> class Cols>
uint32_t column_count() {
  columns_detail::check_covered<Cols>();
  Cols<uint32_t> c{};
  uint32_t n = 0;
  auto count = [&](const std::string&, uint32_t&) { ++n; };
  columns_detail::walk<uint32_t>("", c, count);
  return n;
}

// Every slot holding its column index.
template <template <class> class Cols>
Cols<uint32_t> column_indices() {
  columns_detail::check_covered<Cols>();
  Cols<uint32_t> c{};
  uint32_t n = 0;
  auto number = [&](const std::string&, uint32_t& slot) { slot = n++; };
  columns_detail::walk<uint32_t>("", c, number);
  return c;
}

// The columns' names in column order ("x", "limbs[1][2]", "pair.a").
template <template <class> class Cols>
std::vector<std::string> column_names_of() {
  columns_detail::check_covered<Cols>();
  Cols<uint32_t> c{};
  std::vector<std::string> names;
  auto name = [&](const std::string& n, uint32_t&) { names.push_back(n); };
  columns_detail::walk<uint32_t>("", c, name);
  return names;
}

// The columns of window w as expressions, on the local row (offset 0) or the next (offset 1).
// InputError (naming the AIR) when Cols is wider than the window.
template <template <class> class Cols>
Cols<Expr> read_columns(const Window& w, uint32_t offset) {
  columns_detail::check_covered<Cols>();
  Cols<Expr> c{};
  uint32_t n = 0;
  auto read = [&](const std::string&, Expr& slot) {
    slot = offset == 0 ? w.local(n) : w.next(n);
    ++n;
  };
  columns_detail::walk<Expr>("", c, read);
  return c;
}

}  // namespace vkstark
