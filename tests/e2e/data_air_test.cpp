// AIRs given as data (stages/air/dag_air.hpp, product/proving_input.hpp): every shipped and test AIR
// round-trips, C++ AIR -> keygen -> vk file -> data-built AIR -> prove, with the C++ AIR's bytes:
//   * keygen of the AIRs built from the vk file's entries (with the input's preprocessed traces)
//     gives the vk file's bytes;
//   * the traces, written as a proving input (to_proving_input, encode) and read back (decode,
//     prover_job), prove to the bytes of the C++ AIRs' proof, which verifies, on every executor;
//   * the data-built AIRs evaluate with the same kernels: the prover plans the same dispatches.
// The fixtures: the shipped fibonacci, keccak (one permutation) and interactions (the example's
// two AIRs, a preprocessed table), the test AIRs of protocol.md 15.2 (each fixture, and the 12-AIR
// mixture with an AIR absent), and a small zkVM-shaped segment (preprocessed, cached, absent AIRs,
// nine buses). On a CPU implementation of Vulkan (lavapipe) keccak's round 0 runs on the
// interpreter (its generated kernels take minutes to compile there); the bytes do not depend on it.
#include <gtest/gtest.h>

#include <functional>

#include "product/airs/fibonacci.hpp"
#include "product/airs/interactions.hpp"
#include "product/airs/test_airs.hpp"
#include "product/airs/zkvm_segment.hpp"
#include "product/proving_input.hpp"
#include "stages/air/dag_air.hpp"
#include "stages/encoding/codec.hpp"
#include "stages/prover.hpp"
#include "stages/verifier.hpp"
#include "tests/parity/executor_fixture.hpp"

using namespace vkstark;
using namespace vkstark::testing;

