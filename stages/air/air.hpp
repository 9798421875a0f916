// The AIR API (protocol.md 4.1-4.2): what a user implements to prove a computation.
//
//   class FibonacciAir final : public Air {
//    public:
//     std::string name() const override { return "fibonacci"; }
//     AirShape shape() const override { return {.common_width = 2, .num_public_values = 3}; }
//     void eval(AirBuilder& b) const override { ... }   // constraints and interactions
//   };
//
// eval() runs once, at keygen, on a symbolic builder: it records constraints (in emission order)
// and interactions as expression trees (stages/air/expr.hpp). Nothing in eval() sees trace values.
//
// Traces are host matrices, column-major like the device buffers (TraceMatrix). Thread-compatible.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "kernels/field/fp.hpp"
#include "runtime/host_memory.hpp"
#include "stages/air/expr.hpp"

namespace vkstark {

struct StarkVerifyingKey;  // stages/air/verifying_key.hpp

// The widths of an AIR's trace parts and its number of public values.
struct AirShape {
  uint32_t preprocessed_width = 0;        // 0: no preprocessed trace
  std::vector<uint32_t> cached_widths{};  // one per cached main part (each committed on its own)
  uint32_t common_width = 0;              // the common main part (committed with other AIRs')
  uint32_t num_public_values = 0;
  uint32_t num_cached() const { return static_cast<uint32_t>(cached_widths.size()); }
  // Parts in row-view order (protocol.md 9.1): preprocessed (if any), cached_0.., common.
  std::vector<uint32_t> row_view_widths() const;
};

// A trace's cells: an array of the heap (as a std::vector), or the first cells of HostMemory that
// the executor's uploads read in place (Executor::host_memory: no staging copy when it is proved).
// Copies are heap arrays of the same cells; a move keeps the memory. Where the cells live does not
// change equality.
class TraceValues {
 public:
  TraceValues() = default;
  explicit TraceValues(size_t n) : heap_(n) {}             // n zeros
  TraceValues(std::vector<Fp> v) : heap_(std::move(v)) {}  // NOLINT: as the vector it stands for
  // The first n cells of `memory`, as they are (the caller writes them). InputError when the memory
  // is null or smaller than n cells.
  TraceValues(std::shared_ptr<HostMemory> memory, size_t n);
  TraceValues(const TraceValues& o) : heap_(o.begin(), o.end()) {}
  TraceValues(TraceValues&& o) noexcept { *this = std::move(o); }
  TraceValues& operator=(const TraceValues& o) {
    if (this != &o) *this = TraceValues(o);
    return *this;
  }
  TraceValues& operator=(TraceValues&& o) noexcept {
    heap_ = std::exchange(o.heap_, {});
    memory_ = std::exchange(o.memory_, nullptr);
    count_ = std::exchange(o.count_, 0);
    return *this;
  }

  size_t size() const { return memory_ ? count_ : heap_.size(); }
  bool empty() const { return size() == 0; }
  Fp* data() { return memory_ ? reinterpret_cast<Fp*>(memory_->data()) : heap_.data(); }
  const Fp* data() const { return memory_ ? reinterpret_cast<const Fp*>(memory_->data()) : heap_.data(); }
  Fp& operator[](size_t i) { return data()[i]; }
  const Fp& operator[](size_t i) const { return data()[i]; }
  Fp* begin() { return data(); }
  Fp* end() { return data() + size(); }
  const Fp* begin() const { return data(); }
  const Fp* end() const { return data() + size(); }
  operator std::span<const Fp>() const { return {data(), size()}; }  // NOLINT: as the vector's
  std::span<const Fp> span() const { return {data(), size()}; }
  std::vector<Fp> to_vector() const { return {begin(), end()}; }
  // Fewer or more cells (more: zeros on the heap; in host memory, within it, as they are).
  // InputError past the host memory.
  void resize(size_t n);
  void pop_back() { resize(size() - 1); }
  // The HostMemory the cells live in (null: the heap).
  const std::shared_ptr<HostMemory>& memory() const { return memory_; }
  bool operator==(const TraceValues& o) const { return std::equal(begin(), end(), o.begin(), o.end()); }

