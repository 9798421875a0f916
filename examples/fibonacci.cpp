// fibonacci: how a user proves a computation with vkstark, in four steps.
//
//   1. Declare an AIR: its trace columns (a struct), public values and constraints (the class below).
//   2. Generate its trace: a matrix of field elements, one row per step.
//   3. Make the proving key (keygen), check the trace (debug_check), and prove (StarkProver) on an
//      executor.
//   4. Verify the proof (host code, no executor).
//
//   fibonacci [--executor cpu|vulkan|auto] [--rows 1024] [--params secure|test] [--proof FILE]
//
// The statement: starting from (a, b) = (0, 1), the Fibonacci sequence reaches x after `rows` steps.
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

// Step 1: the AIR. Its columns are a struct template over the slot type (stages/air/columns.hpp):
// eval() reads them as expressions (FibCols<Expr>), the trace is filled through their column numbers
// (FibCols<uint32_t>), and error messages name them ("right", "left'" on the next row). visit() lists
// the members in column order: here left is column 0, right column 1.
template <class T>
struct FibCols {
  T left, right;  // row i holds (F_i, F_(i+1))
  template <class F>
  void visit(F&& f) {
    f("left", left);
    f("right", right);
  }
};

// Two columns FibCols; public values [a, b, x].
class Fibonacci final : public Air {
 public:
  std::string name() const override { return "example_fibonacci"; }
  AirShape shape() const override { return {.common_width = column_count<FibCols>(), .num_public_values = 3}; }
  std::vector<std::vector<std::string>> column_names() const override { return {column_names_of<FibCols>()}; }
  void eval(AirBuilder& b) const override {
    // The columns of this row (offset 0) and of the next (offset 1).
    const FibCols<Expr> local = read_columns<FibCols>(b.main(), 0), next = read_columns<FibCols>(b.main(), 1);
    b.when_first_row().assert_eq(local.left, b.public_value(0));          // starts at a
    b.when_first_row().assert_eq(local.right, b.public_value(1));         // and b
    b.when_transition().assert_eq(next.left, local.right);                // shifts
    b.when_transition().assert_eq(next.right, local.left + local.right);  // and adds
    b.when_last_row().assert_eq(local.right, b.public_value(2));          // ends at x
  }
};

// Step 2: the trace (column-major: TraceMatrix::at(row, col)) and its public values.
AirWithTraces fibonacci_trace(std::shared_ptr<const Air> air, uint32_t rows) {
  static const FibCols<uint32_t> col = column_indices<FibCols>();  // each column's number
  AirWithTraces t;
  t.air = std::move(air);
  t.common = TraceMatrix(column_count<FibCols>(), rows);
  Fp left = Fp(), right = Fp::one();
  for (uint32_t r = 0; r < rows; ++r) {
    t.common.at(r, col.left) = left;
    t.common.at(r, col.right) = right;
    const Fp next = left + right;
    left = right;
    right = next;
  }
  t.public_values = {Fp(), Fp::one(), t.common.at(rows - 1, col.right)};
  return t;
}

}  // namespace

int main(int argc, char** argv) try {
  cli::Options options("fibonacci", "  Proves and verifies a Fibonacci computation: a short example of the API.");
  std::string executor, params_name, proof_file;
  uint32_t rows = 0;
  cli::executor_option(options, executor);
  options.number<uint32_t>("--rows", "N", rows, 1024, {4, 1u << 22}, "trace rows, a power of two");
  options.choice("--params", params_name, {"secure", "test"}, "secure",
                 "secure: app_params_with_100_bits_security(21); test: small, fast and NOT secure");
  options.output("--proof", proof_file, "write the encoded proof");
  options.parse_or_exit(argc, argv);
  if (!std::has_single_bit(rows)) options.fail(fmt::format("--rows {}: not a power of two", rows));

  auto exec = make_executor(executor);
  const SystemParams params =
      params_name == "secure" ? app_params_with_100_bits_security(21) : test_system_params_small(2, 8, 3);
  const std::vector<std::shared_ptr<const Air>> air_list{std::make_shared<Fibonacci>()};

  // Step 3: keygen once per AIR set and params; then prove (one graph, one run on the executor).
  const ProvingKey pk = keygen(air_list, params, *exec);
  const std::vector<std::optional<AirWithTraces>> traces{fibonacci_trace(air_list[0], rows)};
  // The debug checker, while an AIR or its trace generation is new: every constraint on every row
  // (and every bus) on the host. A proof of a wrong trace is only rejected by the verifier, which
  // cannot say where; the checker names the AIR, the constraint, the row and the columns' values.
  if (const DebugReport check = debug_check(pk, traces); !check.ok()) {
    fmt::print(stderr, "fibonacci: {}\n", check.message());
    return 1;
  }
  StarkProver prover(pk, *exec);
  Trace trace;
  const Proof proof = prover.prove(traces, &trace);
  const std::vector<uint8_t> bytes = encode(proof);  // what you would send to a verifier

  // Step 4: verify from the bytes and the verifying key.
  const VerifyResult verdict = verify_bytes(pk.vk, bytes);
  fmt::print("fibonacci: {} rows on {} ({}): x = {}, proof {} bytes, {} submission(s), {} host sync(s): {}\n", rows,
             exec->name(), exec->device_name(), traces[0]->public_values[2].value(), bytes.size(),
             trace.counters.submissions, trace.counters.host_syncs,
             verdict.ok ? "verified" : fmt::format("REJECTED [{}]: {}", to_string(verdict.code), verdict.reason));
  if (!proof_file.empty()) cli::write_binary_file(proof_file, bytes);
  return verdict.ok ? 0 : 1;
} catch (const std::exception& e) {
  fmt::print(stderr, "fibonacci: {}\n", e.what());
  return 1;
}
