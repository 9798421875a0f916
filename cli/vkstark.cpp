// vkstark: the command. Proves a shipped AIR's computation into a proof file, verifies proof files,
// prints their shape.
//
//   vkstark prove --air keccakf|fibonacci|interactions [--permutations N | --rows N] [--executor X] --out FILE
//   vkstark prove --vk KEY --input INPUT --out FILE       (AIRs given as data: no AIR code)
//   vkstark keygen --air NAME [--params ...] --out KEY
//   vkstark trace --air NAME ... --out INPUT              (a proving input; --format vkt: a trace file)
//   vkstark verify FILE [--vk VKFILE]
//   vkstark info FILE|KEY
//   vkstark prove-batch --manifest FILE | --traces DIR --out-dir DIR [--devices all|LIST] [--cpu-worker]
//     (cli/prove_batch.cpp; under mpirun with VKSTARK_MPI=ON, over every rank)
//
// The proof file (product/proof_file.hpp) holds the verifying key (with the params) and the proof.
// Exit statuses: 0 success (verify: accepted); 1 the proof is rejected, or a run failed; 2 a bad
// command line; 3 a file that cannot be read or is not a vkstark proof file (another format, another
// version, a broken header or verifying key).
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "cli/progress.hpp"
#include "executors/executors.hpp"
#include "product/airs/shipped.hpp"
#include "product/airs/test_airs.hpp"
#include "product/batch/batch.hpp"
#include "product/proof_file.hpp"
#include "product/proving_input.hpp"
#include "product/trace_file.hpp"
#include "runtime/clock.hpp"
#include "runtime/error.hpp"
#include "runtime/file.hpp"
#include "runtime/trace.hpp"
#include "stages/air/dag_air.hpp"
#include "stages/air/debug_check.hpp"
#include "stages/air/eval.hpp"
#include "stages/air/keygen.hpp"
#include "stages/encoding/codec.hpp"
#include "stages/proof/proof.hpp"
#include "stages/prover.hpp"
#include "stages/verifier.hpp"

using namespace vkstark;

namespace {

constexpr int kExitRejected = 1;
constexpr int kExitBadFile = 3;
// The largest file verify and info read: a keccakf proof file is about 1.2 MB.
constexpr uint64_t kMaxFileBytes = uint64_t(1) << 30;

using Clock = std::chrono::steady_clock;

// A file that is not a readable vkstark proof file: exit status 3.
struct BadFile {
  std::string message;
};

ProofFile read_proof_file(const std::string& path) {
  std::vector<uint8_t> bytes;
  try {
    // What does not start as a proof file is refused after its first bytes.
    const std::string_view starts[] = {kProofFileMagic};
    bytes = cli::read_binary_file(path, kMaxFileBytes, starts, "vkstark proof file");
  } catch (const cli::FileError& e) {
    throw BadFile{e.what()};
  }
  try {
    return decode_proof_file(bytes);
  } catch (const DecodeError& e) {
    throw BadFile{fmt::format("{}: {}", path, e.what())};
  }
}

// A shipped AIR's computation, as prove and trace take it: --air, --permutations, --seed, --rows.
struct Computation {
  std::string air;
  uint32_t permutations = 0, rows = 0, seed = 0;

