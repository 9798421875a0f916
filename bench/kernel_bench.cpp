// kernel_bench: throughput of single kernels on the chosen executor, timed from the trace's device
// time of a span holding R back-to-back dispatches (median of 5 runs):
//   Poseidon2 permutations/s (poseidon2_permute), copy bandwidth (copy_u32, read + write bytes),
//   BabyBear multiplications/s (fp_mul), the keccakf 2^15 codeword's NTT (42 columns, 2^21 -> 2^22,
//   at each limit on the stages of a pass; --only ntt: that alone), and the latency
//   of the device transcript (stages/common/transcript.hpp): a chained permutation inside one observe, and
//   a chain of dependent observe + sample dispatches, separate and fused; and where a chained
//   permutation's latency goes (--only latency: its pieces chained in one workgroup).
//
// --trace FILE writes one Chrome trace holding the last timed run of each plan, one after another.
//
//   kernel_bench [--executor cpu|vulkan|auto] [--log-states 22] [--only transcript|latency|ntt]
//                [--transcript-perms 1024] [--transcript-chain 256] [--sms N --clock-mhz F] [--trace F]
//                [--json F]
// With --sms and --clock-mhz: the Poseidon2 permutation's integer instructions (counted from its
// generic code) against the device's issue rate, beside the measured rate.
#include <fmt/format.h>

#include <array>

#include "bench/bench_util.hpp"
#include "cli/options.hpp"
#include "executors/executors.hpp"
#include "kernels/basic.hpp"
#include "kernels/elementwise.hpp"
#include "kernels/glsl/compiler.hpp"
#include "kernels/hash/poseidon2.hpp"
#include "kernels/hashing.hpp"
#include "runtime/trace.hpp"
#include "stages/common/device_value.hpp"
#include "stages/common/ntt.hpp"
#include "stages/common/program.hpp"
#include "stages/common/transcript.hpp"

using namespace vkstark;