 private:
  std::vector<Fp> heap_;
  std::shared_ptr<HostMemory> memory_;
  size_t count_ = 0;  // of memory_'s cells
};

// A host trace part: `width` columns of `height` rows, column-major (value(row, col) =
// values[col * height + row]).
struct TraceMatrix {
  uint32_t width = 0;
  uint32_t height = 0;
  TraceValues values;

  TraceMatrix() = default;
  TraceMatrix(uint32_t w, uint32_t h) : width(w), height(h), values(size_t(w) * h) {}
  Fp& at(uint32_t row, uint32_t col) { return values[size_t(col) * height + row]; }
  Fp at(uint32_t row, uint32_t col) const { return values[size_t(col) * height + row]; }
  bool operator==(const TraceMatrix&) const = default;
};

// One LogUp interaction as the AIR declares it (protocol.md 4.1). A send has count c, the matching
// receive -c.
struct InteractionExpr {
  uint16_t bus = 0;
  std::vector<Expr> message;
  Expr count;
  uint32_t count_weight = 1;
};

// Local and next row of one trace part.
class Window {
 public:
  Window(EntryKind entry, uint32_t part, uint32_t width, std::string air = {})
      : entry_(entry), part_(part), width_(width), air_(std::move(air)) {}
  Expr local(uint32_t col) const { return at(0, col); }
  Expr next(uint32_t col) const { return at(1, col); }
  std::vector<Expr> local_row() const;
  std::vector<Expr> next_row() const;
  uint32_t width() const { return width_; }

 private:
  Expr at(uint32_t offset, uint32_t col) const;  // InputError past the width
  EntryKind entry_;
  uint32_t part_;
  uint32_t width_;
  std::string air_;
};

class AirBuilder;

// Constraints under a filter: assert_zero(x) asserts cond * x (chained filters nest:
// when(A).when(B).assert_zero(x) asserts A * (B * x), as Plonky3's FilteredAirBuilder does).
class FilteredBuilder {
 public:
  FilteredBuilder(AirBuilder& b, std::vector<Expr> conds) : b_(b), conds_(std::move(conds)) {}
  FilteredBuilder when(const Expr& cond) const;
  FilteredBuilder when_first_row() const { return when(Expr::is_first_row()); }
  FilteredBuilder when_last_row() const { return when(Expr::is_last_row()); }
  FilteredBuilder when_transition() const { return when(Expr::is_transition()); }
  FilteredBuilder when_ne(const Expr& a, const Expr& b) const { return when(a - b); }
  void assert_zero(const Expr& x) const;
  void assert_eq(const Expr& a, const Expr& b) const { assert_zero(a - b); }
  void assert_one(const Expr& x) const { assert_zero(x - Expr(1)); }
  void assert_bool(const Expr& x) const { assert_zero(bool_check(x)); }

 private:
  AirBuilder& b_;
  std::vector<Expr> conds_;  // outermost first
};

// What eval() builds with. Records constraints and interactions in emission order.
class AirBuilder {
 public:
  AirBuilder(std::string air_name, AirShape shape);

  Window preprocessed() const;      // InputError if the AIR has no preprocessed part
  Window cached(uint32_t i) const;  // cached main part i
  Window main() const;              // the common main part
  Expr public_value(uint32_t i) const;
  Expr is_first_row() const { return Expr::is_first_row(); }
  Expr is_last_row() const { return Expr::is_last_row(); }
  Expr is_transition() const { return Expr::is_transition(); }

  void assert_zero(const Expr& x);
  void assert_eq(const Expr& a, const Expr& b) { assert_zero(a - b); }
  void assert_one(const Expr& x) { assert_zero(x - Expr(1)); }
  void assert_bool(const Expr& x) { assert_zero(bool_check(x)); }
  FilteredBuilder when(const Expr& cond) { return FilteredBuilder(*this, {cond}); }
  FilteredBuilder when_first_row() { return when(is_first_row()); }
  FilteredBuilder when_last_row() { return when(is_last_row()); }
  FilteredBuilder when_transition() { return when(is_transition()); }
  // when(a - b): holds where a != b
  FilteredBuilder when_ne(const Expr& a, const Expr& b) { return when(a - b); }

