// interactions: how AIRs talk to each other through a bus (LogUp interactions): a range check.
//
//   Decompose, the "program": rows (x, lo, hi, sum) with x = lo + 256 hi; it sends lo and hi on the
//     byte bus, and sums the x's into its public value S.
//   ByteTable, the lookup table: the values 0..255 in a preprocessed column and a multiplicity
//     column; it receives each value as many times as the program sent it.
//
// Decompose alone says nothing about the size of x: lo and hi could be any field elements. The bus
// makes them bytes, so every x is below 2^16. The statement: the prover knows `rows` numbers below
// 2^16 (they stay hidden) whose sum is S (mod p).
//
//   interactions [--executor cpu|vulkan|auto] [--rows 1024] [--params secure|test] [--proof FILE]
//                [--tamper]
//
// --tamper puts x = 70000 (not below 2^16) in one row: its decomposition still holds (70000 = 112 +
// 256 * 273), but the table has no row for 273, so nothing receives that message and the bus does
// not balance. Every constraint still holds; the debug checker (stages/air/debug_check.hpp) finds
// the unbalanced message and names the row that sends it. The prover does not check buses unless
// asked (ProverOptions::debug_check, VKSTARK_DEBUG_CONSTRAINTS=1): it makes a proof, which the
// verifier rejects (LogUp's GKR sum is not zero: gkr.root_numerator_not_zero). With --tamper the
// exit status is 0 when the proof is rejected with that code, 1 otherwise.
#include <fmt/format.h>

#include <bit>

#include "cli/options.hpp"
#include "executors/executors.hpp"
#include "runtime/error.hpp"
#include "stages/air/air.hpp"
#include "stages/air/bus.hpp"
#include "stages/air/columns.hpp"
#include "stages/air/debug_check.hpp"
#include "stages/air/keygen.hpp"
#include "stages/prover.hpp"
#include "stages/verifier.hpp"

using namespace vkstark;

namespace {

// A bus is a number (u16) the AIRs agree on, here a LookupBus object (stages/air/bus.hpp) that
// names it. Every AIR may send and receive on any bus; a message is a list of expressions of the row
// (here one value), and its count an expression too (a constant, a column, a selector), evaluated on
// every row. Sends count positively, receives negatively.
//
// The bus balances when, for every message, the counts over all rows of all AIRs sum to zero: each
// sent message is received as many times as it is sent. LogUp checks it with one sum over every row
// and interaction, of count / (alpha + h(bus, message)), where alpha and the coefficients of h are
// random: when the bus does not balance, the sum is not zero (except with negligible probability).
// The proof carries the sum (LogUp's GKR) and the verifier checks that it is zero.
constexpr LookupBus kBytes{0, "bytes"};
constexpr uint32_t kTableRows = 256;

// The program's columns, by name (stages/air/columns.hpp): read as expressions in eval(), as
// column indices when the trace is made, and named in every message ("hi", "sum'").
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
  void eval(AirBuilder& b) const override {
    const DecomposeCols<Expr> local = read_columns<DecomposeCols>(b.main(), 0);
    const DecomposeCols<Expr> next = read_columns<DecomposeCols>(b.main(), 1);
    b.assert_eq(local.x, local.lo + 256 * local.hi);  // no filter: on every row
    b.when_first_row().assert_eq(local.sum, local.x);
    b.when_transition().assert_eq(next.sum, local.sum + next.x);
    b.when_last_row().assert_eq(local.sum, b.public_value(0));
    // Each row looks lo and hi up in the byte table once (count 1). A row that should look nothing
    // up, such as a padding row, would pass a boolean column as `enabled`.
    kBytes.lookup(b, {local.lo});
    kBytes.lookup(b, {local.hi});
  }
};

// The table. Preprocessed column value (0..255); main column multiplicity; no public values and no
// constraints (an AIR needs constraints or interactions; either is enough).
class ByteTable final : public Air {
 public:
  std::string name() const override { return "example_byte_table"; }
  AirShape shape() const override { return {.preprocessed_width = 1, .common_width = 1}; }
  std::vector<std::vector<std::string>> column_names() const override { return {{"value"}, {"multiplicity"}}; }
  void eval(AirBuilder& b) const override {
    const Expr value = b.preprocessed().local(0), multiplicity = b.main().local(0);
    // provide() receives the key `multiplicity` times with count weight 0. The count weight is a
    // bound the AIR promises on its count per row, for the verifier's trace-height check: per bus,
    // the sum over the AIRs of height * (their count weights on the bus) must stay below p, so that
    // sends cannot add up to a multiple of p (p sends of 273 would balance with no receive).
    // lookup() gives weight 1, which the lookups above keep (count 1). The table's multiplicities
    // have no bound, and need none: a value not in the table has only sends, which are bounded. So
    // weight 0, as OpenVM's lookup buses (LookupBus::add_key_with_lookups) do.
    kBytes.provide(b, {value}, multiplicity);
  }
  // The table is fixed at keygen: the verifying key holds its commitment, so the prover cannot add
  // a 273 to it. (As a main column it would need constraints: value = 0 on the first row, +1 per row.)
  std::optional<TraceMatrix> preprocessed_trace() const override {
    TraceMatrix t(1, kTableRows);
    for (uint32_t v = 0; v < kTableRows; ++v) t.at(v, 0) = Fp::from_canonical(v);
    return t;
  }
};

struct Traces {
  AirWithTraces program, table;
  uint32_t tampered_row = 0;  // with --tamper: the row of x = 70000
};

