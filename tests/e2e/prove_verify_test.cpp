// Whole proofs (protocol.md 7, 12, 13) of the test AIRs of 15.2, made by the prover
// (stages/prover.hpp: one graph, one run), through the top-level verifier (stages/verifier.hpp):
//   * every fixture's proof verifies, on both executors, with the same bytes on both; the codec
//     round-trips it with and without the vk;
//   * the proof is byte for byte the one the hybrid harness makes (tests/support/hybrid_prover.hpp:
//     the device phases around the naive host model of the batch constraint sumcheck, which checks
//     the sumcheck invariants of 16.3 itself), so every round of the device batch sumcheck equals
//     the model's; the run has at most 2 host syncs and no host task;
//   * optional AIRs absent or present, heights below 2^l_skip, public values, interactions across
//     AIRs, preprocessed and cached parts;
//   * invalid witnesses are rejected: a violated constraint, unbalanced interactions, a wrong
//     public value, each by the check that must catch it (its rejection code);
//   * a proof not of the verifying key's shape is rejected by the shape check it breaks;
//   * hostile bytes: 1000 random single-byte changes of a valid encoding, every truncation, an
//     extension: all rejected with a reason and a code (the decoder's for bytes it rejects), none
//     accepted, no exception; a changed proof field is rejected by its phase or a later one.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <functional>
#include <iterator>
#include <random>

#include "executors/executors.hpp"
#include "kernels/basic.hpp"
#include "kernels/hash/transcript.hpp"
#include "product/airs/fibonacci.hpp"
#include "product/airs/test_airs.hpp"
#include "stages/encoding/codec.hpp"
#include "stages/preamble/prover.hpp"
#include "stages/prover.hpp"
#include "stages/verifier.hpp"
#include "tests/parity/executor_fixture.hpp"
#include "tests/support/hybrid_prover.hpp"

using namespace vkstark;
using namespace vkstark::testing;

namespace {

Fp fp(uint64_t v) { return Fp::reduce(v); }

struct Fixture {
  std::string name;
  std::function<std::vector<AirWithTraces>()> airs;
  SystemParams params;
};

std::vector<Fixture> fixtures() {
  const uint32_t widths[] = {2, 5};
  return {
      {"fib", [] { return fib_fixture(fp(0), fp(1), 64); }, test_system_params_small(2, 8, 3)},
      // The reference's fib_air_roundtrip params: real grinding (LogUp 18 bits, WHIR 10 and 11).
      {"fib_roundtrip", [] { return fib_fixture(fp(0), fp(1), 64); }, fib_air_roundtrip_params(2)},
      {"interactions_l4", [] { return interactions_fixture_11(); }, test_system_params_small(4, 6, 3)},
      {"cached", [] { return cached_fixture_11(); }, test_system_params_small(2, 8, 3)},
      {"preprocessed",
       [] {
         return preprocessed_fib_fixture(fp(7), fp(3), {true, false, true, true, false, true, true, true});
       },
       test_system_params_small(2, 8, 3)},
      {"preprocessed_cached",
       [] {
         return preprocessed_and_cached_fixture({true, false, true, true}, 2);
       },
       test_system_params_small(2, 8, 3)},
      {"self_interaction", [widths] { return self_interaction_fixture(widths, 3, 5); },
       test_system_params_small(2, 8, 3)},
      {"mixture", [] { return mixture_fixture_standard(3); }, test_system_params_small(2, 8, 3)},
  };
}

struct Proved {
  ProvingKey pk;
  std::vector<std::optional<AirWithTraces>> airs;
  Proof proof;
  std::vector<uint8_t> bytes;
};

Proved prove(Executor& exec, std::vector<AirWithTraces> airs, const SystemParams& params,
             const std::vector<bool>& absent = {}) {
  Proved p;
  std::vector<std::shared_ptr<const Air>> list;
  for (const AirWithTraces& a : airs) list.push_back(a.air);
  p.pk = keygen(list, params, exec);
  for (size_t i = 0; i < airs.size(); ++i)
    p.airs.push_back(i < absent.size() && absent[i] ? std::nullopt : std::optional<AirWithTraces>(airs[i]));
  StarkProver prover(p.pk, exec);
  p.proof = prover.prove(p.airs);
  p.bytes = encode(p.proof);
  return p;
}

// Every field of a proof's parts, from their field lists (stages/encoding/fields.hpp): its name and
// its first base-field word, to change.
class FieldCollector {
 public:
  std::vector<std::pair<std::string, Fp*>> fields;
  template <class T>
  void value(const FieldName& name, T& x) {
    add(name, &x);
  }
  template <class F>
  uint64_t count(const FieldName&, F actual, std::optional<uint64_t>, uint64_t) {
    return actual();
  }
  template <class T>
  void list(const FieldName& whole, const FieldName&, std::vector<T>& xs, uint64_t) {
    if (!xs.empty()) add(whole, &xs[0]);
  }
  template <class T>
  void table(const FieldName& whole, const FieldName&, std::vector<std::vector<T>>& xs, uint64_t, uint64_t) {
    if (!xs.empty() && !xs.back().empty()) add(whole, &xs.back().back());  // the last row's last value
  }
  template <class T>
  void outer(const FieldName&, std::vector<T>&, uint64_t) {}
  void require(bool, const FieldName&, const std::string&) {}

