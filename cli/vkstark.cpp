// vkstark: the command. Proves a shipped AIR's computation into a proof file, verifies proof files,
// prints their shape.
//
//   vkstark prove --air keccakf|fibonacci [--permutations N | --rows N] [--executor X] --out FILE
//   vkstark verify FILE [--vk VKFILE]
//   vkstark info FILE
//   vkstark trace --air keccakf|fibonacci ... --out FILE.vkt
//   vkstark prove-batch --manifest FILE | --traces DIR --out-dir DIR [--devices all|LIST] [--cpu-worker]
//     (cli/prove_batch.cpp; under mpirun with VKSTARK_MPI=ON, over every rank)
//
// The proof file (product/proof_file.hpp) holds the verifying key (with the params) and the proof.
// Exit statuses: 0 success (verify: accepted); 1 the proof is rejected, or a run failed; 2 a bad
// command line; 3 a file that cannot be read or is not a vkstark proof file (another format, another
// version, a broken header or verifying key).
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <filesystem>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "cli/progress.hpp"
#include "executors/executors.hpp"
#include "product/airs/test_airs.hpp"
#include "product/batch/batch.hpp"
#include "product/proof_file.hpp"
#include "product/trace_file.hpp"
#include "runtime/clock.hpp"
#include "runtime/error.hpp"
#include "runtime/file.hpp"
#include "runtime/trace.hpp"
#include "stages/air/eval.hpp"
#include "stages/air/keygen.hpp"
#include "stages/proof/codec.hpp"
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
    bytes = cli::read_binary_file(path, kMaxFileBytes);
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
    options.choice("--air", air, {"keccakf", "fibonacci"}, "keccakf",
                   "keccakf: Keccak-f[1600] permutations of random inputs; fibonacci: a Fibonacci sequence");
    options.number<uint32_t>("--permutations", "N", permutations, 1024, {1, 1u << 16},
                             "keccakf: permutations (24 trace rows each)");
    options.number<uint32_t>("--seed", "S", seed, 1, {0, UINT32_MAX}, "keccakf: seed of the random inputs");
    options.number<uint32_t>("--rows", "N", rows, 1u << 14, {4, 1u << 24}, "fibonacci: trace rows, a power of two");
  }
  // After parsing: the job. Usage errors for rows that are not a power of two and for the options
  // of the other AIR. With `max_log_rows` (the stacked height of the chosen params), a size left at
  // its default is the largest that fits when the default does not, and a size given that does not
  // fit is a usage error naming the largest.
  batch::Job job(const cli::Options& options, std::string name, std::optional<uint32_t> max_log_rows = {},
                 std::string_view params_hint = {}) {
    if (air == "keccakf" && options.given("--rows"))
      options.fail("--rows applies to --air fibonacci (keccakf's size is --permutations)");
    if (air == "fibonacci" && (options.given("--permutations") || options.given("--seed")))
      options.fail(fmt::format("{} applies to --air keccakf (fibonacci's size is --rows)",
                               options.given("--permutations") ? "--permutations" : "--seed"));
    if (air == "fibonacci" && !std::has_single_bit(rows))
      options.fail(fmt::format("--rows {}: not a power of two", rows));
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
      if (air == "fibonacci" && rows > max_rows) {
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
    j.size = air == "keccakf" ? permutations : rows;
    j.seed = seed;
    return j;
  }
};

// ---------------------------------------------------------------------------------------------

