// Trace parts committed once (StarkProver::commit_cached, and every preprocessed trace once per
// prover): proofs that use them have the bytes of proofs that commit the same values themselves, on
// every executor, and their traces hold no commitment of those parts (no stacked_commit, no
// rs_code_matrix, no merkle_tree for them: the common main's only); misuse is an InputError naming
// the AIR.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "executors/executors.hpp"
#include "product/airs/test_airs.hpp"
#include "stages/proof/proof.hpp"
#include "stages/prover.hpp"
#include "stages/verifier.hpp"
#include "tests/parity/executor_fixture.hpp"

using namespace vkstark;
using namespace vkstark::testing;

namespace {

size_t spans_named(const Trace& t, const std::string& name) {
  return size_t(std::count_if(t.spans.begin(), t.spans.end(), [&](const TraceSpan& s) { return s.name == name; }));
}

std::vector<std::optional<AirWithTraces>> optional_airs(const std::vector<AirWithTraces>& airs) {
  return {airs.begin(), airs.end()};
}

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no InputError)";
}

class CommittedParts : public ExecutorTest {};
VKSTARK_INSTANTIATE_FOR_EXECUTORS(CommittedParts);

TEST_P(CommittedParts, ProveTwiceWithoutCommittingAgainAndTheBytesOfAProofThatCommits) {
  const std::vector<AirWithTraces> airs = preprocessed_and_cached_fixture({true, false, true, true}, 2);
  const std::vector<std::shared_ptr<const Air>> list{airs[0].air};
  const ProvingKey pk = keygen(list, test_system_params_small(2, 8, 3), exec());

  // Values in every proof: the common main and both cached parts are committed by the proof; the
  // preprocessed trace only once, by the prover.
  StarkProver by_values(pk, exec());
  Trace values_trace;
  const Proof reference = by_values.prove(optional_airs(airs), &values_trace);
  ASSERT_TRUE(verify(pk.vk, reference).ok);
  EXPECT_EQ(spans_named(values_trace, "stacked_commit"), 3u);
  EXPECT_EQ(spans_named(values_trace, "rs_code_matrix"), 3u);
  EXPECT_EQ(spans_named(values_trace, "merkle_tree"), 3u);

  // Both cached parts committed once; then two proofs from one preparation and a third prove().
  StarkProver prover(pk, exec());
  AirWithTraces committed = airs[0];
  std::vector<std::shared_ptr<const CommittedTrace>> handles;
  for (uint32_t i = 0; i < 2; ++i) {
    handles.push_back(prover.commit_cached(0, i, airs[0].cached[i]));
    committed.use_committed(i, handles.back());
  }
  EXPECT_TRUE(committed.cached[0].values.empty());
  const std::vector<std::optional<AirWithTraces>> input{committed};
  const auto prepared = prover.prepare(input);
  for (int run = 0; run < 3; ++run) {
    Trace proof_trace;
    const Proof proof = run < 2 ? prepared->run(input, &proof_trace) : prover.prove(input, &proof_trace);
    EXPECT_EQ(encode(proof), encode(reference)) << "run " << run;
    ASSERT_TRUE(proof.trace_vdata[0].has_value());
    ASSERT_EQ(proof.trace_vdata[0]->cached_commitments.size(), 2u);
    for (uint32_t i = 0; i < 2; ++i) EXPECT_EQ(proof.trace_vdata[0]->cached_commitments[i], handles[i]->root);
    // The common main's commitment only.
    EXPECT_EQ(spans_named(proof_trace, "stacked_commit"), 1u) << "run " << run;
    EXPECT_EQ(spans_named(proof_trace, "rs_code_matrix"), 1u) << "run " << run;
    EXPECT_EQ(spans_named(proof_trace, "merkle_tree"), 1u) << "run " << run;
    EXPECT_TRUE(verify(pk.vk, proof).ok);
  }

  // The debug checker reads the committed values.
  StarkProver checked(pk, exec(), {.debug_check = true});
  AirWithTraces checked_input = airs[0];
  for (uint32_t i = 0; i < 2; ++i) checked_input.use_committed(i, checked.commit_cached(0, i, airs[0].cached[i]));
  EXPECT_EQ(encode(checked.prove({checked_input})), encode(reference));
}

TEST_P(CommittedParts, MisuseIsAnInputErrorNamingTheAir) {
  const std::vector<AirWithTraces> airs = preprocessed_and_cached_fixture({true, false, true, true}, 2);
  const std::vector<std::shared_ptr<const Air>> list{airs[0].air};
  const ProvingKey pk = keygen(list, test_system_params_small(2, 8, 3), exec());
  StarkProver prover(pk, exec());

  EXPECT_NE(message_of([&] {
              (void)prover.commit_cached(0, 2, airs[0].cached[0]);
            }).find("AIR preprocessed_cached: commit_cached of cached part 2, the AIR has 2 cached parts"),
            std::string::npos);
  EXPECT_NE(message_of([&] {
              (void)prover.commit_cached(0, 0, TraceMatrix(2, 4));
            }).find("AIR preprocessed_cached: cached part 0 of 2 x 4 values"),
            std::string::npos);

  const std::shared_ptr<const CommittedTrace> part0 = prover.commit_cached(0, 0, airs[0].cached[0]);
  AirWithTraces wrong = airs[0];
  EXPECT_NE(
      message_of([&] {
        wrong.use_committed(1, part0);
      }).find("AIR preprocessed_cached: cached part 1 given a trace committed for AIR preprocessed_cached part 0"),
      std::string::npos);

  // Prepared with values, run with the committed part (and the other way round).
  AirWithTraces with_committed = airs[0];
  with_committed.use_committed(0, part0);
  const auto by_values = prover.prepare(optional_airs(airs));
  const std::string switched = message_of([&] { (void)by_values->run({with_committed}); });
  EXPECT_NE(switched.find("AIR preprocessed_cached trace part 1 is the committed trace"), std::string::npos)
      << switched;
  EXPECT_NE(switched.find("prepare the proof again"), std::string::npos) << switched;

  // A part committed by another prover's executor is refused where the executors differ.
  if (GetParam() != "cpu") {
    StarkProver on_cpu(pk, executor("cpu"));
    AirWithTraces foreign = airs[0];
    foreign.use_committed(0, on_cpu.commit_cached(0, 0, airs[0].cached[0]));
    EXPECT_NE(message_of([&] {
                (void)prover.prove({foreign});
              }).find("AIR preprocessed_cached: cached part 0 was committed on another executor"),
              std::string::npos);
  }

  // Values and a committed trace for one part.
  AirWithTraces both = with_committed;
  both.cached[0] = airs[0].cached[0];
  EXPECT_NE(message_of([&] {
              both.validate();
            }).find("AIR preprocessed_cached: cached main trace 0 is given both as values and as a committed trace"),
            std::string::npos);
}

}  // namespace
