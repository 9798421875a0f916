// Host evaluation of the constraint DAG (protocol.md 9.1): the reference every device and CPU
// evaluator is tested against, the verifier's evaluator over the extension field, and the debug
// checker that names the first violated constraint.
//
// The row view of an AIR: the three selectors; then for every part in the order preprocessed (if
// any), cached_0 .. cached_{m-1}, common, its local and next row; and the public values. Every
// evaluator reads variables through row_view_part() so the part order is defined once.
//
// Thread-compatible; the functions are pure.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "kernels/field/fp4.hpp"
#include "stages/air/air.hpp"
#include "stages/air/dag.hpp"

namespace vkstark {

// The index in row-view order of the part a trace variable reads (Preprocessed or Main).
uint32_t row_view_part(const Variable& v, const AirShape& shape);

// What one row evaluation reads. T is Fp (trace rows) or Fp4 (opened values, folded tables).
template <class T>
class RowSource {
 public:
  virtual ~RowSource() = default;
  virtual T selector(NodeKind kind) const = 0;  // IsFirstRow, IsLastRow or IsTransition
  // Column `col` of row-view part `part`, local row (offset 0) or next row (offset 1).
  virtual T value(uint32_t part, uint32_t offset, uint32_t col) const = 0;
  virtual Fp public_value(uint32_t i) const = 0;
};

// The value of every node (values.size() becomes dag.nodes.size()).
template <class T>
void eval_nodes(const SymbolicDag& dag, const AirShape& shape, const RowSource<T>& row, std::vector<T>& values);

// sum_i lambda_powers[i] * values[constraint_idx[i]] (lambda_powers.size() >= num_constraints).
template <class T>
Fp4 fold_constraints(const SymbolicDag& dag, std::span<const T> values, std::span<const Fp4> lambda_powers);

// 1, lambda, lambda^2, ... (n values).
std::vector<Fp4> powers(Fp4 lambda, size_t n);

// A row source over host trace parts in row-view order (all of one height H, a power of two), at
// row r: selectors from r, next row (r + 1) mod H.
class TraceRows final : public RowSource<Fp> {
 public:
  TraceRows(std::span<const TraceMatrix> parts, std::span<const Fp> public_values);
  // The same over parts held elsewhere (not copied; they must outlive the source).
  TraceRows(std::span<const TraceMatrix* const> parts, std::span<const Fp> public_values);
  void set_row(uint32_t r) { row_ = r; }
  uint32_t height() const { return height_; }
  Fp selector(NodeKind kind) const override;
  Fp value(uint32_t part, uint32_t offset, uint32_t col) const override;
  Fp public_value(uint32_t i) const override { return pvs_[i]; }

 private:
  std::vector<const TraceMatrix*> parts_;
  std::span<const Fp> pvs_;
  uint32_t height_ = 0;
  uint32_t row_ = 0;
};

// For each row r of the trace, sum_i lambda^i C_i(row r): the plain reference of the constraint
// kernels. `parts` in row-view order. InputError when the parts do not match `shape`.
std::vector<Fp4> eval_constraints_on_trace(const SymbolicDag& dag, const AirShape& shape,
                                           std::span<const TraceMatrix> parts, std::span<const Fp> public_values,
                                           std::span<const Fp4> lambda_powers);

// InputError naming the AIR and what is wrong when `parts` (row-view order) or the public values do
// not fit `shape`: part count, widths, equal heights, a power-of-two height.
void check_trace_shape(const std::string& air, const AirShape& shape, std::span<const TraceMatrix> parts,
                       std::span<const Fp> public_values);
void check_trace_shape(const std::string& air, const AirShape& shape, std::span<const TraceMatrix* const> parts,
                       std::span<const Fp> public_values);

// VKSTARK_DEBUG_CONSTRAINTS is set and not "0": the prover runs the debug checker
// (stages/air/debug_check.hpp) before every proof.
bool debug_constraints_enabled();

}  // namespace vkstark
