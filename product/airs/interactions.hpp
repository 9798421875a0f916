// The interactions example's AIRs (examples/interactions.cpp explains them line by line): a range
// check through a bus (LogUp interactions).
//
//   Decompose, the "program": rows (x, lo, hi, sum) with x = lo + 256 hi; it looks lo and hi up in
//     the byte table (bus 0, "bytes") and sums the x's into its public value S.
//   ByteTable, the lookup table: the values 0..255 in a preprocessed column and a multiplicity
//     column; it provides each value as many times as the program looked it up.
//
// The statement: the prover knows `rows` numbers below 2^16 (they stay hidden) whose sum is S. Both
// AIRs are proved together, in one proof, so the bus spans them: `vkstark prove --air interactions`.
// Immutable values; thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "stages/air/air.hpp"
#include "stages/air/bus.hpp"
#include "stages/air/columns.hpp"
#include "stages/air/input.hpp"

namespace vkstark {

inline constexpr LookupBus kBytesBus{0, "bytes"};
inline constexpr uint32_t kByteTableRows = 256;

// The program's columns, by name (stages/air/columns.hpp).
template <class T>
struct DecomposeCols {
  T x, lo, hi, sum;
  template <class F>
  void visit(F&& f) {
    f("x", x);
    f("lo", lo);
    f("hi", hi);
    f("sum", sum);
  }
};

// The program. Columns DecomposeCols; public value [S].
class Decompose final : public Air {
 public:
  std::string name() const override { return "example_decompose"; }
  AirShape shape() const override { return {.common_width = column_count<DecomposeCols>(), .num_public_values = 1}; }
  std::vector<std::vector<std::string>> column_names() const override { return {column_names_of<DecomposeCols>()}; }
  void eval(AirBuilder& b) const override;
};

// The table. Preprocessed column value (0..255); main column multiplicity; no public values and no
// constraints (an AIR needs constraints or interactions; either is enough).
class ByteTable final : public Air {
 public:
  std::string name() const override { return "example_byte_table"; }
  AirShape shape() const override { return {.preprocessed_width = 1, .common_width = 1}; }
  std::vector<std::vector<std::string>> column_names() const override { return {{"value"}, {"multiplicity"}}; }
  void eval(AirBuilder& b) const override;
  std::optional<TraceMatrix> preprocessed_trace() const override;
};

// The traces of `rows` numbers (a power of two >= 2; row r holds (r * 2654435761 mod 2^32) >> 16):
// the program's rows, then the table's multiplicities counted from its lookups. With `tamper`, row
// rows / 2 holds x = 70000 (not below 2^16): every constraint still holds, but 273 is sent on the
// bus and the table cannot receive it.
struct InteractionsTraces {
  AirWithTraces program, table;
  uint32_t tampered_row = 0;  // with tamper: the row of x = 70000
};
InteractionsTraces interactions_traces(std::shared_ptr<const Air> program, std::shared_ptr<const Air> table,
                                       uint32_t rows, bool tamper = false);

}  // namespace vkstark
