// custom_air: the rest of the AIR API, on a 0/1 knapsack. Read examples/fibonacci.cpp first.
//
//   preprocessed columns   Air::preprocessed_trace(): fixed at keygen, committed in the verifying key
//   several public values  AirBuilder::public_value(i)
//   row filters            when_first_row(), when_transition(), when_last_row()
//   next-row reads         read_columns(window, 1)
//   named columns          column structs (stages/air/columns.hpp) for both parts
//   boolean columns        assert_bool(x): x * (x - 1) = 0
//   degree 3               a product of two columns under a row filter; params.max_constraint_degree
//   the debug checker      debug_check (stages/air/debug_check.hpp): the AIR, constraint and row that fail
//
//   custom_air [--executor cpu|vulkan|auto] [--rows 1024] [--params secure|test] [--proof FILE]
//              [--bad-row N]
//
// The statement: of `rows` items with fixed weights and values (part of the AIR, so the verifier
// knows them), the prover picked some, which stay hidden: their weights sum to W, their values to V,
// and there are K of them. Public values [W, V, K].
//
// --bad-row N takes item N twice (take = 2) and keeps the sums consistent with that, so the only
// broken constraint is the boolean check of row N. The debug checker names it; the prover, which
// does not check constraints, still makes a proof, and the verifier rejects it (the constraints'
// sum over the skip domain is not zero: batch_constraint.round0_sum_mismatch). With --bad-row the
// exit status is 0 when the checker names row N and the verifier rejects with that code, 1
// otherwise.
#include <fmt/format.h>

#include <bit>

#include "cli/options.hpp"
#include "executors/executors.hpp"
#include "runtime/error.hpp"
#include "stages/air/air.hpp"
#include "stages/air/columns.hpp"
#include "stages/air/debug_check.hpp"
#include "stages/air/keygen.hpp"
#include "stages/prover.hpp"
#include "stages/verifier.hpp"

using namespace vkstark;

namespace {

constexpr uint32_t kNoBadRow = 1u << 22;  // --bad-row's default: no bad row (rows are at most 2^22)

// The items: weight and value of item r, each in [1, 100). (Sums stay far below p: no wrap-around.)
uint32_t item_weight(uint32_t r) { return 1 + (r * 37 + 11) % 97; }
uint32_t item_value(uint32_t r) { return 1 + (r * 53 + 7) % 89; }

// The preprocessed columns: row r holds item r's weight and value.
template <class T>
struct ItemCols {
  T weight, value;
  template <class F>
  void visit(F&& f) {
    f("weight", weight);
    f("value", value);
  }
};

// The main columns: row r holds the choice of item r (take, 0 or 1) and the sums over the items 0..r
// of the weights (w), values (v) and choices (k) taken.
template <class T>
struct KnapsackCols {
  T take, w, v, k;
  template <class F>
  void visit(F&& f) {
    f("take", take);
    f("w", w);
    f("v", v);
    f("k", k);
  }
};

// Preprocessed columns ItemCols, main columns KnapsackCols. Public values [W, V, K].
class Knapsack final : public Air {
 public:
  explicit Knapsack(uint32_t rows) : rows_(rows) {}
  std::string name() const override { return "example_knapsack"; }
  AirShape shape() const override {
    return {.preprocessed_width = column_count<ItemCols>(),
            .common_width = column_count<KnapsackCols>(),
            .num_public_values = 3};
  }
  // The names in messages, per part in row-view order: preprocessed, then the common main part.
  std::vector<std::vector<std::string>> column_names() const override {
    return {column_names_of<ItemCols>(), column_names_of<KnapsackCols>()};
  }

  // The preprocessed trace: fixed columns, the same in every proof. keygen commits it (the verifying
  // key holds the commitment), so the prover cannot change it. Its height fixes the AIR's: this key
  // proves `rows`-row traces only; another height needs another key.
  std::optional<TraceMatrix> preprocessed_trace() const override {
    static const ItemCols<uint32_t> col = column_indices<ItemCols>();
    TraceMatrix t(column_count<ItemCols>(), rows_);
    for (uint32_t r = 0; r < rows_; ++r) {
      t.at(r, col.weight) = Fp::from_canonical(item_weight(r));
      t.at(r, col.value) = Fp::from_canonical(item_value(r));
    }
    return t;
  }

