// data_air_bench: proofs from an AIR given as data against the same AIR written in code, in one run
// (issue 40: "proving from a data-built AIR is as fast as from the C++ AIR"). The Keccak-f AIR's
// key is made from the C++ AIR, written as a vk file and read back; the AIR built from it (DagAir,
// keygen_from_vk) and the C++ AIR then prove the same traces, each with its own prover and prepared
// proof, the runs interleaved (C++ then data, data then C++, ...) so that neither gets a warmer
// device. Reports the proof's time (device time of stark_prove_excluding_trace on a GPU, host time
// on the CPU executor) and the wall time per proof, medians, min and max, their ratio (data / C++),
// the prepare times (cold: the first prepare of the process, the C++ AIR's; then both again with
// new provers, warm caches, --prepares times alternating, the median), keygen times, and that the proofs are
// byte-identical and verify.
//
//   data_air_bench [--executor X] [--permutations 1024] [--log-stacked-height 21] [--runs 9] [--prepares 5]
//                  [--json F]
//
// JSON: bench/results/data_air_bench-<executor>.json.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <chrono>

#include "bench/bench_util.hpp"
#include "bench/prepare_steady.hpp"
#include "cli/options.hpp"
#include "executors/executors.hpp"
#include "product/airs/test_airs.hpp"
#include "runtime/error.hpp"
#include "runtime/json.hpp"
#include "stages/air/dag_air.hpp"
#include "stages/air/keygen.hpp"
#include "stages/encoding/codec.hpp"
#include "stages/prover.hpp"
#include "stages/verifier.hpp"

using namespace vkstark;

namespace {

using Clock = std::chrono::steady_clock;

struct Side {
  std::string name;
  ProvingKey pk;
  std::unique_ptr<StarkProver> prover;
  std::unique_ptr<StarkProver::Prepared> prepared;
  std::vector<std::optional<AirWithTraces>> airs;
  double keygen_ms = 0, prepare_cold_ms = 0, prepare_warm_ms = 0;
  std::string round0;
  std::vector<double> proof_ms, wall_ms;
  std::vector<uint8_t> bytes;
};

// The proof's time in a run: its device time where the executor has timestamps, else the host's.
double proof_time(const Trace& t) {
  for (const TraceSpan& s : t.spans)
    if (s.path == "stark_prove_excluding_trace") return s.device_ms >= 0 ? s.device_ms : s.host_ms;
  return -1;
}

void run_once(Side& s) {
  Trace t;
  const auto a = Clock::now();
  const Proof proof = s.prepared->run(s.airs, &t);
  s.wall_ms.push_back(bench::steady_ms_since(a));
  s.proof_ms.push_back(proof_time(t));
  s.bytes = encode(proof);
}

std::string stats_json(const std::vector<double>& v) {
  return fmt::format("{{\"median\": {}, \"min\": {}, \"max\": {}}}", json_number(bench::median(v)),
                     json_number(*std::min_element(v.begin(), v.end())),
                     json_number(*std::max_element(v.begin(), v.end())));
}

}  // namespace