  // An interaction: `message` on `bus` with multiplicity `count` (a send counts positively, a
  // receive negatively). count_weight: a bound the AIR promises on |count| per row, for the
  // verifier's trace-height check (protocol.md 4.1); 0 for a lookup table's multiplicities (see
  // LookupBus in stages/air/bus.hpp).
  void push_interaction(uint16_t bus, std::vector<Expr> message, Expr count, uint32_t count_weight = 1);
  void send(uint16_t bus, std::vector<Expr> message, Expr count, uint32_t count_weight = 1) {
    push_interaction(bus, std::move(message), std::move(count), count_weight);
  }
  void receive(uint16_t bus, std::vector<Expr> message, const Expr& count, uint32_t count_weight = 1) {
    push_interaction(bus, std::move(message), -count, count_weight);
  }
  // A name for `bus` in messages (the debug checker's "bus 3 (bytes)"); the Bus types set it.
  void name_bus(uint16_t bus, std::string name) { bus_names_[bus] = std::move(name); }
  const std::map<uint16_t, std::string>& bus_names() const { return bus_names_; }

  const std::string& air_name() const { return name_; }
  const AirShape& shape() const { return shape_; }
  const std::vector<Expr>& constraints() const { return constraints_; }
  const std::vector<InteractionExpr>& interactions() const { return interactions_; }

 private:
  std::string name_;
  AirShape shape_;
  std::vector<Expr> constraints_;
  std::vector<InteractionExpr> interactions_;
  std::map<uint16_t, std::string> bus_names_;
};

class Air {
 public:
  virtual ~Air() = default;
  virtual std::string name() const = 0;
  virtual AirShape shape() const = 0;
  virtual void eval(AirBuilder& b) const = 0;
  // The preprocessed trace (fixed at keygen; its height fixes the AIR's height) when shape() has a
  // preprocessed part.
  virtual std::optional<TraceMatrix> preprocessed_trace() const { return std::nullopt; }
  // The columns' names, per part in row-view order (preprocessed if any, cached.., common), each as
  // wide as its part; {} (the default): unnamed, messages say "main[0][5]". With typed columns
  // (stages/air/columns.hpp) column_names_of<Cols>() gives a part's names.
  virtual std::vector<std::vector<std::string>> column_names() const { return {}; }
  // An AIR given as data (DagAir, stages/air/dag_air.hpp) returns the verifying key entry it was
  // built from: keygen then takes that entry's constraint DAG, max_constraint_degree and
  // is_required as they are, instead of building them from eval(), so that the key it makes has
  // the entry's bytes. Null (the default): an AIR written in code.
  virtual const StarkVerifyingKey* given_key() const { return nullptr; }
};

// What is wrong with variable `v` in an AIR of shape `s` ("column 7 is past the width 4 of cached
// part 0", "challenge variables are not supported", ...), or "" when it names a column of a part, or
// one of the public values.
std::string variable_problem(const Variable& v, const AirShape& s);

// The constraints and interactions of `air`, from running its eval() on a symbolic builder.
struct SymbolicAir {
  std::string name;
  AirShape shape;
  std::vector<Expr> constraints;
  std::vector<InteractionExpr> interactions;
  std::vector<std::vector<std::string>> column_names{};  // Air::column_names(), checked against shape
  std::map<uint16_t, std::string> bus_names{};           // AirBuilder::name_bus
};
// InputError naming the AIR when its column_names() do not fit its shape.
SymbolicAir symbolic_air(const Air& air);

// How messages name a variable of `air`: its column name where the AIR gives one ("x", "x'" on the
// next row), else to_string(v) ("main[0][5]", "main[0].next[5]").
std::string variable_name(const SymbolicAir& air, const Variable& v);
// An expression of `air` as text with its column names (to_string(e, max_chars) otherwise).
std::string expression_text(const SymbolicAir& air, const Expr& e, size_t max_chars = 400);

}  // namespace vkstark