int prove_command(int argc, char** argv) {
  cli::Options options("vkstark prove",
                       "  Proves a shipped AIR's computation, checks the proof, and writes the proof file (the\n"
                       "  verifying key with its params, and the proof) for `vkstark verify`.");
  Computation computation;
  std::string executor, params_name, out, vk_out, trace_file, json_file;
  uint32_t log_stacked = 0;
  bool quiet = false, debug_check = false;
  computation.declare(options);
  options.choice("--params", params_name, {"secure", "test"}, "secure",
                 "secure: app_params_with_100_bits_security(--log-stacked-height); test: small, fast, NOT secure");
  options.number<uint32_t>("--log-stacked-height", "H", log_stacked, 21, {8, kMaxLogStackedHeight},
                           "the secure params' log2 stacked height");
  cli::executor_option(options, executor);
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

  // --quiet: warnings and errors only, unless VKSTARK_LOG_LEVEL asks for more (runtime/log.hpp).
  if (quiet) spdlog::set_level(spdlog::level::warn);
  cli::Progress progress(quiet);
  if (params_name == "test" && options.given("--log-stacked-height"))
    options.fail("--log-stacked-height applies to --params secure (the test params' stacked height is fixed)");
  batch::Job sizing;
  sizing.params = params_name;
  sizing.log_stacked = log_stacked;
  const SystemParams params = batch::job_params(sizing);
  batch::Job job =
      computation.job(options, "prove", params.log_stacked_height(),
                      params_name == "test" ? "--params test" : fmt::format("--log-stacked-height {}", log_stacked));
  const std::string& air = job.air;
  job.params = params_name;
  job.log_stacked = log_stacked;
  auto exec = make_executor(executor);
  if (progress.enabled()) fmt::print(stderr, "vkstark prove: {} on {} ({})\n", air, exec->name(), exec->device_name());

  batch::JobAirs job_airs;
  progress.step("trace generation", [&] { job_airs = batch::make_job_airs(job); });
  const std::vector<std::optional<AirWithTraces>>& traces = job_airs.airs;
  const std::string& statement = job_airs.statement;
  std::vector<std::shared_ptr<const Air>> air_list;
  for (const auto& t : traces) air_list.push_back(t->air);
  const ProvingKey pk = progress.step("keygen", [&] { return keygen(air_list, params, *exec); });
  if (debug_check || debug_constraints_enabled())
    progress.step("debug check (constraints and buses)", [&] { debug_check_traces(pk, traces); });
  // One proof: round 0 on generated kernels where they are in the caches, else on the interpreter
  // with nothing compiled in the background, which this process would only wait for at exit
  // (ProverOptions::round0_kernels). The debug check ran above when asked.
  StarkProver prover(pk, *exec, {.debug_check = false, .background_kernels = false});
  auto prepared = progress.step("prepare (graph, kernels, pipelines)", [&] { return prover.prepare(traces); });

  Trace trace;
  progress.follow_spans(trace, 3);
  const auto t0 = Clock::now();
  const Proof proof = prepared->run(traces, &trace);
  const double prove_ms = ms_since(t0);
  progress.report_remaining_spans(trace);

  ProofFile file;
  for (const auto& a : air_list) file.air_names.push_back(a->name());
  file.vk = pk.vk;
  file.proof = encode(proof);
  const VerifyResult check = progress.step("verification", [&] { return verify_bytes(file.vk, file.proof); });
  if (!check.ok) {
    fmt::print(stderr, "vkstark prove: the proof does not verify ([{}] {}): a bug, please report it\n",
               to_string(check.code), check.reason);
    return 1;
  }
  // Every output file replaced together, only now that the proof verifies: a failure writing any
  // of them leaves all of them as they were (runtime/file.hpp).
  const std::vector<uint8_t> bytes = encode_proof_file(file);
  const std::vector<uint8_t> vk_bytes = vk_out.empty() ? std::vector<uint8_t>() : encode_vk_file(pk.vk);
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

  fmt::print("proved {} on {} ({}) in {:.1f} ms: {} submission(s), {} host sync(s)\n", statement, exec->name(),
             exec->device_name(), prove_ms, trace.counters.submissions, trace.counters.host_syncs);
  fmt::print("wrote {}: {} bytes (proof {} bytes), verifying key {}\n", out, bytes.size(), file.proof.size(),
             to_hex(pk.vk.pre_hash));
  if (params_name == "test") fmt::print("warning: --params test is NOT secure (for tests and demos only)\n");
  return 0;
}

// ---------------------------------------------------------------------------------------------

int trace_command(int argc, char** argv) {
  cli::Options options("vkstark trace",
                       "  Writes a shipped AIR's trace as a trace file (.vkt), for vkstark prove-batch (a manifest's\n"
                       "  trace= or --traces DIR).");
  Computation computation;
  std::string out;
  computation.declare(options);
  options.output("--out", out, "the trace file to write (required)");
  options.parse_or_exit(argc - 1, argv + 1);
  if (out.empty()) options.fail("--out FILE is required");
  const batch::JobAirs airs = batch::make_job_airs(computation.job(options, "trace"));
  const std::vector<uint8_t> bytes = encode_trace_file(to_trace_file(*airs.airs.at(0)));
  cli::write_binary_file(out, bytes);
  fmt::print("wrote {}: {} ({} bytes)\n", out, airs.statement, bytes.size());
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
      trusted = decode_vk_file(cli::read_binary_file(vk_path, kMaxFileBytes));
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

int info_command(int argc, char** argv) {
  cli::Options options("vkstark info",
                       "  Prints a proof file's shape: params, AIRs, trace heights, and the size of each part.\n"
                       "  It does not verify (vkstark verify does). Exit status 3 when the file cannot be read or\n"
                       "  is not a vkstark proof file, 1 when its proof does not decode.");
  std::string path;
  options.positional("FILE", path, "the proof file (vkstark prove --out)");
  options.parse_or_exit(argc - 1, argv + 1);

  const ProofFile file = read_proof_file(path);
  const MultiStarkVerifyingKey& vk = file.vk;
  const std::vector<uint8_t> vk_bytes = encode_vk_postcard(vk);
  fmt::print("{}: vkstark proof file, format version {}, {} bytes\n", path, kProofFileVersion,
             encode_proof_file(file).size());
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
  for (size_t a = 0; a < vk.per_air.size(); ++a) {
    const StarkVerifyingKey& air = vk.per_air[a];
    const TraceWidth& w = air.params.width;
    std::string widths = fmt::format("common main {}", w.common_main);
    if (w.preprocessed) widths += fmt::format(", preprocessed {}", *w.preprocessed);
    if (!w.cached_mains.empty()) widths += fmt::format(", cached [{}]", fmt::join(w.cached_mains, ", "));
    const auto& v = proof.trace_vdata[a];
    fmt::print("  AIR {} {}: {}; {} constraints of degree <= {}, {} interactions, {} public values; {}\n", a,
               file.air_names[a], widths, air.symbolic_constraints.constraint_idx.size(), air.max_constraint_degree,
               air.symbolic_constraints.interactions.size(), air.params.num_public_values,
               v ? fmt::format("trace 2^{} rows", v->log_height) : std::string("absent from this proof"));
  }
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
             "  prove    prove a shipped AIR's computation into a proof file\n"
             "  prove-batch  prove the jobs of a manifest (or a folder of trace files) on every local\n"
             "           GPU, and with Open MPI over many machines\n"
             "  trace    write a shipped AIR's trace as a trace file (for prove-batch)\n"
             "  verify   verify a proof file (exit status 0 accepted, 1 rejected, 3 not a readable proof file)\n"
             "  info     print a proof file's params, AIRs, trace heights and part sizes\n\n"
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