  void declare(cli::Options& options) {
    options.choice("--air", air, {"keccakf", "fibonacci", "interactions"}, "keccakf",
                   "keccakf: Keccak-f[1600] permutations of random inputs; fibonacci: a Fibonacci sequence; "
                   "interactions: numbers below 2^16 range-checked through a byte table on a bus (two AIRs)");
    options.number<uint32_t>("--permutations", "N", permutations, 1024, {1, 1u << 16},
                             "keccakf: permutations (24 trace rows each)");
    options.number<uint32_t>("--seed", "S", seed, 1, {0, UINT32_MAX}, "keccakf: seed of the random inputs");
    options.number<uint32_t>("--rows", "N", rows, 1u << 14, {4, 1u << 24},
                             "fibonacci, interactions: trace rows, a power of two");
  }
  // After parsing: the job. Usage errors for rows that are not a power of two and for the options
  // of the other AIR. With `max_log_rows` (the stacked height of the chosen params), a size left at
  // its default is the largest that fits when the default does not, and a size given that does not
  // fit is a usage error naming the largest.
  batch::Job job(const cli::Options& options, std::string name, std::optional<uint32_t> max_log_rows = {},
                 std::string_view params_hint = {}) {
    const bool by_rows = air != "keccakf";
    if (!by_rows && options.given("--rows"))
      options.fail("--rows applies to --air fibonacci and interactions (keccakf's size is --permutations)");
    if (by_rows && (options.given("--permutations") || options.given("--seed")))
      options.fail(fmt::format("{} applies to --air keccakf ({}'s size is --rows)",
                               options.given("--permutations") ? "--permutations" : "--seed", air));
    if (by_rows && !std::has_single_bit(rows)) options.fail(fmt::format("--rows {}: not a power of two", rows));
    if (max_log_rows) {
      const uint64_t max_rows = uint64_t(1) << *max_log_rows;
      const uint32_t max_permutations = static_cast<uint32_t>(max_rows / 24);
      if (air == "keccakf" && uint64_t(permutations) * 24 > max_rows) {
        if (options.given("--permutations"))
          options.fail(
              fmt::format("--permutations {}: the params of {} take at most {} permutations (2^{} trace rows){}",
                          permutations, params_hint, max_permutations, *max_log_rows,
                          params_hint == "--params test" ? "; --params secure takes more" : ""));
        permutations = max_permutations;
      }
      if (by_rows && rows > max_rows) {
        if (options.given("--rows"))
          options.fail(fmt::format("--rows {}: the params of {} take at most 2^{} = {} rows{}", rows, params_hint,
                                   *max_log_rows, max_rows,
                                   params_hint == "--params test" ? "; --params secure takes more" : ""));
        rows = static_cast<uint32_t>(max_rows);
      }
    }
    batch::Job j;
    j.name = std::move(name);
    j.air = air;
    j.size = by_rows ? rows : permutations;
    j.seed = seed;
    return j;
  }
};

// ---------------------------------------------------------------------------------------------

// The params of --params test.
SystemParams test_params() {
  batch::Job job;
  job.params = "test";
  return batch::job_params(job);
}

// What one proof proves: the proving key, the traces (AIR-index order), the AIRs' names for the
// proof file, and a line saying what is proved.
struct Statement {
  ProvingKey pk;
  std::vector<std::optional<AirWithTraces>> traces;
  std::vector<std::string> names;
  std::string text;
};

// A shipped computation (--air): its traces made, keygen of its AIRs written in code.
Statement shipped_statement(const batch::Job& job, const SystemParams& params, Executor& exec,
                            cli::Progress& progress) {
  Statement st;
  batch::JobAirs job_airs;
  progress.step("trace generation", [&] { job_airs = batch::make_job_airs(job); });
  std::vector<std::shared_ptr<const Air>> air_list;
  for (const auto& t : job_airs.airs) {
    air_list.push_back(t->air);
    st.names.push_back(t->air->name());
  }
  st.traces = std::move(job_airs.airs);
  st.text = std::move(job_airs.statement);
  st.pk = progress.step("keygen", [&] { return keygen(air_list, params, exec); });
  return st;
}

// AIRs given as data (--vk, --input): the key from its file, the input read into the executor's
// upload memory, keygen of the AIRs built from the key, which must give the key back (the
// preprocessed traces are the input's). With `sources`, the shipped AIRs written in code of the
// same names lend their names to debug messages.
Statement data_statement(const std::string& vk_path, const std::string& input_path, bool sources, Executor& exec,
                         cli::Progress& progress) {
  MultiStarkVerifyingKey vk;
  try {
    vk = read_vk_file(vk_path);
  } catch (const DecodeError& e) {
    throw BadFile{e.what()};
  } catch (const InputError& e) {
    throw BadFile{e.what()};
  }
  Statement st;
  DataJob job;
  progress.step("read the proving input", [&] {
    ProvingInput input;
    try {
      input = read_proving_input(
          input_path, [&](uint64_t cells) { return TraceValues(exec.host_memory(cells * sizeof(Fp)), cells); });
    } catch (const DecodeError& e) {
      throw BadFile{fmt::format("{}: {}", input_path, e.what())};
    } catch (const InputError& e) {  // it cannot be read
      throw BadFile{e.what()};
    }
    // A shipped AIR of the same name lends its names where its constraints are the key's (not
    // another AIR, or another version of it, under that name).
    std::vector<std::shared_ptr<const Air>> shipped(std::min(input.airs.size(), vk.per_air.size()));
    std::vector<const Air*> source_list(shipped.size(), nullptr);
    for (size_t a = 0; sources && a < shipped.size(); ++a)
      if ((shipped[a] = shipped_air_named(input.airs[a].name)) && has_constraints_of(*shipped[a], vk.per_air[a]))
        source_list[a] = shipped[a].get();
    job = prover_job(vk, std::move(input), source_list);
  });
  size_t present = 0;
  for (const auto& t : job.traces) present += t.has_value();
  st.text = fmt::format("{} of {} AIR{} given as data ({}) from {}", present, job.traces.size(),
                        job.traces.size() == 1 ? "" : "s", fmt::join(job.names, ", "), input_path);
  st.pk = progress.step("keygen (the data-built AIRs, checked against the key)",
                        [&] { return keygen_from_vk(vk, job.airs, exec); });
  st.traces = std::move(job.traces);
  st.names = std::move(job.names);
  return st;
}

// AIRs given as data: --vk and --input together, and none of the shipped computation's options.
void check_data_options(const cli::Options& options, const std::string& vk_path, const std::string& input_path) {
  if (vk_path.empty() || input_path.empty())
    options.fail(vk_path.empty() ? "--input needs --vk KEY (the verifying key it is an input for)"
                                 : "--vk needs --input INPUT (the traces to prove)");
  for (const char* o : {"--air", "--permutations", "--rows", "--seed", "--params", "--log-stacked-height"})
    if (options.given(o))
      options.fail(fmt::format(
          "{} does not apply with --vk: the verifying key fixes the AIRs and params, the input the traces", o));
}

// The shipped computation's statement (--air and its sizes, under --params), on a new executor
// (`exec`), which the statement's traces may live in.
Statement shipped_statement_for(Computation& computation, cli::Options& options, const std::string& params_name,
                                uint32_t log_stacked, const std::string& executor, std::unique_ptr<Executor>& exec,
                                cli::Progress& progress) {
  batch::Job sizing;
  sizing.params = params_name;
  sizing.log_stacked = log_stacked;
  const SystemParams params = batch::job_params(sizing);
  batch::Job job =
      computation.job(options, "prove", params.log_stacked_height(),
                      params_name == "test" ? "--params test" : fmt::format("--log-stacked-height {}", log_stacked));
  job.params = params_name;
  job.log_stacked = log_stacked;
  exec = make_executor(executor);
  if (progress.enabled())
    fmt::print(stderr, "vkstark prove: {} on {} ({})\n", job.air, exec->name(), exec->device_name());
  return shipped_statement(job, params, *exec, progress);
}

// vkstark prove's outputs (the proof file; with --vk-out, --trace, --json also those), replaced
// together, once the proof verifies: a failure writing any of them leaves all of them as they were
// (runtime/file.hpp).
void write_prove_outputs(const std::string& out, const std::vector<uint8_t>& bytes, const std::string& vk_out,
                         const MultiStarkVerifyingKey& vk, const std::string& trace_file, const std::string& json_file,
                         const Trace& trace) {
  const std::vector<uint8_t> vk_bytes = vk_out.empty() ? std::vector<uint8_t>() : encode_vk_file(vk);
  std::ostringstream chrome, json;
  if (!trace_file.empty()) write_chrome_trace(trace, chrome);
  if (!json_file.empty()) write_json(trace, json);
  auto text = [](const std::vector<uint8_t>& b) {
    return std::string_view(reinterpret_cast<const char*>(b.data()), b.size());
  };
  std::vector<std::pair<std::filesystem::path, std::string_view>> outputs{{out, text(bytes)}};
  if (!vk_out.empty()) outputs.emplace_back(vk_out, text(vk_bytes));
  const std::string chrome_text = chrome.str(), json_text = json.str();
  if (!trace_file.empty()) outputs.emplace_back(trace_file, chrome_text);
  if (!json_file.empty()) outputs.emplace_back(json_file, json_text);
  replace_files(outputs);
}

int prove_command(int argc, char** argv) {
  cli::Options options("vkstark prove",
                       "  Proves a shipped AIR's computation (--air), or AIRs given as data (--vk KEY --input INPUT:\n"
                       "  a verifying key and a proving input, no AIR code), checks the proof, and writes the proof\n"
                       "  file (the verifying key with its params, and the proof) for `vkstark verify`.");
  Computation computation;
  std::string executor, params_name, out, vk_out, trace_file, json_file, vk_path, input_path;
  uint32_t log_stacked = 0;
  bool quiet = false, debug_check = false;
  computation.declare(options);
  options.choice("--params", params_name, {"secure", "test"}, "secure",
                 "secure: app_params_with_100_bits_security(--log-stacked-height); test: small, fast, NOT secure");
  options.number<uint32_t>("--log-stacked-height", "H", log_stacked, 21, {8, kMaxLogStackedHeight},
                           "the secure params' log2 stacked height");
  options.input("--vk", vk_path, "a vk file (vkstark keygen): prove the AIRs it holds, with --input");
  options.input("--input", input_path, "a proving input for --vk (vkstark trace, or docs/proving-input.md)");
  cli::executor_option(options, executor);
  cli::MemoryOptions memory;
  cli::memory_options(options, memory);
  options.output("--out", out, "the proof file to write (required)");
  options.output("--vk-out", vk_out, "also write the verifying key alone (a vk file, for verify --vk)");
  options.output("--trace", trace_file, "write a Chrome trace of the proof's run (open in Perfetto)");
  options.output("--json", json_file, "write the proof run's trace as JSON");
  options.flag("--quiet", quiet,
               "no progress lines (there are none either when stderr is not a terminal) and no info log lines");
  options.flag("--debug-check", debug_check,
               "check every constraint on every row and every bus on the host before proving, naming what fails "
               "(also VKSTARK_DEBUG_CONSTRAINTS=1)");
  options.parse_or_exit(argc - 1, argv + 1);
  if (out.empty()) options.fail("--out FILE is required");
  const bool from_data = !vk_path.empty() || !input_path.empty();
  if (from_data) check_data_options(options, vk_path, input_path);

  // --quiet: warnings and errors only, unless VKSTARK_LOG_LEVEL asks for more (runtime/log.hpp).
  if (quiet) spdlog::set_level(spdlog::level::warn);
  cli::Progress progress(quiet);
  if (params_name == "test" && options.given("--log-stacked-height"))
    options.fail("--log-stacked-height applies to --params secure (the test params' stacked height is fixed)");
  const bool check = debug_check || debug_constraints_enabled();
  // The executor first: the statement's traces may live in its upload memory (Executor::host_memory),
  // which must not outlive it.
  std::unique_ptr<Executor> exec;
  Statement st;
  if (from_data) {
    exec = make_executor(executor);
    if (progress.enabled())
      fmt::print(stderr, "vkstark prove: {} on {} ({})\n", input_path, exec->name(), exec->device_name());
    st = data_statement(vk_path, input_path, check, *exec, progress);
  } else {
    st = shipped_statement_for(computation, options, params_name, log_stacked, executor, exec, progress);
  }
  const ProvingKey& pk = st.pk;
  if (check)
    progress.step("debug check (constraints and buses)",
                  [&] { vkstark::debug_check(pk, st.traces).throw_if_failed(); });
  // One proof: round 0 on generated kernels where they are in the caches, else on the interpreter
  // with nothing compiled in the background, which this process would only wait for at exit
  // (ProverOptions::round0_kernels). The debug check ran above when asked.
  StarkProver prover(
      pk, *exec, with_memory({.debug_check = false, .background_kernels = false}, memory.mode, memory.device_memory));
  auto prepared = progress.step("prepare (graph, kernels, pipelines)", [&] { return prover.prepare(st.traces); });
  if (progress.enabled()) fmt::print(stderr, "vkstark prove: {}\n", prepared->memory_choice());

  Trace trace;
  progress.follow_spans(trace, 3);
  const auto t0 = Clock::now();
  const Proof proof = prepared->run(st.traces, &trace);
  const double prove_ms = ms_since(t0);
  progress.report_remaining_spans(trace);

  ProofFile file;
  file.air_names = st.names;
  file.vk = pk.vk;
  file.proof = encode(proof);
  const VerifyResult verdict = progress.step("verification", [&] { return verify_bytes(file.vk, file.proof); });
  if (!verdict.ok) {
    fmt::print(stderr, "vkstark prove: the proof does not verify ([{}] {}): {}\n", to_string(verdict.code),
               verdict.reason,
               from_data ? "do the traces satisfy the constraints? (--debug-check names what fails)"
                         : "a bug, please report it");
    return 1;
  }
  const std::vector<uint8_t> bytes = encode_proof_file(file);
  write_prove_outputs(out, bytes, vk_out, pk.vk, trace_file, json_file, trace);

  fmt::print("proved {} on {} ({}) in {:.1f} ms: {} submission(s), {} host sync(s)\n", st.text, exec->name(),
             exec->device_name(), prove_ms, trace.counters.submissions, trace.counters.host_syncs);
  fmt::print("wrote {}: {} bytes (proof {} bytes), verifying key {}\n", out, bytes.size(), file.proof.size(),
             to_hex(pk.vk.pre_hash));
  if (params_name == "test" || pk.vk.params == test_params())
    fmt::print("warning: the params are NOT secure (test params, for tests and demos only)\n");
  return 0;
}

// ---------------------------------------------------------------------------------------------

int keygen_command(int argc, char** argv) {
  cli::Options options(
      "vkstark keygen",
      "  Writes the verifying key (a vk file) of a shipped computation's AIRs under the chosen params:\n"
      "  what `vkstark prove --vk KEY --input INPUT` proves against, with no AIR code.");
  std::string air, params_name, executor, out;
  uint32_t log_stacked = 0;
  options.choice("--air", air, {"keccakf", "fibonacci", "interactions"}, "",
                 "the computation whose AIRs the key holds (required): keccakf (keccak), fibonacci, interactions "
                 "(example_decompose and example_byte_table)");
  options.choice("--params", params_name, {"secure", "test"}, "secure",
                 "secure: app_params_with_100_bits_security(--log-stacked-height); test: small, fast, NOT secure");
  options.number<uint32_t>("--log-stacked-height", "H", log_stacked, 21, {8, kMaxLogStackedHeight},
                           "the secure params' log2 stacked height");
  cli::executor_option(options, executor);
  options.output("--out", out, "the vk file to write (required)");
  options.parse_or_exit(argc - 1, argv + 1);
  if (air.empty()) options.fail("--air NAME is required (keccakf, fibonacci or interactions)");
  if (out.empty()) options.fail("--out FILE is required");
  if (params_name == "test" && options.given("--log-stacked-height"))
    options.fail("--log-stacked-height applies to --params secure (the test params' stacked height is fixed)");
  batch::Job sizing;
  sizing.params = params_name;
  sizing.log_stacked = log_stacked;
  const SystemParams params = batch::job_params(sizing);
  auto exec = make_executor(executor);  // commits the preprocessed traces
  const std::vector<std::shared_ptr<const Air>> airs = shipped_airs(air);
  const auto t0 = Clock::now();
  const ProvingKey pk = keygen(airs, params, *exec);
  const double ms = ms_since(t0);
  const std::vector<uint8_t> bytes = encode_vk_file(pk.vk);
  cli::write_binary_file(out, bytes);
  std::vector<std::string> names;
  for (const auto& a : airs) names.push_back(a->name());
  fmt::print("wrote {}: the verifying key of {} ({}), {} bytes, pre-hash {}, in {:.1f} ms on {}\n", out, air,
             fmt::join(names, ", "), bytes.size(), to_hex(pk.vk.pre_hash), ms, exec->name());
  if (params_name == "test") fmt::print("warning: --params test is NOT secure (for tests and demos only)\n");
  return 0;
}

// ---------------------------------------------------------------------------------------------

int trace_command(int argc, char** argv) {
  cli::Options options(
      "vkstark trace",
      "  Writes a shipped computation's traces as a proving input (.vki: every AIR's name, preprocessed\n"
      "  trace, main parts and public values; docs/proving-input.md), for `vkstark prove --vk KEY\n"
      "  --input INPUT` and prove-batch's vk= input= jobs; or, with --format vkt (the default for an --out\n"
      "  ending in .vkt), as a trace file (one AIR's common main: keccakf and fibonacci) for\n"
      "  prove-batch's trace= jobs and --traces DIR.");
  Computation computation;
  std::string out, format;
  computation.declare(options);
  options.choice("--format", format, {"input", "vkt"}, "",
                 "input: a proving input (any computation); vkt: a trace file (keccakf, fibonacci); by default vkt "
                 "when --out ends in .vkt, else input");
  options.output("--out", out, "the file to write (required)");
  options.parse_or_exit(argc - 1, argv + 1);
  if (out.empty()) options.fail("--out FILE is required");
  if (format.empty()) format = out.ends_with(".vkt") ? "vkt" : "input";
  if (format == "vkt" && computation.air == "interactions")
    options.fail(
        "a trace file (--format vkt, or an --out ending in .vkt) holds one AIR's common main: --air "
        "interactions (two AIRs, a preprocessed part) needs a proving input (--format input)");
  const batch::JobAirs airs = batch::make_job_airs(computation.job(options, "trace"));
  std::vector<uint8_t> bytes;
  if (format == "vkt") {
    bytes = encode_trace_file(to_trace_file(*airs.airs.at(0)));
  } else {
    std::vector<std::shared_ptr<const Air>> key_airs;
    for (const auto& t : airs.airs) key_airs.push_back(t->air);
    bytes = encode_proving_input(to_proving_input(key_airs, airs.airs));
  }
  cli::write_binary_file(out, bytes);
  fmt::print("wrote {}: {} ({}, {} bytes)\n", out, airs.statement, format == "vkt" ? "trace file" : "proving input",
             bytes.size());
  return 0;
}

// ---------------------------------------------------------------------------------------------

void print_rejected(const VerifyResult& v) { fmt::print("rejected [{}]: {}\n", to_string(v.code), v.reason); }

int verify_command(int argc, char** argv) {
  cli::Options options("vkstark verify",
                       "  Verifies a proof file; prints `accepted` or `rejected [<code>]: <reason>`, the code naming\n"
                       "  the phase and the check that failed (e.g. whir.mu_pow). Exit status 0 when accepted, 1\n"
                       "  when rejected, 3 when the file cannot be read or is not a vkstark proof file.\n"
                       "  Without --vk the proof is checked against the verifying key in the file, whose pre-hash\n"
                       "  is printed: compare it with the one you expect, or pass the key you trust with --vk.");
  std::string path, vk_path;
  options.positional("FILE", path, "the proof file (vkstark prove --out)");
  options.input("--vk", vk_path, "a vk file (vkstark prove --vk-out): the proof must be for this key");
  options.parse_or_exit(argc - 1, argv + 1);

  const ProofFile file = read_proof_file(path);
  const MultiStarkVerifyingKey* vk = &file.vk;
  MultiStarkVerifyingKey trusted;
  if (!vk_path.empty()) {
    try {
      const std::string_view starts[] = {kVkFileMagic};
      trusted = decode_vk_file(cli::read_binary_file(vk_path, kMaxFileBytes, starts, "vkstark vk file"));
    } catch (const cli::FileError& e) {
      throw BadFile{e.what()};
    } catch (const DecodeError& e) {
      throw BadFile{fmt::format("{}: {}", vk_path, e.what())};
    }
    if (trusted.pre_hash != file.vk.pre_hash) {
      print_rejected(VerifyResult::reject(ProofReject::VerifyingKeyMismatch,
                                          fmt::format("the proof file's verifying key ({}) is not the one of {} ({})",
                                                      to_hex(file.vk.pre_hash), vk_path, to_hex(trusted.pre_hash))));
      return kExitRejected;
    }
    vk = &trusted;
  }
  const auto t0 = Clock::now();
  const VerifyResult verdict = verify_bytes(*vk, file.proof);
  const double ms = ms_since(t0);
  if (!verdict.ok) {
    print_rejected(verdict);
    return kExitRejected;
  }
  fmt::print("accepted: {} ({} AIR{}), verifying key {}{}, in {:.1f} ms\n", fmt::join(file.air_names, ", "),
             file.air_names.size(), file.air_names.size() == 1 ? "" : "s", to_hex(vk->pre_hash),
             vk_path.empty() ? " (from the file)" : fmt::format(" (= {})", vk_path), ms);
  return 0;
}

// ---------------------------------------------------------------------------------------------

std::string params_line(const SystemParams& p) {
  std::string rounds;
  for (const WhirRound& r : p.whir.rounds) rounds += fmt::format("{}{}", rounds.empty() ? "" : " ", r.num_queries);
  return fmt::format(
      "l_skip {}, n_stack {} (stacked height 2^{}), w_stack {}, log_blowup {}, max_constraint_degree {}; WHIR k {}, "
      "queries per round [{}], pow bits mu {} folding {} query {}; LogUp pow bits {}",
      p.l_skip, p.n_stack, p.log_stacked_height(), p.w_stack, p.log_blowup, p.max_constraint_degree, p.whir.k, rounds,
      p.whir.mu_pow_bits, p.whir.folding_pow_bits, p.whir.query_phase_pow_bits, p.logup.pow_bits);
}

// One line per AIR of a key: its widths, constraints, interactions, public values, and `what` (the
// trace height in a proof, or nothing).
void print_airs(const MultiStarkVerifyingKey& vk, const std::vector<std::string>& names,
                const std::function<std::string(size_t)>& what) {
  for (size_t a = 0; a < vk.per_air.size(); ++a) {
    const StarkVerifyingKey& air = vk.per_air[a];
    const TraceWidth& w = air.params.width;
    std::string widths = fmt::format("common main {}", w.common_main);
    if (w.preprocessed) widths += fmt::format(", preprocessed {}", *w.preprocessed);
    if (!w.cached_mains.empty()) widths += fmt::format(", cached [{}]", fmt::join(w.cached_mains, ", "));
    fmt::print("  AIR {}{}: {}; {} constraints of degree <= {} ({} DAG nodes), {} interactions, {} public values{}{}\n",
               a, a < names.size() ? " " + names[a] : "", widths, air.symbolic_constraints.constraint_idx.size(),
               air.max_constraint_degree, air.symbolic_constraints.nodes.size(),
               air.symbolic_constraints.interactions.size(), air.params.num_public_values,
               air.is_required ? ", required" : "", what(a));
  }
}

int info_command(int argc, char** argv) {
  cli::Options options(
      "vkstark info",
      "  Prints a proof file's shape: params, AIRs, trace heights, and the size of each part; or a vk\n"
      "  file's (vkstark keygen, prove --vk-out): params and AIRs. It does not verify (vkstark verify\n"
      "  does). Exit status 3 when the file cannot be read or is neither, 1 when a proof file's proof\n"
      "  does not decode.");
  std::string path;
  options.positional("FILE", path, "the proof file (vkstark prove --out) or vk file (vkstark keygen --out)");
  options.parse_or_exit(argc - 1, argv + 1);

  std::vector<uint8_t> bytes;
  try {
    const std::string_view starts[] = {kProofFileMagic, kVkFileMagic};
    bytes = cli::read_binary_file(path, kMaxFileBytes, starts, "vkstark proof file or vk file");
  } catch (const cli::FileError& e) {
    throw BadFile{e.what()};
  }
  if (bytes.size() >= kVkFileMagic.size() && std::equal(kVkFileMagic.begin(), kVkFileMagic.end(), bytes.begin())) {
    MultiStarkVerifyingKey vk;
    try {
      vk = decode_vk_file(bytes);
    } catch (const DecodeError& e) {
      throw BadFile{fmt::format("{}: {}", path, e.what())};
    }
    fmt::print("{}: vkstark vk file, format version {}, {} bytes\n", path, kVkFileVersion, bytes.size());
    fmt::print("params: {}\n", params_line(vk.params));
    fmt::print("verifying key: {} bytes, pre-hash {}, {} AIR(s), {} trace-height constraint(s)\n",
               encode_vk_postcard(vk).size(), to_hex(vk.pre_hash), vk.per_air.size(),
               vk.trace_height_constraints.size());
    print_airs(vk, {}, [](size_t) { return std::string(); });
    return 0;
  }
  ProofFile file;
  try {
    file = decode_proof_file(bytes);
  } catch (const DecodeError& e) {
    throw BadFile{fmt::format("{}: {}", path, e.what())};
  }
  const MultiStarkVerifyingKey& vk = file.vk;
  const std::vector<uint8_t> vk_bytes = encode_vk_postcard(vk);
  fmt::print("{}: vkstark proof file, format version {}, {} bytes\n", path, kProofFileVersion, bytes.size());
  fmt::print("params: {}\n", params_line(vk.params));
  fmt::print("verifying key: {} bytes, pre-hash {}, {} AIR(s), {} trace-height constraint(s)\n", vk_bytes.size(),
             to_hex(vk.pre_hash), vk.per_air.size(), vk.trace_height_constraints.size());
  Proof proof;
  try {
    proof = decode_proof(file.proof, vk);
  } catch (const DecodeError& e) {
    fmt::print("proof: {} bytes that do not decode: {}\n", file.proof.size(), e.what());
    return kExitRejected;
  }
  print_airs(vk, file.air_names, [&](size_t a) {
    const auto& v = proof.trace_vdata[a];
    return v ? fmt::format("; trace 2^{} rows", v->log_height) : std::string("; absent from this proof");
  });
  const ProofPartSizes sizes = proof_part_sizes(proof);
  fmt::print(
      "proof: {} bytes (codec version {}): header {}, GKR {}, batch constraint sumcheck {}, stacking {}, "
      "WHIR {}\n",
      file.proof.size(), kProofCodecVersion, sizes.header, sizes.gkr, sizes.batch_constraint, sizes.stacking,
      sizes.whir);
  return 0;
}

void print_usage(std::FILE* to) {
  fmt::print(to,
             "usage: vkstark <command> [options]\n"
             "  Proves and verifies STARKs (SWIRL, as OpenVM stark-backend v2) on any Vulkan GPU or the CPU.\n\n"
             "commands:\n"
             "  prove    prove a shipped AIR's computation, or AIRs given as data (--vk KEY --input INPUT),\n"
             "           into a proof file\n"
             "  keygen   write the verifying key (vk file) of a shipped computation's AIRs\n"
             "  trace    write a shipped computation's traces as a proving input (or a trace file)\n"
             "  prove-batch  prove the jobs of a manifest (or a folder of trace files) on every local\n"
             "           GPU, and with Open MPI over many machines\n"
             "  verify   verify a proof file (exit status 0 accepted, 1 rejected, 3 not a readable proof file)\n"
             "  info     print a proof file's params, AIRs, trace heights and part sizes, or a vk file's\n\n"
             "`vkstark <command> --help` lists the command's options.\n");
}

}  // namespace

int main(int argc, char** argv) try {
  if (argc < 2) {
    print_usage(stderr);
    return 2;
  }
  const std::string_view command = argv[1];
  try {
    if (command == "prove") return prove_command(argc, argv);
    if (command == "prove-batch") return cli::prove_batch_command(argc, argv);
    if (command == "trace") return trace_command(argc, argv);
    if (command == "keygen") return keygen_command(argc, argv);
    if (command == "verify") return verify_command(argc, argv);
    if (command == "info") return info_command(argc, argv);
  } catch (const BadFile& e) {
    fmt::print(stderr, "vkstark {}: {}\n", command, e.message);
    return kExitBadFile;
  }
  if (command == "--help" || command == "-h" || command == "help") {
    print_usage(stdout);
    return 0;
  }
  fmt::print(stderr, "vkstark: unknown command '{}'\n", command);
  print_usage(stderr);
  return 2;
} catch (const std::exception& e) {
  fmt::print(stderr, "vkstark: {}\n", e.what());
  return 1;
}
