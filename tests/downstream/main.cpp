// A program outside the vkstark tree, built against the installed package (only its headers and
// find_package(vkstark)): three AIRs of its own, with typed column structs, two buses and a lookup
// table, proved on the executor named by argv[1] (cpu or vulkan).
//
//   downstream cpu|vulkan [good|bad-transition|bad-range|bad-multiplicity]
//
// The statement: the prover knows kRows numbers x_0..x_{kRows-1}, each below kTableRows, whose
// squares sum to the public value `total`.
//
//   downstream_inputs (kRows / 2 rows, columns k, value[0], value[1]): the numbers, two a row; it
//     sends (2k, value[0]) and (2k + 1, value[1]) on the bus "inputs".
//   downstream_accumulator (kRows rows, columns i, x, acc): receives (i, x) on "inputs", looks x
//     up in the table on the bus "range", and sums the squares: acc' = acc + x * x (degree 3 with
//     the transition filter), acc + x * x = total on the last row.
//   downstream_range (kTableRows rows): the values 0..kTableRows-1 in a preprocessed column and a
//     multiplicity column; it provides each value on "range" as many times as it is looked up.
//
// good: keygen, prove with the debug checker on, verify, and a proof with one byte changed must be
// rejected; exit status 0 when both hold. bad-*: a broken trace (bad-transition: acc off by one
// from row kBadRow on; bad-range: x = kBadValue, outside the table, at row kBadRow; bad-multiplicity:
// the table's count of one value one too high) proved with the debug checker on: the prover must
// throw InputError, whose message is printed on stdout (tests/check_downstream.cmake reads it);
// exit status 0 only when it throws.
#include <fmt/format.h>

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/options.hpp"
#include "executors/executors.hpp"
#include "runtime/error.hpp"
#include "stages/air/air.hpp"
#include "stages/air/bus.hpp"
#include "stages/air/columns.hpp"
#include "stages/air/input.hpp"
#include "stages/air/keygen.hpp"
#include "stages/prover.hpp"
#include "stages/verifier.hpp"

using namespace vkstark;

namespace {

constexpr uint32_t kRows = 32;       // the accumulator's rows, one number each
constexpr uint32_t kTableRows = 64;  // the range table: 0..63
constexpr uint32_t kBadRow = 13;     // where the bad variants break the trace
constexpr uint32_t kBadValue = 70;   // bad-range's number, outside the table

constexpr Bus kInputs{0, "inputs"};
constexpr LookupBus kRange{1, "range"};

template <class T>
struct InputCols {
  T k;
  std::array<T, 2> value;
  template <class F>
  void visit(F&& f) {
    f("k", k);
    f("value", value);
  }
};

template <class T>
struct AccCols {
  T i, x, acc;
  template <class F>
  void visit(F&& f) {
    f("i", i);
    f("x", x);
    f("acc", acc);
  }
};

class Inputs final : public Air {
 public:
  std::string name() const override { return "downstream_inputs"; }
  AirShape shape() const override { return {.common_width = column_count<InputCols>()}; }
  std::vector<std::vector<std::string>> column_names() const override { return {column_names_of<InputCols>()}; }
  void eval(AirBuilder& b) const override {
    const InputCols<Expr> local = read_columns<InputCols>(b.main(), 0), next = read_columns<InputCols>(b.main(), 1);
    b.when_first_row().assert_zero(local.k);
    b.when_transition().assert_eq(next.k, local.k + Expr(1));
    kInputs.send(b, {2 * local.k, local.value[0]}, Expr(1), 1);
    kInputs.send(b, {2 * local.k + Expr(1), local.value[1]}, Expr(1), 1);
  }
};

// Public value [total].
class Accumulator final : public Air {
 public:
  std::string name() const override { return "downstream_accumulator"; }
  AirShape shape() const override { return {.common_width = column_count<AccCols>(), .num_public_values = 1}; }
  std::vector<std::vector<std::string>> column_names() const override { return {column_names_of<AccCols>()}; }
  void eval(AirBuilder& b) const override {
    const AccCols<Expr> local = read_columns<AccCols>(b.main(), 0), next = read_columns<AccCols>(b.main(), 1);
    b.when_first_row().assert_zero(local.i);
    b.when_first_row().assert_zero(local.acc);
    b.when_transition().assert_eq(next.i, local.i + Expr(1));
    b.when_transition().assert_eq(next.acc, local.acc + local.x * local.x);
    b.when_last_row().assert_eq(local.acc + local.x * local.x, b.public_value(0));
    kInputs.receive(b, {local.i, local.x}, Expr(1), 1);
    kRange.lookup(b, {local.x});
  }
};

// The table, fixed at keygen (preprocessed), so the prover cannot add a row to it.
class RangeTable final : public Air {
 public:
  std::string name() const override { return "downstream_range"; }
  AirShape shape() const override { return {.preprocessed_width = 1, .common_width = 1}; }
  std::vector<std::vector<std::string>> column_names() const override { return {{"value"}, {"multiplicity"}}; }
  void eval(AirBuilder& b) const override { kRange.provide(b, {b.preprocessed().local(0)}, b.main().local(0)); }
  std::optional<TraceMatrix> preprocessed_trace() const override {
    TraceMatrix t(1, kTableRows);
    for (uint32_t v = 0; v < kTableRows; ++v) t.at(v, 0) = Fp::from_canonical(v);
    return t;
  }
};

enum class Variant { good, bad_transition, bad_range, bad_multiplicity };

// The three AIRs' traces, broken as `variant` says.
std::vector<std::optional<AirWithTraces>> make_traces(const std::vector<std::shared_ptr<const Air>>& airs,
                                                      Variant variant) {
  static const InputCols<uint32_t> in = column_indices<InputCols>();
  static const AccCols<uint32_t> ac = column_indices<AccCols>();
  TraceMatrix inputs(column_count<InputCols>(), kRows / 2), acc(column_count<AccCols>(), kRows), table(1, kTableRows);
  LookupCounts counts("downstream_range", kTableRows);
  Fp sum;
  for (uint32_t r = 0; r < kRows; ++r) {
    uint32_t x = (r * 37 + 11) % kTableRows;
    if (variant == Variant::bad_range && r == kBadRow) x = kBadValue;
    if (x < kTableRows) counts.add(x);  // kBadValue has no row: looked up, never provided
    const Fp fx = Fp::from_canonical(x);
    inputs.at(r / 2, in.k) = Fp::from_canonical(r / 2);
    inputs.at(r / 2, in.value[r % 2]) = fx;
    acc.at(r, ac.i) = Fp::from_canonical(r);
    acc.at(r, ac.x) = fx;
    acc.at(r, ac.acc) = sum;
    if (variant == Variant::bad_transition && r >= kBadRow) acc.at(r, ac.acc) += Fp::one();
    sum += fx * fx;
  }
  if (variant == Variant::bad_transition) sum += Fp::one();  // only the transition into kBadRow fails
  std::vector<Fp> multiplicity = counts.column();
  if (variant == Variant::bad_multiplicity) multiplicity[(kBadRow * 37 + 11) % kTableRows] += Fp::one();
  for (uint32_t v = 0; v < kTableRows; ++v) table.at(v, 0) = multiplicity[v];
  return {AirWithTraces(airs[0], std::move(inputs)), AirWithTraces(airs[1], std::move(acc), {sum}),
          AirWithTraces(airs[2], std::move(table))};
}

}  // namespace

