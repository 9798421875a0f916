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
#include "product/airs/interactions.hpp"
#include "runtime/error.hpp"
#include "stages/air/debug_check.hpp"
#include "stages/air/keygen.hpp"
#include "stages/prover.hpp"
#include "stages/verifier.hpp"

using namespace vkstark;

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
//
// The two AIRs are product/airs/interactions.{hpp,cpp} (the vkstark command proves them too: `vkstark
// prove --air interactions`). Read them there: Decompose::eval asserts x = lo + 256 hi and the running
// sum, and looks lo and hi up on the bus (kBytesBus.lookup); ByteTable::eval provides each value of its
// preprocessed column `multiplicity` times (kBytesBus.provide), with count weight 0 (a table's
// multiplicities need no bound: a value not in the table has only sends, which are bounded).
// interactions_traces makes the traces: the program's rows, then the table's multiplicities
// counted from its lookups (LookupCounts).

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
  InteractionsTraces t = interactions_traces(air_list[0], air_list[1], rows, tamper);

  if (tamper) {
    // The debug checker: every constraint of both AIRs on every row, and every bus balanced. Only
    // the bus is broken here: it names the message 273 and the row that sends it.
    const DebugReport report = debug_check(pk, {t.program, t.table});
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
      rows, kByteTableRows, exec->name(), exec->device_name(), t.program.public_values[0].value(), bytes.size(),
      trace.counters.submissions, trace.counters.host_syncs, result);
  if (!proof_file.empty()) cli::write_binary_file(proof_file, bytes);
  return (tamper ? rejected_as_expected : verdict.ok) ? 0 : 1;
} catch (const std::exception& e) {
  fmt::print(stderr, "interactions: {}\n", e.what());
  return 1;
}