 private:
  template <class T>
  void add(const FieldName& name, T* x) {
    fields.push_back({name.str(), reinterpret_cast<Fp*>(x)});
  }
};

class ProveVerify : public ExecutorTest {};
VKSTARK_INSTANTIATE_FOR_EXECUTORS(ProveVerify);

// The Vulkan executor's discrete-GPU memory path (staging copies; the openings' sponge a host task
// inside the submission reading and writing them) gives the CPU executor's bytes.
TEST(ProveVerifyStaging, EveryFixtureHasTheCpuBytes) {
  for (const Fixture& f : fixtures()) {
    const Proved p = prove(executor("vulkan-staging"), f.airs(), f.params);
    const Proved q = prove(executor("cpu"), f.airs(), f.params);
    EXPECT_EQ(p.bytes, q.bytes) << f.name << ": proof bytes differ from the CPU executor's";
  }
}

TEST_P(ProveVerify, EveryFixtureVerifiesWithTheSameBytesOnEveryExecutor) {
  for (const Fixture& f : fixtures()) {
    const Proved p = prove(exec(), f.airs(), f.params);
    const VerifyResult v = verify(p.pk.vk, p.proof);
    EXPECT_TRUE(v.ok) << f.name << ": " << v.reason;
    EXPECT_TRUE(verify_bytes(p.pk.vk, p.bytes).ok) << f.name;
    EXPECT_EQ(decode_proof(p.bytes), p.proof) << f.name;
    EXPECT_EQ(decode_proof(p.bytes, p.pk.vk), p.proof) << f.name;
    if (GetParam() != "cpu") {
      const Proved q = prove(executor("cpu"), f.airs(), f.params);
      EXPECT_EQ(p.bytes, q.bytes) << f.name << ": proof bytes differ from the CPU executor's";
    }
    std::printf("%s: %zu bytes\n", f.name.c_str(), p.bytes.size());
  }
}

// Several proofs in flight on one executor (StarkProver::Prepared::start, then finish in another
// order), two of them of one key with different traces: each proof's bytes are those of proving
// it alone; a second start() before finish(), or a finish() without start(), is a GraphError.
TEST_P(ProveVerify, ProofsInFlightTogetherHaveTheBytesOfSerialProving) {
  struct Job {
    std::string name;
    std::vector<AirWithTraces> airs;
    SystemParams params;
  };
  std::vector<Job> jobs;
  for (const Fixture& f : fixtures())
    if (f.name == "fib" || f.name == "interactions_l4" || f.name == "mixture")
      jobs.push_back({f.name, f.airs(), f.params});
  jobs.push_back({"fib_other_start", fib_fixture(fp(5), fp(8), 64), test_system_params_small(2, 8, 3)});
  std::vector<ProvingKey> keys;
  std::vector<std::vector<std::optional<AirWithTraces>>> inputs;
  std::vector<std::vector<uint8_t>> serial;
  for (const Job& j : jobs) {
    const Proved p = prove(exec(), j.airs, j.params);
    keys.push_back(p.pk);
    inputs.push_back(p.airs);
    serial.push_back(p.bytes);
  }
  std::vector<std::unique_ptr<StarkProver>> provers;
  std::vector<std::unique_ptr<StarkProver::Prepared>> prepared;
  for (size_t i = 0; i < jobs.size(); ++i) {
    provers.push_back(std::make_unique<StarkProver>(keys[i], exec()));
    prepared.push_back(provers[i]->prepare(inputs[i]));
  }
  EXPECT_THROW((void)prepared[0]->finish(), GraphError);
  std::vector<Trace> traces(jobs.size());
  for (size_t i = 0; i < jobs.size(); ++i) prepared[i]->start(inputs[i], &traces[i]);
  EXPECT_THROW(prepared[0]->start(inputs[0]), GraphError);
  for (size_t k = jobs.size(); k-- > 0;) {
    const Proof proof = prepared[k]->finish();
    EXPECT_EQ(encode(proof), serial[k]) << jobs[k].name;
    EXPECT_TRUE(verify(keys[k].vk, proof).ok) << jobs[k].name;
    EXPECT_EQ(traces[k].counters.host_syncs, 1u) << jobs[k].name;
  }
  // A prepared proof runs again after finish().
  EXPECT_EQ(encode(prepared[0]->run(inputs[0])), serial[0]);
}

TEST_P(ProveVerify, ProofsAreTheHybridModelsBytesInOneRunOfAtMostTwoHostSyncs) {
  for (const Fixture& f : fixtures()) {
    const std::vector<AirWithTraces> list = f.airs();
    std::vector<std::shared_ptr<const Air>> airs_only;
    for (const AirWithTraces& a : list) airs_only.push_back(a.air);
    const ProvingKey pk = keygen(airs_only, f.params, exec());
    std::vector<std::optional<AirWithTraces>> airs(list.begin(), list.end());
    const Proof model = hybrid_prove(pk, airs, exec());
    // The openings' sponge on the device, and on the host inside the one submission.
    for (OpeningsSponge sponge : {OpeningsSponge::Device, OpeningsSponge::Host}) {
      StarkProver prover(pk, exec(), {.openings_sponge = sponge});
      Trace run;
      const Proof device = prover.prove(airs, &run);
      EXPECT_EQ(device.batch_constraint_proof, model.batch_constraint_proof) << f.name << " " << to_string(sponge);
      EXPECT_EQ(encode(device), encode(model)) << f.name << " " << to_string(sponge);
      const TraceCounters& totals = run.counters;
      EXPECT_LE(totals.host_syncs, 2u) << f.name;
      // On the host: the column openings, and WHIR's final polynomial where it is long.
      if (sponge == OpeningsSponge::Host)
        EXPECT_GE(totals.host_tasks, 1u) << f.name;
      else
        EXPECT_EQ(totals.host_tasks, 0u) << f.name;
      std::printf("%s, sponge on the %s: %llu dispatches, %llu barriers, %llu submissions, %llu host syncs\n",
                  f.name.c_str(), std::string(to_string(sponge)).c_str(), (unsigned long long)totals.dispatches,
                  (unsigned long long)totals.barriers, (unsigned long long)totals.submissions,
                  (unsigned long long)totals.host_syncs);
    }
  }
}

// The device preamble (stages/preamble/prover.hpp) against protocol.md 7 steps 1-3 on the host: an absent
// optional AIR, a preprocessed one, cached parts and public values.
TEST_P(ProveVerify, PreambleObservesWhatProtocolSection7Lists) {
  const auto airs = mixture_fixture_standard(3);
  std::vector<std::shared_ptr<const Air>> list;
  for (const AirWithTraces& a : airs) list.push_back(a.air);
  const ProvingKey pk = keygen(list, test_system_params_small(2, 8, 3), exec());
  const MultiStarkVerifyingKey& vk = pk.vk;
  Graph g;
  DeviceTranscript t(g, "t");
  std::vector<Digest> roots;  // common root, then one per cached part / preprocessed trace
  std::mt19937_64 rng(3);
  auto digest = [&] {
    Digest d;
    for (Fp& x : d) x = Fp::reduce(rng());
    return d;
  };
  roots.push_back(digest());
  std::vector<PreambleAir> pre(airs.size());
  std::vector<std::pair<size_t, size_t>> root_of;  // (AIR, part) of roots[1..]
  for (size_t a = 0; a < airs.size(); ++a) {
    if (a == 4) continue;  // absent
    pre[a].present = true;
    pre[a].log_height = uint32_t(std::countr_zero(airs[a].common.height));
  }
  auto all_roots = g.input<Digest>("roots", 64);
  size_t next = 1;
  for (size_t a = 0; a < airs.size(); ++a) {
    if (!pre[a].present) continue;
    if (vk.per_air[a].preprocessed_data) {
      roots.push_back(vk.per_air[a].preprocessed_data->commit);
      pre[a].preprocessed_root = all_roots.slice(next++, 1);
    }
    for (size_t i = 0; i < vk.per_air[a].params.width.cached_mains.size(); ++i) {
      roots.push_back(digest());
      pre[a].cached_roots.push_back(all_roots.slice(next++, 1));
    }
  }
  std::vector<Buffer<Fp>> pvs(airs.size());
  for (size_t a = 0; a < airs.size(); ++a)
    if (pre[a].present && !airs[a].public_values.empty()) {
      pvs[a] = g.input<Fp>(fmt::format("pvs{}", a), airs[a].public_values.size());
      pre[a].public_values = pvs[a].all();
    }
  observe_preamble(g, t, vk, all_roots.slice(0, 1), pre);
  auto state = g.output<SpongeState>("state", 1);
  g.dispatch<CopyU32>("state", {.src = t.state().all().bitcast<uint32_t>(), .dst = state.all().bitcast<uint32_t>()});
  roots.resize(64);
  auto plan = run(g, [&](PreparedPlan& pp) {
    pp.upload(all_roots, roots);
    for (size_t a = 0; a < airs.size(); ++a)
      if (pvs[a].valid()) pp.upload(pvs[a], airs[a].public_values);
  });
  // The host: protocol.md 7 steps 1-3.
  DuplexSponge h;
  h.observe_commit(vk.pre_hash);
  h.observe_commit(roots[0]);
  next = 1;
  for (size_t a = 0; a < airs.size(); ++a) {
    if (!vk.per_air[a].is_required) h.observe(pre[a].present ? Fp::one() : Fp());
    if (!pre[a].present) continue;
    if (vk.per_air[a].preprocessed_data)
      h.observe_commit(roots[next++]);
    else
      h.observe(Fp::from_canonical_unchecked(pre[a].log_height));
    for (size_t i = 0; i < vk.per_air[a].params.width.cached_mains.size(); ++i) h.observe_commit(roots[next++]);
    for (Fp v : airs[a].public_values) h.observe(v);
  }
  const SpongeState got = plan->download(state)[0];
  EXPECT_TRUE(DuplexSponge::from_state(got.state, got.absorb_idx, got.sample_idx) == h);
}

TEST_P(ProveVerify, OptionalAirsAbsentOrPresent) {
  // Fibonacci AIRs of three heights; the middle one absent, then the first.
  std::vector<AirWithTraces> airs;
  for (uint32_t h : {16u, 64u, 8u}) airs.push_back(fib_fixture(fp(1), fp(h), h)[0]);
  for (const std::vector<bool>& absent :
       {std::vector<bool>{false, true, false}, std::vector<bool>{true, false, false}}) {
    const Proved p = prove(exec(), airs, test_system_params_small(2, 8, 3), absent);
    const VerifyResult v = verify(p.pk.vk, p.proof);
    EXPECT_TRUE(v.ok) << v.reason;
    EXPECT_FALSE(p.proof.trace_vdata[absent[0] ? 0 : 1].has_value());
  }
}

TEST_P(ProveVerify, InvalidWitnessesAreRejected) {
  const SystemParams params = test_system_params_small(2, 8, 3);
  {  // a violated constraint
    auto airs = fib_fixture(fp(0), fp(1), 64);
    airs[0].common.at(20, 1) += Fp::one();
    const Proved p = prove(exec(), airs, params);
    const VerifyResult v = verify(p.pk.vk, p.proof);
    EXPECT_FALSE(v.ok);
    EXPECT_FALSE(v.reason.empty());
    // The constraint polynomial's sum over D is not zero.
    EXPECT_EQ(v.code, RejectCode(BatchConstraintReject::Round0SumMismatch)) << v.reason;
  }
  {  // a wrong public value
    auto airs = fib_fixture(fp(0), fp(1), 64);
    airs[0].public_values[2] += Fp::one();
    const Proved p = prove(exec(), airs, params);
    const VerifyResult v = verify(p.pk.vk, p.proof);
    EXPECT_FALSE(v.ok);
    EXPECT_EQ(v.code, RejectCode(BatchConstraintReject::Round0SumMismatch)) << v.reason;
  }
  {  // unbalanced interactions: a sent field changed
    auto airs = interactions_fixture_11();
    airs[0].common.at(1, 1) += Fp::one();
    const Proved p = prove(exec(), airs, params);
    const VerifyResult v = verify(p.pk.vk, p.proof);
    EXPECT_FALSE(v.ok);
    EXPECT_NE(v.reason.find("GKR"), std::string::npos) << v.reason;
    EXPECT_EQ(v.code, RejectCode(GkrReject::RootNumeratorNotZero)) << v.reason;
  }
}

TEST_P(ProveVerify, EveryProofFieldChangedIsRejected) {
  if (GetParam() != "cpu") GTEST_SKIP() << "the verifier is host code; one executor's proof is enough";
  const std::vector<Fixture> all = fixtures();
  for (const char* name : {"mixture", "preprocessed_cached"}) {
    const Fixture f = *std::find_if(all.begin(), all.end(), [&](const Fixture& x) { return x.name == name; });
    const Proved p = prove(exec(), f.airs(), f.params);
    Proof bad = p.proof;
    // Each field with the first phase that reads it: a change is caught there or in a later phase
    // (a value the transcript observes moves every later challenge), never before.
    FieldCollector c;
    std::vector<size_t> first_phase;  // index into kPhases, one per field
    auto part = [&](size_t phase, auto&& collect) {
      collect();
      first_phase.resize(c.fields.size(), phase);
    };
    static constexpr RejectPhase kPhases[] = {RejectPhase::Gkr, RejectPhase::BatchConstraint,
                                              RejectPhase::StackedReduction, RejectPhase::Whir};
    part(0, [&] { gkr_fields(c, bad.gkr_proof, nullptr); });
    part(1, [&] { batch_constraint_fields(c, bad.batch_constraint_proof, nullptr); });
    part(2, [&] { stacking_fields(c, bad.stacking_proof, nullptr); });
    part(3, [&] { whir_fields(c, bad.whir_proof, nullptr); });
    part(0, [&] {  // the preamble: observed before LogUp's grinding
      c.fields.push_back({"common_main_commit", &bad.common_main_commit[0]});
      for (auto& pvs : bad.public_values)
        if (!pvs.empty()) c.fields.push_back({"public value", &pvs[0]});
    });
    ASSERT_GT(c.fields.size(), 30u);
    for (size_t i = 0; i < c.fields.size(); ++i) {
      const auto& [field, x] = c.fields[i];
      const Fp keep = *x;
      *x += Fp::one();
      const VerifyResult v = verify(p.pk.vk, bad);
      EXPECT_FALSE(v.ok) << name << ": " << field << " changed and accepted";
      EXPECT_FALSE(v.reason.empty()) << field;
      const auto* phase = std::find(std::begin(kPhases), std::end(kPhases), v.code.phase);
      EXPECT_TRUE(phase != std::end(kPhases) && size_t(phase - kPhases) >= first_phase[i])
          << name << ": " << field << " changed: " << v.code << " (" << v.reason << "), expected "
          << to_string(kPhases[first_phase[i]]) << " or a later phase";
      *x = keep;
    }
    // A trace height changed: the shape, the transcript and the commitment disagree. The proof's
    // shape check sees a height that changes a count; the preamble observes every height, so
    // otherwise the first check after it fails (LogUp's proof of work for mixture's first trace).
    for (auto& d : bad.trace_vdata)
      if (d && d->log_height > 0) {
        --d->log_height;
        const VerifyResult v = verify(p.pk.vk, bad);
        EXPECT_FALSE(v.ok) << name << ": a height changed and accepted";
        EXPECT_TRUE(v.in(RejectPhase::Proof) || v.in(RejectPhase::Gkr)) << name << ": " << v.code << ": " << v.reason;
        ++d->log_height;
      }
    EXPECT_TRUE(verify(p.pk.vk, bad).ok) << "the proof restored";
  }
}

// The proof against the verifying key before any transcript (protocol.md 13 steps 2-6): each
// mismatch is rejected by its own check, with its code.
TEST_P(ProveVerify, AProofNotOfTheKeysShapeIsRejectedByItsShapeCheck) {
  if (GetParam() != "cpu") GTEST_SKIP() << "the verifier is host code; one executor's proof is enough";
  const SystemParams params = test_system_params_small(2, 8, 3);
  const Proved p = prove(exec(), mixture_fixture_standard(3), params);
  ASSERT_TRUE(verify(p.pk.vk, p.proof).ok);
  auto expect = [&](ProofReject code, const std::string& what, const std::function<void(Proof&)>& change,
                    const std::function<void(MultiStarkVerifyingKey&)>& change_key = nullptr) {
    Proof bad = p.proof;
    MultiStarkVerifyingKey vk = p.pk.vk;
    change(bad);
    if (change_key) change_key(vk);
    const VerifyResult v = verify(vk, bad);
    EXPECT_FALSE(v.ok) << what;
    EXPECT_EQ(v.code, RejectCode(code)) << what << ": " << v.reason;
  };
  const auto with_pvs = std::find_if(p.proof.public_values.begin(), p.proof.public_values.end(),
                                     [](const std::vector<Fp>& pvs) { return !pvs.empty(); });
  ASSERT_NE(with_pvs, p.proof.public_values.end()) << "an AIR of the mixture has public values";
  const size_t a = size_t(with_pvs - p.proof.public_values.begin());
  expect(ProofReject::AirCount, "an AIR's entry missing", [](Proof& q) { q.trace_vdata.pop_back(); });
  expect(
      ProofReject::RequiredAirAbsent, "a required AIR absent",
      [](Proof& q) {
        q.trace_vdata[0].reset();
        q.public_values[0].clear();
      },
      [](MultiStarkVerifyingKey& k) { k.per_air[0].is_required = true; });
  expect(ProofReject::AbsentAirPublicValues, "an absent AIR with public values",
         [&](Proof& q) { q.trace_vdata[a].reset(); });
  expect(ProofReject::CachedCommitmentCount, "a cached commitment too many",
         [](Proof& q) { q.trace_vdata[0]->cached_commitments.emplace_back(); });
  expect(ProofReject::PublicValueCount, "a public value too many",
         [&](Proof& q) { q.public_values[a].push_back(Fp::one()); });
  expect(ProofReject::TraceTooHigh, "a trace above the stacked height",
         [&](Proof& q) { q.trace_vdata[0]->log_height = params.log_stacked_height() + 1; });
  expect(
      ProofReject::ShapeUnsupported, "more stacked columns than w_stack", [](Proof&) {},
      [](MultiStarkVerifyingKey& k) { k.params.w_stack = 1; });
  expect(ProofReject::NoTrace, "no AIR present", [](Proof& q) {
    for (auto& d : q.trace_vdata) d.reset();
    for (auto& pvs : q.public_values) pvs.clear();
  });
  expect(ProofReject::PartShape, "a WHIR final coefficient too many",
         [](Proof& q) { q.whir_proof.final_poly.push_back(Fp4::one()); });
  expect(
      ProofReject::TraceHeightConstraint, "heights above a trace height constraint", [](Proof&) {},
      [](MultiStarkVerifyingKey& k) {
        k.trace_height_constraints.push_back({std::vector<uint32_t>(k.per_air.size(), 1), 1});
      });

  // A preprocessed AIR's trace height is its preprocessed trace's.
  const Proved pre = prove(exec(), preprocessed_and_cached_fixture({true, false, true, true}, 2), params);
  ASSERT_TRUE(pre.pk.vk.per_air[0].preprocessed_data.has_value());
  Proof bad = pre.proof;
  --bad.trace_vdata[0]->log_height;
  const VerifyResult v = verify(pre.pk.vk, bad);
  EXPECT_EQ(v.code, RejectCode(ProofReject::PreprocessedHeightMismatch)) << v.reason;
}

TEST_P(ProveVerify, HostileBytesAreRejectedWithoutACrash) {
  if (GetParam() != "cpu") GTEST_SKIP() << "the verifier is host code; one executor's proof is enough";
  const Proved p = prove(exec(), mixture_fixture_standard(3), test_system_params_small(2, 8, 3));
  ASSERT_TRUE(verify_bytes(p.pk.vk, p.bytes).ok);
  std::mt19937_64 rng(11);
  int decoded = 0;
  for (int i = 0; i < 1000; ++i) {
    std::vector<uint8_t> b = p.bytes;
    const size_t at = rng() % b.size();
    b[at] ^= uint8_t(1 + rng() % 255);
    const VerifyResult v = verify_bytes(p.pk.vk, b);
    EXPECT_FALSE(v.ok) << "byte " << at << " changed and accepted";
    EXPECT_FALSE(v.reason.empty());
    // The decoder's code for bytes it rejects; a verifier phase's for a proof it decodes.
    try {
      (void)decode_proof(b, p.pk.vk);
      ++decoded;
      EXPECT_FALSE(v.in(RejectPhase::Decode) || v.in(RejectPhase::None)) << "byte " << at << ": " << v.code;
    } catch (const DecodeError& e) {
      EXPECT_EQ(v.code, RejectCode(e.code())) << "byte " << at << ": " << v.reason;
    }
  }
  EXPECT_GT(decoded, 100) << "the changes reach the verifier's phases, not only the decoder";
  for (size_t n = 0; n < p.bytes.size(); n += 97) {
    const VerifyResult v = verify_bytes(p.pk.vk, std::span(p.bytes.data(), n));
    EXPECT_FALSE(v.ok) << "truncated to " << n;
    EXPECT_TRUE(v.is(DecodeReject::Truncated)) << "truncated to " << n << ": " << v.code << ": " << v.reason;
  }
  std::vector<uint8_t> longer = p.bytes;
  longer.push_back(0);
  EXPECT_TRUE(verify_bytes(p.pk.vk, longer).is(DecodeReject::TrailingBytes));
}

}  // namespace