int main(int argc, char** argv) try {
  // The command line through vkstark::cli's parser (cli/options.hpp), as the examples read theirs.
  cli::Options options("downstream", "  The installed vkstark package from a downstream project.");
  std::string executor, variant_name;
  options.positional("EXECUTOR", executor, "cpu or vulkan");
  options.positional("VARIANT", variant_name, "good, bad-transition, bad-range or bad-multiplicity");
  options.parse_or_exit(argc, argv);
  const std::optional<Variant> variant = variant_name == "good"               ? Variant::good
                                         : variant_name == "bad-transition"   ? Variant::bad_transition
                                         : variant_name == "bad-range"        ? Variant::bad_range
                                         : variant_name == "bad-multiplicity" ? Variant::bad_multiplicity
                                                                              : std::optional<Variant>();
  if (!variant)
    options.fail(
        fmt::format("VARIANT '{}' is not one of good, bad-transition, bad-range, bad-multiplicity", variant_name));
  auto exec = make_executor(executor);
  const std::vector<std::shared_ptr<const Air>> airs{std::make_shared<Inputs>(), std::make_shared<Accumulator>(),
                                                     std::make_shared<RangeTable>()};
  const ProvingKey pk = keygen(airs, test_system_params_small(2, 8, 3), *exec);
  const std::vector<std::optional<AirWithTraces>> traces = make_traces(airs, *variant);
  StarkProver prover(pk, *exec, ProverOptions{.debug_check = true});

  if (*variant != Variant::good) {
    try {
      (void)prover.prove(traces);
    } catch (const InputError& e) {
      fmt::print("downstream {}: the debug checker: {}\n", variant_name, e.what());
      return 0;
    }
    fmt::print(stderr, "downstream {}: the prover took the broken trace without an InputError\n", variant_name);
    return 1;
  }

  std::vector<uint8_t> bytes = encode(prover.prove(traces));
  const VerifyResult verdict = verify_bytes(pk.vk, bytes);
  bytes[bytes.size() / 2] ^= 1;
  const VerifyResult tampered = verify_bytes(pk.vk, bytes);
  fmt::print("downstream: {} numbers below {} on {} ({}): total = {}, proof {} bytes: {}; one byte changed: {}\n",
             kRows, kTableRows, exec->name(), exec->device_name(), traces[1]->public_values[0].value(), bytes.size(),
             verdict.ok ? "verified" : fmt::format("REJECTED [{}]: {}", to_string(verdict.code), verdict.reason),
             tampered.ok ? "ACCEPTED" : fmt::format("rejected ([{}] {})", to_string(tampered.code), tampered.reason));
  return verdict.ok && !tampered.ok ? 0 : 1;
} catch (const std::exception& e) {
  fmt::print(stderr, "downstream: {}\n", e.what());
  return 1;
}