  // Emission order numbers the constraints (0..9): the debug checker names them by that number.
  //
  // Degree: a column (preprocessed or main, local or next row) or a row filter counts 1, a constant
  // or public value 0, a product the sum of its factors. when_transition() multiplies by the
  // is_transition selector, so constraint 4 is is_transition * (w' - w - take' * weight'): degree 3.
  // keygen rejects an AIR with a constraint above params.max_constraint_degree (3 in both presets),
  // naming it. What a degree costs: the prover evaluates an AIR's constraints on (its degree - 1)
  // cosets in the first sumcheck round; with d = params.max_constraint_degree, the proof's first
  // round polynomial has (d + 1)(2^l_skip - 1) + 1 coefficients and each later round d + 1 values,
  // so raising d lengthens every proof. The commitments do not depend on it. A product that would
  // make degree 4 stays at 3 with a column holding part of it (one more column and constraint).
  void eval(AirBuilder& b) const override {
    // Each part's columns on this row (offset 0) and the next (offset 1).
    const ItemCols<Expr> item = read_columns<ItemCols>(b.preprocessed(), 0);
    const ItemCols<Expr> item_next = read_columns<ItemCols>(b.preprocessed(), 1);
    const KnapsackCols<Expr> local = read_columns<KnapsackCols>(b.main(), 0);
    const KnapsackCols<Expr> next = read_columns<KnapsackCols>(b.main(), 1);
    b.assert_bool(local.take);  // 0: on every row, take * (take - 1) = 0
    // The first row starts the sums with item 0.
    b.when_first_row().assert_eq(local.w, local.take * item.weight);  // 1: degree 3 too
    b.when_first_row().assert_eq(local.v, local.take * item.value);   // 2: degree 3 too
    b.when_first_row().assert_eq(local.k, local.take);                // 3
    // `next` reads row r + 1; on the last row it wraps to row 0, so a constraint that reads the next
    // row holds only under when_transition() (every row but the last).
    b.when_transition().assert_eq(next.w, local.w + next.take * item_next.weight);  // 4: degree 3
    b.when_transition().assert_eq(next.v, local.v + next.take * item_next.value);   // 5: degree 3
    b.when_transition().assert_eq(next.k, local.k + next.take);                     // 6
    // The last row's sums are the public values.
    b.when_last_row().assert_eq(local.w, b.public_value(0));  // 7
    b.when_last_row().assert_eq(local.v, b.public_value(1));  // 8
    b.when_last_row().assert_eq(local.k, b.public_value(2));  // 9
  }

 private:
  uint32_t rows_;
};

// The trace: the prover's choice of items (take), the running sums, the public values. Row bad_row
// (if below rows) takes its item twice.
AirWithTraces knapsack_trace(std::shared_ptr<const Air> air, uint32_t rows, uint32_t bad_row) {
  static const KnapsackCols<uint32_t> col = column_indices<KnapsackCols>();
  AirWithTraces t;
  t.air = std::move(air);
  t.common = TraceMatrix(column_count<KnapsackCols>(), rows);
  uint32_t w = 0, v = 0, k = 0;
  for (uint32_t r = 0; r < rows; ++r) {
    uint32_t take = (r * 2654435761u) >> 31;  // any choice of items
    if (r == bad_row) take = 2;
    w += take * item_weight(r);
    v += take * item_value(r);
    k += take;
    t.common.at(r, col.take) = Fp::from_canonical(take);
    t.common.at(r, col.w) = Fp::from_canonical(w);
    t.common.at(r, col.v) = Fp::from_canonical(v);
    t.common.at(r, col.k) = Fp::from_canonical(k);
  }
  t.public_values = {Fp::from_canonical(w), Fp::from_canonical(v), Fp::from_canonical(k)};
  return t;
}

}  // namespace