namespace {

constexpr int kRuns = 5;

// The field operations of one Poseidon2 permutation, counted by running the permutation's own
// generic code (poseidon2_permute_generic, which the GLSL mirrors operation for operation) on a lane
// type that counts instead of computing.
struct FieldOps {
  uint64_t add = 0, sub = 0, mul = 0, halve = 0;  // halve: div_2exp<k>, fp_halve_k in GLSL
};
struct CountingLane {
  FieldOps* ops = nullptr;
  friend CountingLane operator+(CountingLane a, CountingLane) { return ++a.ops->add, a; }
  friend CountingLane operator-(CountingLane a, CountingLane) { return ++a.ops->sub, a; }
  friend CountingLane operator*(CountingLane a, CountingLane) { return ++a.ops->mul, a; }
  friend CountingLane operator+(CountingLane a, Fp) { return ++a.ops->add, a; }  // a round constant
};
template <int k>
CountingLane div_2exp(CountingLane a) {  // found by argument lookup from internal_layer
  return ++a.ops->halve, a;
}

FieldOps permutation_ops() {
  FieldOps ops;
  std::array<CountingLane, 16> x;
  x.fill(CountingLane{&ops});
  poseidon2_permute_generic(x);
  return ops;
}

// 32-bit integer instructions per operation as kernels/glsl/fp.glsl writes them (before the
// driver's compiler fuses any): fp_add and fp_sub 3 (the sum, its reduction, a min); fp_mul 8 (the
// two words of a*b, lo*mu, the high word of u*p, the difference, a compare, the correction, a
// select); fp_halve_k 6 (a negation, a mask, an add, a shift, a multiply, an add).
constexpr uint64_t kAddInstructions = 3, kMulInstructions = 8, kHalveInstructions = 6;
uint64_t permutation_instructions(const FieldOps& o) {
  return (o.add + o.sub) * kAddInstructions + o.mul * kMulInstructions + o.halve * kHalveInstructions;
}

// Median device time (ms) of the span "work" over kRuns runs of the plan (after one warm-up run).
// The last run's trace goes to `traces`, its top span named `label`.
double time_span(Executor& exec, const Graph& g, const std::function<void(PreparedPlan&)>& upload,
                 const std::string& label, std::vector<Trace>& traces) {
  auto p = exec.prepare(compile(g));
  upload(*p);
  Trace t;
  const double ms = bench::median_work_span_ms(*p, kRuns, t);
  t.spans[0].name = label;
  traces.push_back(std::move(t));
  return ms;
}

// The device transcript's latency. (a) One observe of 8 P values: P permutations chained inside
// one dispatch, so us per permutation is the sponge's own latency. (b) K dependent pairs of
// dispatches observe(8 values), sample(1): one permutation per pair (the sample takes a lane of the
// state the full block left), dispatch latency and barriers included. (c) The same K pairs as one
// observe_sample dispatch each.
std::string transcript_latency(Executor& exec, uint32_t perms, uint32_t chain, std::vector<Trace>& traces) {
  std::string json;
  const uint32_t reps = 4;
  {
    Graph g;
    auto values = g.input<Fp>("values", 8ull * perms);
    DeviceTranscript t(g, "t");
    {
      auto span = g.span("work");
      for (uint32_t r = 0; r < reps; ++r) t.observe(values);
    }
    double ms = time_span(
        exec, g, [&](PreparedPlan& p) { p.upload(values, std::vector<Fp>(8ull * perms, Fp::one())); },
        "transcript_permutations", traces);
    double us = ms * 1e3 / (double(reps) * perms);
    fmt::print(
        "  transcript observe of 8 x {} values ({} dispatches): {:.3f} ms -> {:.3f} us per chained permutation\n",
        perms, reps, ms, us);
    json += fmt::format(", \"transcript_chained_permutation_us\": {}", json_number(us));
  }
  for (bool fused : {false, true}) {
    Graph g;
    auto values = g.input<Fp>("values", 8ull * chain);
    auto out = g.output<Fp>("out", chain);
    DeviceTranscript t(g, "t");
    {
      auto span = g.span("work");
      for (uint32_t i = 0; i < chain; ++i) {
        if (fused) {
          t.observe_sample(values.slice(8ull * i, 8), out.slice(i, 1));
        } else {
          t.observe(values.slice(8ull * i, 8));
          t.sample(out.slice(i, 1));
        }
      }
    }
    double ms = time_span(
        exec, g, [&](PreparedPlan& p) { p.upload(values, std::vector<Fp>(8ull * chain, Fp::one())); },
        fused ? "transcript_chain_fused" : "transcript_chain", traces);
    double us = ms * 1e3 / chain;
    fmt::print("  transcript chain of {} x {}: {:.3f} ms -> {:.3f} us per observe(8) + sample(1)\n", chain,
               fused ? "observe_sample (1 dispatch)" : "observe, sample (2 dispatches)", ms, us);
    json += fmt::format(", \"transcript_{}_us\": {}", fused ? "observe_sample_fused" : "observe_then_sample",
                        json_number(us));
  }
  return json;
}

// Where a chained permutation's latency goes (docs/decisions.md, the openings' sponge): one
// workgroup of 16 invocations, a state lane each (kernels/glsl/sponge_coop.glsl), runs one piece of
// the permutation `iters` times on its own output; device time / iters is that piece's latency.
// Pieces: the whole permutation, the external layer (with its round constant), the 13 partial
// rounds, the S-box (p2_sbox, and the cooperative permutation's p2c_sbox), an exchange of lanes,
// a field multiplication and an addition. Each CPU body computes the same chain
// on the host (so the outputs are comparable; their time means nothing).
struct ProbeArgs {
  InOut<Fp> x;  // 16 lanes
  uint32_t iters = 0;
};
struct Probe {
  const char* name;
  const char* step;  // GLSL: one step on `x` (lane value), with `k` (P2cLaneConsts) and `lane`
  std::function<void(std::array<Fp, 16>&)> host;
};

std::string permutation_latency(Executor& exec, uint32_t iters, std::vector<Trace>& traces) {
  using namespace poseidon2_detail;
  const auto sbox_lanes = [](std::array<Fp, 16>& x) {
    for (Fp& v : x) v = sbox(v);
  };
  const std::vector<Probe> probes = {
      {"permutation", "p2c_permute(x, k);", [](std::array<Fp, 16>& x) { poseidon2_permute(x); }},
      {"external_layer", "x = p2c_external_add(x, k.ext_init[0]);",
       [](std::array<Fp, 16>& x) {
         external_layer(x);
         for (int i = 0; i < 16; ++i) x[i] = x[i] + Fp::from_mont(RC_EXT_INIT[i]);
       }},
      {"partial_rounds", "x = p2c_partial_rounds(x, k, 0u);",
       [](std::array<Fp, 16>& x) {
         for (int r = 0; r < POSEIDON2_PARTIAL_ROUNDS; ++r) {
           x[0] = sbox(x[0] + Fp::from_mont(RC_INT[r]));
           internal_layer(x);
         }
       }},
      {"sbox", "x = p2_sbox(x);", sbox_lanes},
      {"p2c_sbox", "x = p2c_sbox(x);", sbox_lanes},
      {"lane_exchange", "x = fp_add(p2c_xor3(x, 1u, 2u, 3u).x, 0x12345u);",
       [](std::array<Fp, 16>& x) {
         std::array<Fp, 16> y;
         for (int i = 0; i < 16; ++i) y[i] = x[i ^ 1] + Fp::from_mont(0x12345u);
         x = y;
       }},
      {"fp_mul", "x = fp_mul(x, 0x12345u);",
       [](std::array<Fp, 16>& x) {
         for (Fp& v : x) v = v * Fp::from_mont(0x12345u);
       }},
      {"fp_add", "x = fp_add(x, 0x12345u);",
       [](std::array<Fp, 16>& x) {
         for (Fp& v : x) v = v + Fp::from_mont(0x12345u);
       }},
  };
  std::string json;
  for (const Probe& probe : probes) {
    const std::string body = fmt::format(R"glsl(
#include "sponge_coop.glsl"
void main() {{
  if (gl_WorkGroupSize.x != 16u) return;
  const uint lane = p2c_lane();
  const P2cLaneConsts k = p2c_lane_consts();
  uint x = x_[pc.x_off + lane];
  for (uint i = 0u; i < pc.iters; ++i) {{ {} }}
  x_[pc.x_off + lane] = x;
}}
)glsl",
                                         probe.step);
    auto host = probe.host;
    auto kernel = make_glsl_kernel({.name = std::string("latency_") + probe.name,
                                    .abi = kernel_abi<ProbeArgs>(),
                                    .constants = {sponge_coop_groups(16)},
                                    .body = body,
                                    .workgroup_size = 16,
                                    .cpu =
                                        [host](const CpuContext& ctx) {
                                          auto x = ctx.view<Fp>(0);
                                          std::array<Fp, 16> s;
                                          std::copy(x.begin(), x.begin() + 16, s.begin());
                                          for (uint32_t i = 0; i < ctx.scalars()[0]; ++i) host(s);
                                          std::copy(s.begin(), s.end(), x.begin());
                                        },
                                    .grid = [](const RuntimeArgs&) { return Grid{16}; },
                                    .check = over_args<ProbeArgs>([](const ProbeArgs& a) {
                                      return a.x.view.count == 16 ? std::string() : std::string("x is not 16 lanes");
                                    })});
    Graph g;
    auto x0 = g.input<Fp>("x0", 16);
    auto x = g.output<Fp>("x", 16);
    g.dispatch<CopyU32>("init", {.src = x0.all().bitcast<uint32_t>(), .dst = x.all().bitcast<uint32_t>()});
    {
      auto span = g.span("work");
      DynamicArgs args;
      args.view(x.all()).scalar(iters);
      g.dispatch(std::string("latency.") + probe.name, kernel, args, Grid{16});
    }
    std::vector<Fp> start(16);
    for (uint32_t i = 0; i < 16; ++i) start[i] = Fp::from_canonical(1000 + 17 * i);
    const double ms = time_span(
        exec, g, [&](PreparedPlan& p) { p.upload(x0, start); }, std::string("latency_") + probe.name, traces);
    const double ns = ms * 1e6 / iters;
    fmt::print("  latency of {:<15} {:9.1f} ns per step ({} chained steps, one workgroup of 16)\n", probe.name, ns,
               iters);
    json += fmt::format(", \"latency_{}_ns\": {}", probe.name, json_number(ns));
  }
  // The scalar-program interpreter (stages/common/program.hpp): a program of n dependent Fp4 additions,
  // then of n multiplications; device time / n is one interpreted instruction.
  for (const char* kind : {"add", "mul"}) {
    const uint32_t n = 200;
    Graph g;
    auto out = g.output<Fp4>("out", 1);
    DeviceTranscript t(g, "t");
    {
      auto span = g.span("work");
      ProgramBuilder prog(g, t, std::string("latency.program_") + kind);
      DeviceFp4 x = constant(prog, Fp4(Fp::from_canonical(3), Fp::from_canonical(5), Fp::one(), Fp::one()));
      const DeviceFp4 c = constant(prog, Fp4(Fp::from_canonical(7), Fp::zero(), Fp::one(), Fp::zero()));
      for (uint32_t i = 0; i < n; ++i) x = kind[0] == 'a' ? x + c : x * c;
      store_ext(out.all(), x);
      prog.emit();
    }
    const double ms = time_span(
        exec, g, [](PreparedPlan&) {}, std::string("latency_program_") + kind, traces);
    const double ns = ms * 1e6 / n;
    fmt::print("  latency of program {:<7} {:9.1f} ns per interpreted instruction ({} chained)\n", kind, ns, n);
    json += fmt::format(", \"latency_program_{}_ns\": {}", kind, json_number(ns));
  }
  return json;
}

}  // namespace