namespace {

Fp fp(uint64_t v) { return Fp::reduce(v); }

struct Fixture {
  std::string name;
  std::function<std::vector<std::optional<AirWithTraces>>()> traces;  // one per AIR of the key
  SystemParams params;
  std::vector<std::shared_ptr<const Air>> airs{};  // the key's AIRs, when some traces are absent
};

std::vector<std::optional<AirWithTraces>> all_present(std::vector<AirWithTraces> v) { return {v.begin(), v.end()}; }

std::vector<Fixture> fixtures() {
  const SystemParams small = test_system_params_small(2, 8, 3);
  const uint32_t widths[] = {2, 5};
  std::vector<Fixture> f{
      {"fibonacci",
       [] {
         const FibonacciTrace t = fibonacci_trace(Fp(), Fp::one(), 64);
         return std::vector<std::optional<AirWithTraces>>{
             AirWithTraces(std::make_shared<FibonacciAir>(), t.main, t.public_values)};
       },
       small},
      {"keccak", [] { return all_present(keccak_fixture(1, 7)); }, small},
      {"interactions",
       [] {
         InteractionsTraces t = interactions_traces(std::make_shared<Decompose>(), std::make_shared<ByteTable>(), 64);
         return std::vector<std::optional<AirWithTraces>>{t.program, t.table};
       },
       small},
      {"fib_fixture", [] { return all_present(fib_fixture(fp(0), fp(1), 64)); }, small},
      {"interactions_l4", [] { return all_present(interactions_fixture_11()); }, test_system_params_small(4, 6, 3)},
      {"cached", [] { return all_present(cached_fixture_11()); }, small},
      {"preprocessed",
       [] {
         return all_present(preprocessed_fib_fixture(fp(7), fp(3), {true, false, true, true, false, true, true, true}));
       },
       small},
      {"preprocessed_cached",
       [] {
         return all_present(preprocessed_and_cached_fixture({true, false, true, true}, 2));
       },
       small},
      {"self_interaction", [widths] { return all_present(self_interaction_fixture(widths, 3, 5)); }, small},
  };
  // The mixture with its first Fibonacci AIR absent (it talks to no other AIR).
  const std::vector<AirWithTraces> mix = mixture_fixture_standard(3);
  Fixture m{"mixture_one_absent",
            [] {
              auto t = all_present(mixture_fixture_standard(3));
              t[0] = std::nullopt;
              return t;
            },
            small,
            {}};
  for (const AirWithTraces& a : mix) m.airs.push_back(a.air);
  f.push_back(std::move(m));
  ZkvmSegmentShape shape;
  shape.chips = 12;
  shape.max_log_height = 4;
  shape.max_width = 40;
  shape.absent_every = 5;
  const ZkvmSegment seg = zkvm_segment(shape);
  f.push_back({"zkvm_segment", [shape] { return zkvm_segment(shape).traces; }, small, seg.airs});
  return f;
}

std::vector<std::shared_ptr<const Air>> key_airs(const Fixture& f,
                                                 const std::vector<std::optional<AirWithTraces>>& traces) {
  if (!f.airs.empty()) return f.airs;
  std::vector<std::shared_ptr<const Air>> airs;
  for (const auto& t : traces) airs.push_back(t->air);
  return airs;
}

// Both provers of a fixture on the same round 0 kernels (Auto, a GPU's default, would start the
// first on the interpreter while its generated kernels compile and plan the second on them: other
// dispatches, the same bytes).
ProverOptions options_for(const std::string& fixture, const Executor& exec) {
  ProverOptions o;
  o.round0_kernels =
      fixture == "keccak" && exec.limits().slow_shader_compiler ? Round0Kernels::Interpreted : Round0Kernels::Generated;
  return o;
}

class DataAir : public ExecutorTest {};
VKSTARK_INSTANTIATE_FOR_EXECUTORS(DataAir);

TEST_P(DataAir, EveryShippedAndTestAirRoundTripsThroughItsVkFileWithTheCppAirsProofBytes) {
  for (const Fixture& f : fixtures()) {
    SCOPED_TRACE(f.name);
    const std::vector<std::optional<AirWithTraces>> traces = f.traces();
    const std::vector<std::shared_ptr<const Air>> airs = key_airs(f, traces);
    const ProvingKey pk = keygen(airs, f.params, exec());
    const std::vector<uint8_t> vk_file = encode_vk_file(pk.vk);
    StarkProver cpp_prover(pk, exec(), options_for(f.name, exec()));
    Trace cpp_run;
    const std::vector<uint8_t> cpp_proof = encode(cpp_prover.prove(traces, &cpp_run));

    // What `vkstark prove --vk --input` does: the key from its file, the traces from their input.
    const MultiStarkVerifyingKey vk = decode_vk_file(vk_file);
    const ProvingInput input = decode_proving_input(encode_proving_input(to_proving_input(airs, traces)));
    const DataJob job = prover_job(vk, input);
    const ProvingKey data_pk = keygen_from_vk(vk, job.airs, exec());
    EXPECT_EQ(encode_vk_file(data_pk.vk), vk_file) << "keygen of the data-built AIRs gives other vk bytes";
    for (size_t a = 0; a < airs.size(); ++a) {
      EXPECT_EQ(job.names[a], airs[a]->name());
      EXPECT_NE(job.airs[a]->given_key(), nullptr);
      EXPECT_EQ(data_pk.per_air[a].dag, pk.per_air[a].dag) << "AIR " << a;
    }
    StarkProver data_prover(data_pk, exec(), options_for(f.name, exec()));
    Trace data_run;
    const std::vector<uint8_t> data_proof = encode(data_prover.prove(job.traces, &data_run));
    EXPECT_EQ(data_proof, cpp_proof) << "the data-built AIRs' proof differs from the C++ AIRs'";
    const VerifyResult v = verify_bytes(vk, data_proof);
    EXPECT_TRUE(v.ok) << v.reason;
    EXPECT_EQ(data_run.counters.dispatches, cpp_run.counters.dispatches);
    EXPECT_EQ(data_run.counters.submissions, cpp_run.counters.submissions);
    std::printf("%s: %zu AIRs, vk %zu bytes, proof %zu bytes, %llu dispatches\n", f.name.c_str(), airs.size(),
                vk_file.size(), data_proof.size(), (unsigned long long)data_run.counters.dispatches);
  }
}

}  // namespace