int main(int argc, char** argv) try {
  cli::Options options("custom_air",
                       "  Proves a 0/1 knapsack: preprocessed columns, public values, row filters, a degree-3\n"
                       "  constraint, a boolean column and the debug checker.");
  std::string executor, params_name, proof_file;
  uint32_t rows = 0, bad_row = 0;
  cli::executor_option(options, executor);
  options.number<uint32_t>("--rows", "N", rows, 1024, {4, 1u << 22}, "trace rows (items), a power of two");
  options.choice("--params", params_name, {"secure", "test"}, "secure",
                 "secure: app_params_with_100_bits_security(21); test: small, fast and NOT secure");
  options.output("--proof", proof_file, "write the encoded proof");
  options.number<uint32_t>(
      "--bad-row", "N", bad_row, kNoBadRow, {0, kNoBadRow},
      fmt::format("take item N twice: a bad trace for the debug checker and the verifier; {}: none", kNoBadRow));
  options.parse_or_exit(argc, argv);
  if (!std::has_single_bit(rows)) options.fail(fmt::format("--rows {}: not a power of two", rows));
  const bool bad = bad_row != kNoBadRow;
  if (bad && bad_row >= rows) options.fail(fmt::format("--bad-row {}: the trace has {} rows", bad_row, rows));

  auto exec = make_executor(executor);
  const SystemParams params =
      params_name == "secure" ? app_params_with_100_bits_security(21) : test_system_params_small(2, 8, 3);
  const std::vector<std::shared_ptr<const Air>> air_list{std::make_shared<Knapsack>(rows)};
  const ProvingKey pk = keygen(air_list, params, *exec);
  const std::vector<std::optional<AirWithTraces>> traces{knapsack_trace(air_list[0], rows, bad_row)};
  const AirWithTraces& t = *traces[0];

  // The debug checker: every constraint on every row and every bus balanced, on the host; per AIR
  // the first failure with the AIR's name, the constraint's number and text, the row, the values of
  // the columns it reads. Run it while writing an AIR: a verifier's rejection does not say which row
  // is wrong. (The prover runs the same check before every proof with ProverOptions::debug_check or
  // VKSTARK_DEBUG_CONSTRAINTS=1.)
  const DebugReport report = debug_check(pk, traces);
  if (!report.ok()) fmt::print("custom_air: {}\n", report.message());
  const ConstraintFailure* failure = report.constraint_failures.empty() ? nullptr : &report.constraint_failures[0];
  if (bad && (!failure || failure->row != bad_row || failure->constraint != 0)) {
    fmt::print(stderr, "custom_air: --bad-row {}: the debug checker should name constraint 0 at row {}\n", bad_row,
               bad_row);
    return 1;
  }

  StarkProver prover(pk, *exec);
  Trace trace;
  const Proof proof = prover.prove(traces, &trace);
  const std::vector<uint8_t> bytes = encode(proof);
  const VerifyResult verdict = verify_bytes(pk.vk, bytes);
  std::string result =
      verdict.ok ? "verified" : fmt::format("REJECTED [{}]: {}", to_string(verdict.code), verdict.reason);
  const bool rejected_as_expected = verdict.is(BatchConstraintReject::Round0SumMismatch);
  if (bad)
    result += verdict.ok             ? " (a proof of a bad trace: a soundness bug)"
              : rejected_as_expected ? " (as --bad-row expects)"
                                     : " (--bad-row expects batch_constraint.round0_sum_mismatch)";
  fmt::print(
      "custom_air: {} rows on {} ({}): W = {}, V = {}, K = {}, proof {} bytes, {} submission(s), {} host "
      "sync(s): {}\n",
      rows, exec->name(), exec->device_name(), t.public_values[0].value(), t.public_values[1].value(),
      t.public_values[2].value(), bytes.size(), trace.counters.submissions, trace.counters.host_syncs, result);
  if (!proof_file.empty()) cli::write_binary_file(proof_file, bytes);
  return (bad ? rejected_as_expected : verdict.ok) ? 0 : 1;
} catch (const std::exception& e) {
  fmt::print(stderr, "custom_air: {}\n", e.what());
  return 1;
}
