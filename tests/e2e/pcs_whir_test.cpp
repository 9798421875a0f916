// Commit + WHIR open + verify on each executor (protocol.md 6 and 11): accepted for one column, many
// columns, heights below 2^l_skip, mixed heights and several commitments; at most 2 host syncs per
// proof; identical proof bytes on the CPU executor and on Vulkan, and the bytes of one verify
// against the commitments and values of the other.
#include "tests/parity/executor_fixture.hpp"

#include <fmt/format.h>

#include "stages/opening/opening.hpp"

using namespace vkstark;
using namespace vkstark::testing;

namespace {
struct TraceData {
  uint32_t width, log_height;
  std::vector<Fp> values;  // column-major
};

// Commits `sets` (each a list of traces, sorted), opens, returns the proof and the trace.
struct ProofRun {
  PcsProof proof;
  std::vector<uint32_t> widths;
  Trace trace;
};

ProofRun prove(Executor& exec, const std::vector<std::vector<TraceData>>& sets, const SystemParams& params) {
  ProofRun r;
  const uint32_t log_n = params.log_stacked_height() + params.log_blowup;
  prepare_ntt_twiddles(exec, log_n);
  Graph g;
  Ntt ntt(g, log_n);
  std::vector<std::vector<TraceView>> views;
  std::vector<std::pair<Buffer<Fp>, const TraceData*>> inputs;
  for (size_t c = 0; c < sets.size(); ++c) {
    views.emplace_back();
    for (size_t i = 0; i < sets[c].size(); ++i) {
      const TraceData& d = sets[c][i];
      auto buf = g.input<Fp>(fmt::format("trace{}.{}", c, i), std::max<uint64_t>(d.values.size(), 1));
      inputs.push_back({buf, &d});
      views.back().push_back({buf.slice(0, d.values.size()), d.width, d.log_height});
    }
  }
  PcsProofGraph pg = build_pcs_proof(g, ntt, views, params);
  for (const auto& c : pg.commitments) r.widths.push_back(c.layout.stacked_width());
  auto p = exec.prepare(compile(g));
  for (auto& [buf, d] : inputs) {
    std::vector<Fp> v = d->values;
    v.resize(buf.count());
    p->upload(buf, v);
  }
  p->run(r.trace);
  r.proof = pg.decode(p->download(pg.layout.buffer()));
  return r;
}

TraceData random_trace(uint32_t width, uint32_t log_height, uint64_t seed) {
  return {width, log_height, field_values(uint64_t(width) << log_height, seed)};
}

// FNV-1a over the bytes: a short fingerprint of a proof's encoding.
uint64_t fingerprint(const std::vector<uint8_t>& bytes) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (uint8_t b : bytes) h = (h ^ b) * 0x100000001b3ull;
  return h;
}

SystemParams without_folding_grinding(SystemParams p) {
  p.whir.folding_pow_bits = 0;
  return p;
}
}  // namespace

class PcsWhir : public ExecutorTest {};
VKSTARK_INSTANTIATE_FOR_EXECUTORS(PcsWhir);

TEST_P(PcsWhir, OneColumnVerifies) {
  SystemParams params = default_test_params_small();
  ProofRun r = prove(exec(), {{random_trace(1, 10, 1)}}, params);
  VerifyResult v = check_pcs_proof_self_consistency(r.proof, r.widths, params);
  EXPECT_TRUE(v.ok) << v.reason;
  EXPECT_LE(r.trace.counters.host_syncs, 2u);
  EXPECT_EQ(r.trace.counters.host_tasks, 0u);
}

TEST_P(PcsWhir, ManyColumnsVerify) {
  SystemParams params = default_test_params_small();
  ProofRun r = prove(exec(), {{random_trace(9, 10, 2)}}, params);
  EXPECT_EQ(r.widths, std::vector<uint32_t>{9});
  VerifyResult v = check_pcs_proof_self_consistency(r.proof, r.widths, params);
  EXPECT_TRUE(v.ok) << v.reason;
}