int main(int argc, char** argv) try {
  cli::Options options("kernel_bench",
                       "  Throughput of single kernels (median device time of 5 runs) and the device transcript's "
                       "latency.");
  std::string executor, only, trace_file, json_file;
  uint32_t log_states = 0, transcript_perms = 0, transcript_chain = 0;
  cli::executor_option(options, executor);
  // The copy bandwidth case moves 2^(N+6) words: 4 GiB at the top of the range.
  options.number<uint32_t>("--log-states", "N", log_states, 22, {4, 24}, "log2 of the Poseidon2 states");
  options.choice(
      "--only", only, {"transcript", "latency", "ntt"}, "",
      "run only the transcript latency cases, the permutation's latency probes, or the codeword NTT (default: every "
      "case)");
  options.number<uint32_t>("--transcript-perms", "P", transcript_perms, 1024, {1, 1u << 20},
                           "permutations chained inside one observe");
  options.number<uint32_t>("--transcript-chain", "K", transcript_chain, 256, {1, 1u << 16},
                           "dependent observe + sample pairs");
  uint32_t sms = 0, clock_mhz = 0;
  options.number<uint32_t>("--sms", "N", sms, 0, {0, 4096},
                           "the device's streaming multiprocessors (compute units), for the Poseidon2 floor (0: not "
                           "printed; an H100 or H200 SXM has 132)");
  options.number<uint32_t>("--clock-mhz", "F", clock_mhz, 0, {0, 10000},
                           "the device's clock while the bench runs, for the Poseidon2 floor (nvidia-smi: clocks.sm)");
  options.output("--trace", trace_file, "write a Chrome trace of the last run of each plan (open in Perfetto)");
  options.output("--json", json_file, "write results as JSON (default: bench/results/kernel_bench-<executor>.json)");
  options.parse_or_exit(argc, argv);
  auto exec = make_executor(executor);
  const std::string result_file = bench::result_path(json_file, "kernel_bench", std::string(exec->name()));
  fmt::print("kernel_bench: executor {}, device {}, subgroup size {}\n", exec->name(), exec->device_name(),
             exec->limits().subgroup_size);
  const uint32_t reps = 4;
  std::vector<Trace> traces;  // the last run of each plan
  std::string json = fmt::format("{{\"subgroup_size\": {}", exec->limits().subgroup_size);
  const bool all = only.empty();

  if (all) {  // Poseidon2
    const uint64_t n = uint64_t(1) << log_states;
    Graph g;
    auto s = g.input<Fp>("states", 16 * n);
    auto w = g.output<Fp>("work_states", 16 * n);
    g.dispatch<CopyU32>("init", {.src = s.all().bitcast<uint32_t>(), .dst = w.all().bitcast<uint32_t>()});
    {
      auto span = g.span("work");
      for (uint32_t r = 0; r < reps; ++r) g.dispatch<Poseidon2Permute>("permute", {.states = w});
    }
    double ms = time_span(
        *exec, g, [&](PreparedPlan& p) { p.upload(s, std::vector<Fp>(16 * n, Fp::one())); }, "poseidon2_permute",
        traces);
    double rate = reps * n / (ms * 1e-3);
    fmt::print("  poseidon2_permute: 2^{} states x {}: {:.3f} ms -> {:.3f} G permutations/s\n", log_states, reps, ms,
               rate / 1e9);
    json += fmt::format(", \"poseidon2_perms_per_s\": {}", json_number(rate));
    // Its floor: the permutation's integer instructions against the device's issue rate (SMs x
    // lanes a clock x clock, given on the command line: Vulkan does not report them).
    const FieldOps ops = permutation_ops();
    const uint64_t ins = permutation_instructions(ops);
    fmt::print(
        "  poseidon2 permutation: {} add, {} sub, {} mul, {} halve = {} 32-bit integer instructions as written\n",
        ops.add, ops.sub, ops.mul, ops.halve, ins);
    json += fmt::format(", \"poseidon2_instructions\": {}, \"poseidon2_field_ops\": [{}, {}, {}, {}]", ins, ops.add,
                        ops.sub, ops.mul, ops.halve);
    if (sms > 0 && clock_mhz > 0) {
      const double lanes_per_s = double(sms) * clock_mhz * 1e6;  // a lane-instruction per SM per clock
      const double at64 = lanes_per_s * 64 / double(ins), at128 = lanes_per_s * 128 / double(ins);
      const double used = rate * double(ins) / lanes_per_s;
      fmt::print(
          "  floor on {} SMs at {} MHz: {:.3f} G permutations/s at 64 integer lanes a clock per SM, {:.3f} at 128 (4 "
          "schedulers x 32 lanes: the issue limit); measured {:.3f}: {:.1f} lane-instructions a clock per SM\n",
          sms, clock_mhz, at64 / 1e9, at128 / 1e9, rate / 1e9, used);
      json += fmt::format(
          ", \"poseidon2_floor_64_lanes_perms_per_s\": {}, \"poseidon2_floor_128_lanes_perms_per_s\": {}, "
          "\"poseidon2_lane_instructions_per_clock_per_sm\": {}",
          json_number(at64), json_number(at128), json_number(used));
    }
  }
  if (all) {  // copy bandwidth on 256 Mi words (1 GiB)
    const uint64_t n = uint64_t(1) << (log_states + 6);
    Graph g;
    auto a = g.transient<uint32_t>("a", n);
    auto b = g.output<uint32_t>("b", n);
    g.dispatch<FillU32>("fill", {.out = a, .value = 1});
    {
      auto span = g.span("work");
      for (uint32_t r = 0; r < reps; ++r) g.dispatch<CopyU32>("copy", {.src = a, .dst = b});
    }
    double ms = time_span(
        *exec, g, [](PreparedPlan&) {}, "copy_u32", traces);
    double bw = reps * 2.0 * 4 * n / (ms * 1e-3);
    fmt::print("  copy_u32: {} MiB x {}: {:.3f} ms -> {:.3f} TB/s (read + write)\n", 4 * n >> 20, reps, ms, bw / 1e12);
    json += fmt::format(", \"copy_bytes_per_s\": {}", json_number(bw));
  }
  if (all) {  // BabyBear multiplications
    const uint64_t n = uint64_t(1) << (log_states + 4);
    Graph g;
    auto a = g.input<Fp>("a", n);
    auto c = g.output<Fp>("c", n);
    {
      auto span = g.span("work");
      for (uint32_t r = 0; r < reps; ++r) g.dispatch<FpMul>("mul", {.a = a, .b = a, .out = c});
    }
    double ms = time_span(
        *exec, g, [&](PreparedPlan& p) { p.upload(a, std::vector<Fp>(n, Fp::from_canonical(3))); }, "fp_mul", traces);
    double rate = reps * n / (ms * 1e-3);
    fmt::print("  fp_mul (memory-bound, 12 B per mul): 2^{} x {}: {:.3f} ms -> {:.1f} G mul/s\n", log_states + 4, reps,
               ms, rate / 1e9);
    json += fmt::format(", \"fp_mul_per_s\": {}", json_number(rate));
  }
  if (all || only == "ntt") {  // NTT of the keccakf codeword shape: 42 columns, 2^21 -> 2^22
    // The default (six passes of up to 4 stages in registers, 16-byte accesses: NttStageVecFp), then
    // with 4-byte accesses: passes of up to 8 stages in shared memory (8 7 7, NttStageSharedFp) and
    // six in registers (NttStageFp).
    const uint32_t log_n = 22, batch = 42;
    prepare_ntt_twiddles(*exec, log_n);
    std::string by_variant;
    for (const NttOptions ntt_options :
         {NttOptions{}, NttOptions{.vector_access = false}, NttOptions{.max_log_radix = 4, .vector_access = false}}) {
      const bool shared = ntt_options.max_log_radix > kNttMaxLogRadix && !ntt_options.vector_access;
      const std::string variant = ntt_options.vector_access ? "registers_16byte"
                                  : shared                  ? "shared_4byte"
                                                            : "registers_4byte";
      Graph g;
      Ntt ntt(g, log_n, ntt_options);
      auto src = g.input<Fp>("src", uint64_t(batch) << (log_n - 1));
      auto dst = g.output<Fp>("dst", uint64_t(batch) << log_n);
      {
        auto span = g.span("work");
        ntt.forward(src, log_n - 1, uint64_t(1) << (log_n - 1), dst, log_n, uint64_t(1) << log_n, batch);
      }
      double ms = time_span(
          *exec, g, [&](PreparedPlan& p) { p.upload(src, std::vector<Fp>(src.count(), Fp::from_canonical(5))); },
          "ntt_forward_" + variant, traces);
      fmt::print("  ntt forward 42 x (2^21 zero-padded to 2^22), {}: {:.3f} ms\n",
                 ntt_options.vector_access ? "passes of up to 4 stages in registers, 16-byte accesses (default)"
                 : shared                  ? "passes of up to 8 stages in shared memory, 4-byte accesses"
                                           : "passes of up to 4 stages in registers, 4-byte accesses",
                 ms);
      if (by_variant.empty()) json += fmt::format(", \"ntt_42x2e22_ms\": {}", json_number(ms));
      by_variant += fmt::format("{}\"{}\": {}", by_variant.empty() ? "" : ", ", variant, json_number(ms));
    }
    json += fmt::format(", \"ntt_42x2e22_ms_by_variant\": {{{}}}", by_variant);
    // The RS message before it (chunks of 16, in place): columns in whole runs of four (16-byte
    // copies, NttRsMessageVec) and the same columns one entry off (4-byte copies, NttRsMessage).
    for (const uint64_t offset : {0u, 1u}) {
      const uint64_t len = uint64_t(1) << (log_n - 1);
      Graph g;
      auto data = g.output<Fp>("data", batch * len + 4);
      g.dispatch<FillU32>("fill", {.out = data.all().bitcast<uint32_t>(), .value = 5});
      {
        auto span = g.span("work");
        add_rs_message(g, data.slice(offset, batch * len), 4, len, len, batch);
      }
      const double ms = time_span(
          *exec, g, [](PreparedPlan&) {}, offset == 0 ? "rs_message_16byte" : "rs_message_4byte", traces);
      fmt::print("  rs message 42 x 2^21, chunks of 16, {}-byte copies: {:.3f} ms\n", offset == 0 ? 16 : 4, ms);
      json += fmt::format(", \"rs_message_42x2e21_{}byte_ms\": {}", offset == 0 ? 16 : 4, json_number(ms));
    }
  }
  if (all || only == "transcript") json += transcript_latency(*exec, transcript_perms, transcript_chain, traces);
  if (all || only == "latency") json += permutation_latency(*exec, 4096, traces);
  json += "}";
  bench::write_result(result_file, "kernel_bench", std::string(exec->name()), exec->device_name(), json);
  fmt::print("results: {}\n", result_file);
  if (!trace_file.empty()) {
    write_chrome_trace_file(traces, trace_file);
    fmt::print("trace of the last run of each plan: {}\n", trace_file);
  }
  return 0;
} catch (const std::exception& e) {
  fmt::print(stderr, "kernel_bench: {}\n", e.what());
  return 1;
}