int main(int argc, char** argv) try {
  cli::Options options("data_air_bench",
                       "  Keccak-f proofs from the AIR given as data (its vk file) against the C++ AIR, in one run.");
  std::string executor, json_file;
  uint32_t permutations = 0, log_stacked = 0, runs = 0, prepares = 0;
  cli::executor_option(options, executor);
  options.number<uint32_t>("--permutations", "P", permutations, 1024, {1, 1u << 16},
                           "Keccak-f permutations (24 rows each; 1024: 2^15 rows)");
  options.number<uint32_t>("--log-stacked-height", "S", log_stacked, 21, {8, 24},
                           "app_params_with_100_bits_security(S)");
  options.number<uint32_t>("--runs", "R", runs, 9, {1, 1000}, "timed proofs of each AIR, after a warm-up of each");
  options.number<uint32_t>("--prepares", "N", prepares, 5, {1, 100},
                           "warm prepares of each AIR (new provers, caches warm), alternating; the median");
  options.output("--json", json_file, "write results as JSON (default: bench/results/data_air_bench-<executor>.json)");
  options.parse_or_exit(argc, argv);
  const SystemParams params = app_params_with_100_bits_security(log_stacked);
  params.validate();
  auto exec = make_executor(executor);
  const std::string result_file = bench::result_path(json_file, "data_air_bench", std::string(exec->name()));

  const std::vector<AirWithTraces> fixture = keccak_fixture(permutations, 7);
  Side cpp, data;
  cpp.name = "cpp";
  data.name = "data";
  cpp.airs.assign(fixture.begin(), fixture.end());
  auto t0 = Clock::now();
  cpp.pk = keygen(std::vector<std::shared_ptr<const Air>>{fixture[0].air}, params, *exec);
  cpp.keygen_ms = bench::steady_ms_since(t0);
  // The data side: the vk file's bytes read back, the AIR built from its entry.
  const std::vector<uint8_t> vk_file = encode_vk_file(cpp.pk.vk);
  t0 = Clock::now();
  const MultiStarkVerifyingKey vk = decode_vk_file(vk_file);
  const std::vector<std::string> names{fixture[0].air->name()};
  const std::vector<std::shared_ptr<const Air>> data_airs = airs_from_vk(vk, names, {std::nullopt});
  data.pk = keygen_from_vk(vk, data_airs, *exec);
  data.keygen_ms = bench::steady_ms_since(t0);
  data.airs.push_back(AirWithTraces(data_airs[0], fixture[0].common, fixture[0].public_values));
  fmt::print(
      "data_air_bench: executor {}, device {}\n  Keccak-f x {}: {} columns x {} rows, vk file {} bytes; {} "
      "proofs of each after a warm-up, interleaved\n",
      exec->name(), exec->device_name(), permutations, fixture[0].common.width, fixture[0].common.height,
      vk_file.size(), runs);

  // Prepared cold (the C++ AIR first: it pays the process's first kernels), then both again warm.
  for (Side* s : {&cpp, &data}) {
    s->prover = std::make_unique<StarkProver>(s->pk, *exec);
    s->prepared = bench::prepare_steady(*s->prover, s->airs, {}, s->prepare_cold_ms, s->round0);
  }
  // Warm: each prepared again with a new prover, `prepares` times, alternating (median).
  std::vector<double> warm_cpp, warm_data;
  for (uint32_t i = 0; i < prepares; ++i) {
    const std::array<Side*, 2> order =
        i % 2 == 0 ? std::array<Side*, 2>{&data, &cpp} : std::array<Side*, 2>{&cpp, &data};
    for (Side* s : order) {
      s->prepared.reset();
      s->prover = std::make_unique<StarkProver>(s->pk, *exec);
      double ms = 0;
      s->prepared = bench::prepare_steady(*s->prover, s->airs, {}, ms, s->round0);
      (s == &cpp ? warm_cpp : warm_data).push_back(ms);
    }
  }
  cpp.prepare_warm_ms = bench::median(warm_cpp);
  data.prepare_warm_ms = bench::median(warm_data);
  run_once(cpp);  // warm-ups
  run_once(data);
  for (Side* s : {&cpp, &data}) s->proof_ms.clear(), s->wall_ms.clear();
  for (uint32_t r = 0; r < runs; ++r) {
    if (r % 2 == 0) {
      run_once(cpp);
      run_once(data);
    } else {
      run_once(data);
      run_once(cpp);
    }
  }
  const bool same = cpp.bytes == data.bytes;
  const VerifyResult v = verify_bytes(vk, data.bytes);
  const double ratio = bench::median(data.proof_ms) / bench::median(cpp.proof_ms);
  const double wall_ratio = bench::median(data.wall_ms) / bench::median(cpp.wall_ms);
  fmt::print("\n  {:<6} {:>12} {:>10} {:>10} {:>12} {:>14} {:>14} {:>10}\n", "AIR", "proof ms", "min", "max", "wall ms",
             "prepare cold", "prepare warm", "keygen ms");
  for (const Side* s : {&cpp, &data})
    fmt::print("  {:<6} {:>12.2f} {:>10.2f} {:>10.2f} {:>12.2f} {:>14.1f} {:>14.1f} {:>10.1f}\n", s->name,
               bench::median(s->proof_ms), *std::min_element(s->proof_ms.begin(), s->proof_ms.end()),
               *std::max_element(s->proof_ms.begin(), s->proof_ms.end()), bench::median(s->wall_ms), s->prepare_cold_ms,
               s->prepare_warm_ms, s->keygen_ms);
  fmt::print("  data / C++: proof {:.4f}, wall {:.4f}; round 0 kernels {} / {}; proofs {} and {}\n", ratio, wall_ratio,
             cpp.round0, data.round0, same ? "byte-identical" : "DIFFERENT", v.ok ? "verify" : "do NOT verify");

  auto side_json = [](const Side& s) {
    return fmt::format(
        "{{\"proof_ms\": {}, \"wall_ms\": {}, \"prepare_cold_ms\": {}, \"prepare_warm_ms\": {}, \"keygen_ms\": {}, "
        "\"round0_kernels\": {}}}",
        stats_json(s.proof_ms), stats_json(s.wall_ms), json_number(s.prepare_cold_ms), json_number(s.prepare_warm_ms),
        json_number(s.keygen_ms), json_string(s.round0));
  };
  bench::write_result(
      result_file, "data_air_bench", std::string(exec->name()), exec->device_name(),
      fmt::format("{{\"permutations\": {}, \"log_stacked_height\": {}, \"runs\": {}, \"vk_bytes\": {}, "
                  "\"prepares\": {}, \"cpp\": {}, \"data\": {}, \"proof_ratio\": {}, \"wall_ratio\": {}, "
                  "\"byte_identical\": {}, \"verified\": {}}}",
                  permutations, log_stacked, runs, vk_file.size(), prepares, side_json(cpp), side_json(data),
                  json_number(ratio), json_number(wall_ratio), same, v.ok));
  fmt::print("results: {}\n", result_file);
  return same && v.ok ? 0 : 1;
} catch (const std::exception& e) {
  fmt::print(stderr, "data_air_bench: {}\n", e.what());
  return 1;
}