TEST_P(PcsWhir, HeightsBelowTheSkipDomainAndMixedHeightsVerify) {
  SystemParams params = test_system_params_small(3, 5, 2);  // l_skip 3: heights 2^0..2^2 are strided
  ProofRun r = prove(
      exec(), {{random_trace(3, 8, 3), random_trace(2, 5, 4), random_trace(4, 2, 5), random_trace(1, 0, 6)}}, params);
  VerifyResult v = check_pcs_proof_self_consistency(r.proof, r.widths, params);
  EXPECT_TRUE(v.ok) << v.reason;
}

TEST_P(PcsWhir, SeveralCommitmentsVerify) {
  SystemParams params = default_test_params_small();
  ProofRun r = prove(exec(), {{random_trace(2, 9, 7)}, {random_trace(1, 10, 8), random_trace(3, 3, 9)}}, params);
  EXPECT_EQ(r.proof.roots.size(), 2u);
  VerifyResult v = check_pcs_proof_self_consistency(r.proof, r.widths, params);
  EXPECT_TRUE(v.ok) << v.reason;
}

TEST_P(PcsWhir, KeccakLikeParamsWithRealGrindingVerify) {
  // app params at a small height: k = 4, 193/88 queries, 15/5/20-bit grinding.
  SystemParams params = app_params_with_100_bits_security(12);
  ProofRun r = prove(exec(), {{random_trace(5, 12, 10)}}, params);
  VerifyResult v = check_pcs_proof_self_consistency(r.proof, r.widths, params);
  EXPECT_TRUE(v.ok) << v.reason;
  EXPECT_LE(r.trace.counters.host_syncs, 2u);
}

TEST(PcsWhirAcrossExecutors, RootsAndProofBytesAreIdentical) {
  SystemParams params = default_test_params_small();
  std::vector<std::vector<TraceData>> sets = {{random_trace(5, 9, 11), random_trace(2, 1, 12)}};
  ProofRun cpu = prove(executor("cpu"), sets, params);
  ProofRun vk = prove(executor("vulkan"), sets, params);
  EXPECT_EQ(cpu.proof.roots, vk.proof.roots);
  EXPECT_EQ(encode(cpu.proof), encode(vk.proof));
  // The Vulkan proof's bytes verify against what the CPU run committed to and claims.
  const PcsClaim cpu_claim{cpu.proof.roots, cpu.widths, cpu.proof.openings};
  VerifyResult v = verify_pcs_proof_bytes(cpu_claim, encode(vk.proof), params);
  EXPECT_TRUE(v.ok) << v.reason;
}

// The proof bytes of fixed inputs, recorded on 2026-11-23 before the WHIR sumcheck rounds moved to
// the scalar-program kernel (docs/decisions.md): a change in how the prover computes must not
// change what it proves. (Fingerprints of the encoding; the sizes catch a changed layout first.)
TEST_P(PcsWhir, ProofBytesOfFixedInputsAreTheRecordedOnes) {
  struct Case {
    const char* what;
    SystemParams params;
    std::vector<std::vector<TraceData>> sets;
    size_t size;
    uint64_t fingerprint;
  };
  const Case cases[] = {
      {"small params",
       default_test_params_small(),
       {{random_trace(3, 10, 21), random_trace(2, 4, 22)}},
       6648,
       0x95f23e1f3038f7bcull},
      {"small params, no folding grinding",
       without_folding_grinding(default_test_params_small()),
       {{random_trace(3, 10, 21)}},
       6312,
       0x432c3d2ba81b9cd2ull},
      {"app params at 2^12",
       app_params_with_100_bits_security(12),
       {{random_trace(5, 12, 23)}},
       121892,
       0x18b4baef3f733da1ull},
  };
  for (const Case& c : cases) {
    ProofRun r = prove(exec(), c.sets, c.params);
    const std::vector<uint8_t> bytes = encode(r.proof);
    EXPECT_TRUE(check_pcs_proof_self_consistency(r.proof, r.widths, c.params).ok) << c.what;
    // The decoder with the params' shape takes the bytes back, and they are its canonical encoding.
    EXPECT_EQ(decode_pcs_proof(bytes, c.params, r.widths), r.proof) << c.what;
    EXPECT_EQ(bytes.size(), c.size) << c.what;
    EXPECT_EQ(fingerprint(bytes), c.fingerprint) << c.what << fmt::format(": 0x{:016x}", fingerprint(bytes));
  }
}