// The traces: the program's rows, then the table's multiplicities counted from its lookups.
Traces make_traces(std::shared_ptr<const Air> program, std::shared_ptr<const Air> table, uint32_t rows, bool tamper) {
  static const DecomposeCols<uint32_t> col = column_indices<DecomposeCols>();
  Traces t;
  t.program.air = std::move(program);
  t.program.common = TraceMatrix(column_count<DecomposeCols>(), rows);
  t.table.air = std::move(table);
  t.table.common = TraceMatrix(1, kTableRows);
  LookupCounts counts("bytes", kTableRows);
  Fp sum;
  for (uint32_t r = 0; r < rows; ++r) {
    uint32_t x = (r * 2654435761u) >> 16;  // any numbers below 2^16
    if (tamper && r == rows / 2) {
      x = 70000;
      t.tampered_row = r;
    }
    const uint32_t lo = x & 255, hi = x >> 8;
    sum += Fp::from_canonical(x);
    t.program.common.at(r, col.x) = Fp::from_canonical(x);
    t.program.common.at(r, col.lo) = Fp::from_canonical(lo);
    t.program.common.at(r, col.hi) = Fp::from_canonical(hi);
    t.program.common.at(r, col.sum) = sum;
    for (uint32_t byte : {lo, hi})
      if (byte < kTableRows || !tamper) counts.add(byte);  // 273 has no row: sent, never received
  }
  const std::vector<Fp> multiplicity = counts.column();
  for (uint32_t v = 0; v < kTableRows; ++v) t.table.common.at(v, 0) = multiplicity[v];
  t.program.public_values = {sum};
  return t;
}

}  // namespace

int main(int argc, char** argv) try {
  cli::Options options("interactions",
                       "  Proves that hidden numbers are below 2^16 with a byte table on a bus (LogUp interactions).");
  std::string executor, params_name, proof_file;
  uint32_t rows = 0;
  bool tamper = false;
  cli::executor_option(options, executor);
  options.number<uint32_t>("--rows", "N", rows, 1024, {4, 1u << 22}, "program rows, a power of two");
  options.choice("--params", params_name, {"secure", "test"}, "secure",
                 "secure: app_params_with_100_bits_security(21); test: small, fast and NOT secure");
  options.output("--proof", proof_file, "write the encoded proof");
  options.flag("--tamper", tamper, "one number is 70000: the bus does not balance and the verifier must reject");
  options.parse_or_exit(argc, argv);
  if (!std::has_single_bit(rows)) options.fail(fmt::format("--rows {}: not a power of two", rows));

  auto exec = make_executor(executor);
  const SystemParams params =
      params_name == "secure" ? app_params_with_100_bits_security(21) : test_system_params_small(2, 8, 3);
  // Both AIRs in one key: they are proved together, in one proof, so the bus spans them.
  const std::vector<std::shared_ptr<const Air>> air_list{std::make_shared<Decompose>(), std::make_shared<ByteTable>()};
  const ProvingKey pk = keygen(air_list, params, *exec);
  Traces t = make_traces(air_list[0], air_list[1], rows, tamper);

  if (tamper) {
    // The debug checker: every constraint of both AIRs on every row, and every bus balanced. Only
    // the bus is broken here: it names the message 273 and the row that sends it.
    std::vector<std::optional<TraceMatrix>> preprocessed(2);
    std::vector<DebugAirInput> inputs;
    for (size_t a = 0; a < 2; ++a) {
      const AirWithTraces& w = a == 0 ? t.program : t.table;
      inputs.push_back({.air = &pk.per_air[a].symbolic,
                        .parts = w.row_view_part_refs(preprocessed[a]),
                        .public_values = w.public_values});
    }
    const DebugReport report = debug_check(inputs);
    if (report.violated != 0 || report.unbalanced != 1 || report.message().find("message [273]") == std::string::npos)
      throw std::logic_error("--tamper should break only the bus: " + report.message());
    fmt::print(
        "interactions: --tamper: row {} has x = 70000 = 112 + 256 * 273: every constraint holds, but it sends 273 on "
        "the byte bus and the table (0..255) cannot receive it. The debug checker:\n{}\n",
        t.tampered_row, report.message());
  }

  // Prove: one entry per AIR of the key, in its order (nullopt would leave that AIR out).
  const std::vector<std::optional<AirWithTraces>> traces{t.program, t.table};
  StarkProver prover(pk, *exec);
  Trace trace;
  const Proof proof = prover.prove(traces, &trace);
  const std::vector<uint8_t> bytes = encode(proof);
  const VerifyResult verdict = verify_bytes(pk.vk, bytes);
  std::string result =
      verdict.ok ? "verified" : fmt::format("REJECTED [{}]: {}", to_string(verdict.code), verdict.reason);
  // The bus's messages do not cancel: the root of LogUp's fraction tree has a nonzero numerator.
  const bool rejected_as_expected = verdict.is(GkrReject::RootNumeratorNotZero);
  if (tamper)
    result += verdict.ok             ? " (a proof of an unbalanced bus: a soundness bug)"
              : rejected_as_expected ? " (as --tamper expects)"
                                     : " (--tamper expects gkr.root_numerator_not_zero)";
  fmt::print(
      "interactions: {} rows and {} table rows on {} ({}): S = {}, proof {} bytes, {} submission(s), {} host "
      "sync(s): {}\n",
      rows, kTableRows, exec->name(), exec->device_name(), t.program.public_values[0].value(), bytes.size(),
      trace.counters.submissions, trace.counters.host_syncs, result);
  if (!proof_file.empty()) cli::write_binary_file(proof_file, bytes);
  return (tamper ? rejected_as_expected : verdict.ok) ? 0 : 1;
} catch (const std::exception& e) {
  fmt::print(stderr, "interactions: {}\n", e.what());
  return 1;
}
