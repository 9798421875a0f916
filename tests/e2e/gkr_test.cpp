// LogUp's GKR fractional sumcheck end to end (protocol.md 7 step 4, 8.3-8.5): the device prover on
// each executor against an independent host prover written here from protocol.md 8.4 (eq table
// folded along, round polynomials from the tables at X = 0..3), then the host verifier.
//
// Requirements: the proof is the host prover's, bit for bit, on every executor (so the proof bytes
// are identical across executors); it verifies; the verifier's p-hat(xi), q-hat(xi) are the MLEs of
// the leaves at xi; the device transcript ends where the verifier's does; every sub-round keeps
// s(0) + s(1) = claim; one submission, at most 2 host syncs, no host task. Error guessing: a
// tampered value of any field, a wrong shape, a nonzero root are rejected, naming the layer. The
// plan: two dependent dispatches per sub-round.
#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "kernels/basic.hpp"
#include "kernels/elementwise.hpp"
#include "kernels/gkr.hpp"
#include "runtime/plan.hpp"
#include "stages/gkr/prover.hpp"
#include "stages/gkr/verify.hpp"
#include "stages/whir/verify.hpp"
#include "tests/parity/executor_fixture.hpp"

using namespace vkstark;
using namespace vkstark::testing;

namespace {

struct Fraction {
  std::vector<Fp4> p, q;
};

// The host prover (protocol.md 8.3-8.4), written straight from the spec. sums[j][s] records, for
// sub-round s of layer j, s(0) computed from the tables and the claim the verifier holds there.
struct HostRun {
  GkrProof proof;
  std::vector<Fp4> xi;
  std::vector<std::vector<std::pair<Fp4, Fp4>>> sums;
};

Fp4 eq_at(const std::vector<Fp4>& x, uint64_t y) {
  Fp4 e = Fp4::one();
  for (size_t k = 0; k < x.size(); ++k) e *= ((y >> k) & 1) ? x[k] : Fp4::one() - x[k];
  return e;
}

// The polynomial through (x, v[x]), x = 0..3, at r: plain Lagrange with inverses.
Fp4 lagrange_0123(const std::array<Fp4, 4>& v, const Fp4& r) {
  Fp4 out;
  for (uint32_t i = 0; i < 4; ++i) {
    Fp4 num = Fp4::one();
    Fp den = Fp::one();
    for (uint32_t k = 0; k < 4; ++k)
      if (k != i) {
        num *= r - Fp::from_canonical(k);
        den = den * (Fp::from_canonical(i) - Fp::from_canonical(k));
      }
    out += v[i] * num * den.inverse();
  }
  return out;
}

HostRun host_prove(DuplexSponge& t, const Fraction& leaves, uint32_t n) {
  std::vector<Fraction> layer(n + 1);
  layer[n] = leaves;
  for (uint32_t j = n; j-- > 0;) {
    const size_t nodes = size_t(1) << j;
    layer[j].p.resize(nodes);
    layer[j].q.resize(nodes);
    for (size_t v = 0; v < nodes; ++v) {
      const Fp4 pa = layer[j + 1].p[2 * v], qa = layer[j + 1].q[2 * v];
      const Fp4 pb = layer[j + 1].p[2 * v + 1], qb = layer[j + 1].q[2 * v + 1];
      layer[j].p[v] = pa * qb + pb * qa;
      layer[j].q[v] = qa * qb;
    }
  }
  HostRun r;
  r.sums.resize(n + 1);
  r.proof.q0_claim = layer[0].q[0];
  t.observe_ext(r.proof.q0_claim);
  auto claims = [&](const Fp4& p0, const Fp4& q0, const Fp4& p1, const Fp4& q1) {
    r.proof.claims_per_layer.push_back({p0, p1, q0, q1});
    for (const Fp4& v : {p0, q0, p1, q1}) t.observe_ext(v);
    return t.sample_ext();
  };
  r.xi = {claims(layer[1].p[0], layer[1].q[0], layer[1].p[1], layer[1].q[1])};
  for (uint32_t j = 2; j <= n; ++j) {
    const Fp4 lambda = t.sample_ext();
    const GkrLayerClaims& prev = r.proof.claims_per_layer.back();
    const Fp4 mu = r.xi[0];
    Fp4 claim =
        prev.p_xi_0 + mu * (prev.p_xi_1 - prev.p_xi_0) + lambda * (prev.q_xi_0 + mu * (prev.q_xi_1 - prev.q_xi_0));
    const size_t size = size_t(1) << (j - 1);
    std::vector<Fp4> A(size), B(size), C(size), E(size), EQ(size);
    for (size_t y = 0; y < size; ++y) {
      A[y] = layer[j].p[2 * y];
      C[y] = layer[j].p[2 * y + 1];
      B[y] = layer[j].q[2 * y];
      E[y] = layer[j].q[2 * y + 1];
      EQ[y] = eq_at(r.xi, y);
    }
    std::vector<std::array<Fp4, 3>> polys;
    std::vector<Fp4> rho;
    for (uint32_t s = 0; s + 1 < j; ++s) {
      const size_t half = A.size() / 2;
      std::array<Fp4, 4> sx{};
      for (uint32_t x = 0; x < 4; ++x) {
        const Fp fx = Fp::from_canonical_unchecked(x);
        auto at = [&](const std::vector<Fp4>& T, size_t y) { return T[2 * y] + (T[2 * y + 1] - T[2 * y]) * fx; };
        for (size_t y = 0; y < half; ++y)
          sx[x] += at(EQ, y) * (at(A, y) * at(E, y) + at(C, y) * at(B, y) + lambda * at(B, y) * at(E, y));
      }
      r.sums[j].push_back({sx[0], claim});
      polys.push_back({sx[1], sx[2], sx[3]});
      for (uint32_t x = 1; x < 4; ++x) t.observe_ext(sx[x]);
      const Fp4 rs = t.sample_ext();
      rho.push_back(rs);
      claim = lagrange_0123(sx, rs);
      for (std::vector<Fp4>* T : {&A, &B, &C, &E, &EQ}) {
        for (size_t y = 0; y < half; ++y) (*T)[y] = (*T)[2 * y] + rs * ((*T)[2 * y + 1] - (*T)[2 * y]);
        T->resize(half);
      }
    }
    r.proof.sumcheck_polys.push_back(polys);
    const Fp4 mu_j = claims(A[0], B[0], C[0], E[0]);
    r.xi.assign(1, mu_j);
    r.xi.insert(r.xi.end(), rho.begin(), rho.end());
  }
  return r;
}

// A transcript that has seen something already (not at a block boundary).
DuplexSponge start_transcript(uint64_t seed) {
  DuplexSponge t;
  for (const Fp& v : field_values(3 + seed % 5, seed)) t.observe(v);
  return t;
}

SystemParams params_with_pow(uint32_t bits) {
  SystemParams p = default_test_params_small();
  p.logup.pow_bits = bits;
  return p;
}

// Leaves as protocol.md 8.2 makes them (q = alpha + h), with sum p / q = 0 unless `balanced` is
// false; q_raw is q without alpha (the device adds alpha after sampling it).
struct Leaves {
  Fraction f;
  std::vector<Fp4> q_raw;
};
Leaves make_leaves(uint32_t n, const Fp4& alpha, uint64_t seed, bool balanced = true) {
  const size_t size = size_t(1) << n;
  Leaves l;
  l.f.p = ext_values(size, seed);
  l.q_raw = ext_values(size, seed + 1);
  for (size_t i = size / 2; i < size; ++i)  // padding-like leaves (0, alpha) in part of the upper half
    if (i % 3 == 0) l.f.p[i] = l.q_raw[i] = Fp4();
  l.f.q.resize(size);
  for (size_t i = 0; i < size; ++i) {
    if ((l.q_raw[i] + alpha).is_zero()) l.q_raw[i] = Fp4::one() - alpha;  // keep q nonzero
    l.f.q[i] = l.q_raw[i] + alpha;
  }
  if (balanced) {
    Fp4 sum;
    for (size_t i = 0; i + 1 < size; ++i) sum += l.f.p[i] * l.f.q[i].inverse();
    l.f.p[size - 1] = -(sum * l.f.q[size - 1]);
  }
  return l;
}

// One device run: pow, alpha and beta, q = q_raw + alpha, the GKR prover.
struct DeviceRun {
  GkrProof proof;
  std::vector<Fp4> xi;
  Fp4 alpha, beta;
  SpongeState end;
  Trace trace;
};

struct ProverGraph {
  Graph g;
  ProofLayout layout;
  GkrRegions regions;
  Buffer<SpongeState> init, end;
  Buffer<Fp4> p, q_raw, ones, xi, challenges;
};

// tile > 0: gkr_prove_remade, the leaves copied from their buffers a tile at a time when read.
void build_prover(ProverGraph& pg, uint32_t n, const SystemParams& params, uint64_t tile = 0) {
  Graph& g = pg.g;
  pg.regions = reserve_gkr_regions(pg.layout, GkrShape{n});
  pg.layout.create_buffer(g);
  const GkrProofViews views = gkr_proof_views(pg.layout, pg.regions, pg.regions.proto());
  pg.init = g.input<SpongeState>("transcript.init", 1);
  DeviceTranscript t(g, "transcript", pg.init.all());
  const uint64_t size = uint64_t(1) << n;
  pg.p = g.input<Fp4>("leaves.p", size);
  pg.q_raw = g.input<Fp4>("leaves.q_raw", size);
  pg.ones = g.input<Fp4>("ones", size);
  auto span = g.span("logup_gkr");
  const GkrChallenges c = gkr_grind_and_challenges(g, t, views, params);
  auto alphas = g.transient<Fp4>("alpha.broadcast", size), q = g.transient<Fp4>("leaves.q", size);
  g.dispatch<Fp4Scale>("alpha.broadcast", {.a = pg.ones, .c = c.alpha, .out = alphas});
  g.dispatch<Fp4Add>("leaves.q", {.a = pg.q_raw, .b = alphas, .out = q});
  const View<Fp4> xi =
      tile == 0
          ? gkr_prove(g, t, views, pg.p.all(), q.all(), n)
          : gkr_prove_remade(
                g, t, views,
                [&g, &pg, q](uint64_t first, View<Fp4> p_out, View<Fp4> q_out, const std::string& tag) {
                  g.dispatch<CopyU32>("leaves.p" + tag, {.src = pg.p.slice(first, p_out.count).bitcast<uint32_t>(),
                                                         .dst = p_out.bitcast<uint32_t>()});
                  g.dispatch<CopyU32>("leaves.q" + tag, {.src = q.slice(first, q_out.count).bitcast<uint32_t>(),
                                                         .dst = q_out.bitcast<uint32_t>()});
                },
                tile, n);
  pg.xi = g.output<Fp4>("xi", n);
  g.dispatch<CopyU32>("xi.copy", {.src = xi.bitcast<uint32_t>(), .dst = pg.xi.all().bitcast<uint32_t>()});
  pg.challenges = g.output<Fp4>("challenges", 2);
  g.dispatch<CopyU32>("alpha.copy",
                      {.src = c.alpha.bitcast<uint32_t>(), .dst = pg.challenges.slice(0, 1).bitcast<uint32_t>()});
  g.dispatch<CopyU32>("beta.copy",
                      {.src = c.beta.bitcast<uint32_t>(), .dst = pg.challenges.slice(1, 1).bitcast<uint32_t>()});
  pg.end = g.output<SpongeState>("transcript.end", 1);
  g.dispatch<CopyU32>("transcript.copy",
                      {.src = t.state().all().bitcast<uint32_t>(), .dst = pg.end.all().bitcast<uint32_t>()});
}

DeviceRun device_prove(Executor& exec, const DuplexSponge& start, const Leaves& leaves, uint32_t n,
                       const SystemParams& params, uint64_t tile = 0) {
  ProverGraph pg;
  build_prover(pg, n, params, tile);
  auto plan = exec.prepare(compile(pg.g));
  plan->upload(pg.init, std::vector<SpongeState>{{start.state(), start.absorb_idx(), start.sample_idx()}});
  plan->upload(pg.p, leaves.f.p);
  plan->upload(pg.q_raw, leaves.q_raw);
  plan->upload(pg.ones, std::vector<Fp4>(size_t(1) << n, Fp4::one()));
  DeviceRun r;
  plan->run(r.trace);
  r.proof = pg.regions.decode(plan->download(pg.layout.buffer()));
  r.xi = plan->download(pg.xi);
  auto ch = plan->download(pg.challenges);
  r.alpha = ch[0];
  r.beta = ch[1];
  r.end = plan->download(pg.end)[0];
  return r;
}

// The host side of step 4 from `start`: pow and challenges, then the GKR verifier.
VerifyResult host_verify(DuplexSponge t, const GkrProof& proof, uint32_t n, const SystemParams& params, GkrClaim& out,
                         DuplexSponge* end = nullptr) {
  Fp4 alpha, beta;
  if (VerifyResult r = gkr_check_pow_and_challenges(t, proof, params, alpha, beta); !r) return r;
  VerifyResult r = gkr_verify(t, proof, n, out);
  if (end) *end = t;
  return r;
}

// The expected alpha of a run from `start` (the host prover's grind is the smallest witness too).
Fp4 host_alpha(DuplexSponge t, const SystemParams& params, Fp& witness, Fp4& beta) {
  witness = t.grind(params.logup.pow_bits);
  const Fp4 alpha = t.sample_ext();
  beta = t.sample_ext();
  return alpha;
}

// The GKR part's bytes (protocol.md 12.2).
std::vector<uint8_t> encode_gkr(const GkrProof& proof) {
  std::vector<uint8_t> bytes;
  ProofEncoder e(bytes);
  gkr_fields(e, const_cast<GkrProof&>(proof), nullptr);  // the encoder only reads
  return bytes;
}

struct Case {
  uint32_t n, pow_bits;
  uint64_t seed;
};

}  // namespace

class GkrProver : public ExecutorTest {};
VKSTARK_INSTANTIATE_FOR_EXECUTORS_AND_STAGING(GkrProver);

TEST_P(GkrProver, ProofIsTheHostProversAndVerifies) {
  for (const Case& c : {Case{1, 0, 1}, Case{2, 3, 2}, Case{3, 0, 3}, Case{5, 2, 4}, Case{8, 0, 5}, Case{12, 1, 6}}) {
    SCOPED_TRACE(fmt::format("n_tot {} pow_bits {}", c.n, c.pow_bits));
    const SystemParams params = params_with_pow(c.pow_bits);
    const DuplexSponge start = start_transcript(c.seed);
    Fp witness;
    Fp4 beta;
    const Fp4 alpha = host_alpha(start, params, witness, beta);
    const Leaves leaves = make_leaves(c.n, alpha, 100 * c.seed);

    DeviceRun d = device_prove(exec(), start, leaves, c.n, params);
    EXPECT_EQ(d.alpha, alpha);
    EXPECT_EQ(d.beta, beta);
    EXPECT_EQ(d.proof.logup_pow_witness, witness);

    DuplexSponge host_t = start;
    Fp4 ignored_alpha, ignored_beta;
    ASSERT_TRUE(gkr_check_pow_and_challenges(host_t, d.proof, params, ignored_alpha, ignored_beta).ok);
    const HostRun h = host_prove(host_t, leaves.f, c.n);
    GkrProof want = h.proof;
    want.logup_pow_witness = witness;
    EXPECT_EQ(d.proof, want);
    EXPECT_EQ(d.xi, h.xi);

    GkrClaim claim;
    DuplexSponge verifier_end;
    const VerifyResult v = host_verify(start, d.proof, c.n, params, claim, &verifier_end);
    ASSERT_TRUE(v.ok) << v.reason;
    EXPECT_EQ(claim.xi, d.xi);
    EXPECT_EQ(claim.p_hat, mle_eval(leaves.f.p, claim.xi));
    EXPECT_EQ(claim.q_hat, mle_eval(leaves.f.q, claim.xi));
    EXPECT_EQ(verifier_end, host_t);
    EXPECT_EQ(d.end, (SpongeState{verifier_end.state(), verifier_end.absorb_idx(), verifier_end.sample_idx()}));

    // s(0) + s(1) = claim in every sub-round, with s(1) from the device proof.
    for (uint32_t j = 2; j <= c.n; ++j)
      for (uint32_t s = 0; s + 1 < j; ++s) {
        const auto& [s0, held] = h.sums[j][s];
        EXPECT_EQ(s0 + d.proof.sumcheck_polys[j - 2][s][0], held) << "layer " << j << " sub-round " << s;
      }

    EXPECT_EQ(d.trace.counters.submissions, 1u);
    EXPECT_LE(d.trace.counters.host_syncs, 2u);
    EXPECT_EQ(d.trace.counters.host_tasks, 0u);
  }
}

// The low-memory mode's GKR: the leaves made again a tile at a time whenever read, the two layers
// below the tree made from them: the same proof as with the leaves kept, for tiles from 16 leaves
// to half of them.
TEST_P(GkrProver, LeavesMadeAgainGiveTheSameProof) {
  for (const Case& c : {Case{4, 0, 21}, Case{6, 1, 22}, Case{9, 0, 23}, Case{12, 0, 24}})
    for (uint64_t tile = 16; tile < (uint64_t(1) << c.n); tile *= c.n >= 9 ? 8 : 2) {
      SCOPED_TRACE(fmt::format("n_tot {}, tiles of {} leaves", c.n, tile));
      const SystemParams params = params_with_pow(c.pow_bits);
      const DuplexSponge start = start_transcript(c.seed);
      Fp witness;
      Fp4 beta;
      const Leaves leaves = make_leaves(c.n, host_alpha(start, params, witness, beta), 100 * c.seed);
      const DeviceRun kept = device_prove(exec(), start, leaves, c.n, params);
      const DeviceRun remade = device_prove(exec(), start, leaves, c.n, params, tile);
      EXPECT_EQ(remade.proof, kept.proof);
      EXPECT_EQ(remade.xi, kept.xi);
      EXPECT_EQ(remade.end, kept.end);
      EXPECT_EQ(remade.trace.counters.submissions, 1u);
      GkrClaim claim;
      const VerifyResult v = host_verify(start, remade.proof, c.n, params, claim);
      EXPECT_TRUE(v.ok) << v.reason;
    }
}

TEST(GkrRemade, RefusesWhatItCannotTile) {
  const SystemParams params = params_with_pow(0);
  for (const auto& [n, tile] : {std::pair<uint32_t, uint64_t>{3, 4}, {6, 8}, {6, 24}, {6, 64}}) {
    ProverGraph pg;
    EXPECT_THROW(build_prover(pg, n, params, tile), InputError) << "n_tot " << n << ", tile " << tile;
  }
}

TEST_P(GkrProver, NonzeroRootGivesAProofTheVerifierRejectsAtLayerOne) {
  const SystemParams params = params_with_pow(0);
  const DuplexSponge start = start_transcript(9);
  Fp witness;
  Fp4 beta;
  const Leaves leaves = make_leaves(4, host_alpha(start, params, witness, beta), 900, /*balanced=*/false);
  DeviceRun d = device_prove(exec(), start, leaves, 4, params);
  GkrClaim claim;
  const VerifyResult v = host_verify(start, d.proof, 4, params, claim);
  EXPECT_FALSE(v.ok);
  EXPECT_NE(v.reason.find("GKR layer 1: the root numerator"), std::string::npos) << v.reason;
  EXPECT_EQ(v.code, RejectCode(GkrReject::RootNumeratorNotZero));
}

TEST(GkrAcrossExecutors, ProofBytesAreIdentical) {
  const uint32_t n = 10;
  const SystemParams params = params_with_pow(2);
  const DuplexSponge start = start_transcript(11);
  Fp witness;
  Fp4 beta;
  const Leaves leaves = make_leaves(n, host_alpha(start, params, witness, beta), 1100);
  DeviceRun cpu = device_prove(executor("cpu"), start, leaves, n, params);
  DeviceRun vk = device_prove(executor("vulkan"), start, leaves, n, params);
  // (The proof buffer's alignment padding is never written: compare the encodings.)
  EXPECT_EQ(encode_gkr(cpu.proof), encode_gkr(vk.proof));
  EXPECT_EQ(encode_gkr(cpu.proof).size(), 4 + 16 + 4 + 64 * n + 48 * n * (n - 1) / 2);
  EXPECT_EQ(cpu.xi, vk.xi);
  GkrClaim claim;
  const VerifyResult v = host_verify(start, vk.proof, n, params, claim);
  EXPECT_TRUE(v.ok) << v.reason;
}

// Every value of the proof, changed, makes the verifier reject, name where and give the check's code:
// layer 1's claims fail the root's sums (a P term or, when P1 is zero, the Q product), a later
// layer's claims or sub-round values that layer's final sumcheck check.
TEST(GkrVerifier, RejectsATamperedValueOfEveryField) {
  const uint32_t n = 5;
  const SystemParams params = params_with_pow(4);
  const DuplexSponge start = start_transcript(12);
  Fp witness;
  Fp4 beta;
  const Leaves leaves = make_leaves(n, host_alpha(start, params, witness, beta), 1200);
  const GkrProof good = device_prove(executor("cpu"), start, leaves, n, params).proof;
  GkrClaim claim;
  ASSERT_TRUE(host_verify(start, good, n, params, claim).ok);

  const Fp4 delta = Fp4(Fp::one(), Fp(), Fp::from_canonical(7), Fp());
  auto expect_rejected = [&](const std::function<void(GkrProof&)>& tamper, const std::string& where, GkrReject code) {
    GkrProof bad = good;
    tamper(bad);
    GkrClaim c;
    const VerifyResult v = host_verify(start, bad, n, params, c);
    EXPECT_FALSE(v.ok) << where;
    EXPECT_NE(v.reason.find(where), std::string::npos) << "reason: " << v.reason << ", expected: " << where;
    EXPECT_EQ(v.code, RejectCode(code)) << where << ": " << v.reason;
  };
  expect_rejected([&](GkrProof& p) { p.logup_pow_witness = p.logup_pow_witness + Fp::one(); }, "GKR",
                  GkrReject::LogupPow);
  expect_rejected([&](GkrProof& p) { p.q0_claim += delta; }, "GKR layer 1", GkrReject::RootDenominatorMismatch);
  const GkrLayerClaims& root = good.claims_per_layer[0];
  // Q0 and Q1 take part in the root numerator P0 Q1 + P1 Q0 unless the P beside them is zero.
  const GkrReject q0_code =
      root.p_xi_1.is_zero() ? GkrReject::RootDenominatorMismatch : GkrReject::RootNumeratorNotZero;
  const GkrReject q1_code =
      root.p_xi_0.is_zero() ? GkrReject::RootDenominatorMismatch : GkrReject::RootNumeratorNotZero;
  expect_rejected([&](GkrProof& p) { p.claims_per_layer[0].p_xi_0 += delta; }, "GKR layer 1",
                  GkrReject::RootNumeratorNotZero);
  expect_rejected([&](GkrProof& p) { p.claims_per_layer[0].p_xi_1 += delta; }, "GKR layer 1",
                  GkrReject::RootNumeratorNotZero);
  expect_rejected([&](GkrProof& p) { p.claims_per_layer[0].q_xi_0 += delta; }, "GKR layer 1", q0_code);
  expect_rejected([&](GkrProof& p) { p.claims_per_layer[0].q_xi_1 += delta; }, "GKR layer 1", q1_code);
  for (uint32_t j = 2; j <= n; ++j) {
    const std::string where = fmt::format("GKR layer {}", j);
    const GkrReject code = GkrReject::LayerClaimMismatch;
    expect_rejected([&](GkrProof& p) { p.claims_per_layer[j - 1].p_xi_0 += delta; }, where, code);
    expect_rejected([&](GkrProof& p) { p.claims_per_layer[j - 1].p_xi_1 += delta; }, where, code);
    expect_rejected([&](GkrProof& p) { p.claims_per_layer[j - 1].q_xi_0 += delta; }, where, code);
    expect_rejected([&](GkrProof& p) { p.claims_per_layer[j - 1].q_xi_1 += delta; }, where, code);
    for (uint32_t s = 0; s + 1 < j; ++s)
      for (uint32_t x = 0; x < 3; ++x)
        expect_rejected([&](GkrProof& p) { p.sumcheck_polys[j - 2][s][x] += delta; }, where, code);
  }
  // Two claims of a layer swapped consistently with the layer above still change the transcript.
  expect_rejected([&](GkrProof& p) { std::swap(p.claims_per_layer[2].p_xi_0, p.claims_per_layer[2].p_xi_1); },
                  "GKR layer 3", GkrReject::LayerClaimMismatch);
}

TEST(GkrVerifier, RejectsAWrongShapeBeforeReadingValues) {
  const uint32_t n = 4;
  const SystemParams params = params_with_pow(0);
  const DuplexSponge start = start_transcript(13);
  Fp witness;
  Fp4 beta;
  const Leaves leaves = make_leaves(n, host_alpha(start, params, witness, beta), 1300);
  const GkrProof good = device_prove(executor("cpu"), start, leaves, n, params).proof;
  auto expect_shape = [&](const std::function<void(GkrProof&)>& change, uint32_t n_tot, const std::string& what) {
    GkrProof bad = good;
    change(bad);
    GkrClaim c;
    DuplexSponge t = start;
    Fp4 a, b;
    ASSERT_TRUE(gkr_check_pow_and_challenges(t, bad, params, a, b).ok);
    const VerifyResult v = gkr_verify(t, bad, n_tot, c);
    EXPECT_FALSE(v.ok) << what;
    EXPECT_EQ(v.code, RejectCode(GkrReject::Shape)) << v.reason;
    EXPECT_EQ(v.reason.rfind("GKR proof shape: ", 0), 0u) << v.reason;
    EXPECT_NE(v.reason.find(what), std::string::npos) << v.reason;
  };
  expect_shape([](GkrProof& p) { p.claims_per_layer.pop_back(); }, n, "claims_per_layer length");
  expect_shape([](GkrProof&) {}, n + 1, "claims_per_layer length");
  expect_shape([](GkrProof& p) { p.sumcheck_polys.pop_back(); }, n, "sumcheck_polys");
  expect_shape([](GkrProof& p) { p.sumcheck_polys[1].push_back({}); }, n, "layer 3");
  expect_shape([](GkrProof& p) { p.sumcheck_polys[2].pop_back(); }, n, "layer 4");
  expect_shape([](GkrProof& p) { p.sumcheck_polys.clear(); }, n, "sumcheck_polys");
  GkrClaim c;
  DuplexSponge t;
  EXPECT_THROW((void)gkr_verify(t, good, 0, c), InputError);
}

// Values of the right shape but of no prover: rejected (never thrown, never accepted).
TEST(GkrVerifier, RejectsRandomValuesOfTheRightShape) {
  for (uint32_t n : {1u, 2u, 6u}) {
    GkrProof p;
    auto v = ext_values(4 * n + 1 + 3 * n * n, 1400 + n);
    size_t i = 0;
    p.q0_claim = v[i++];
    for (uint32_t j = 1; j <= n; ++j, i += 4) p.claims_per_layer.push_back({v[i], v[i + 1], v[i + 2], v[i + 3]});
    for (uint32_t j = 2; j <= n; ++j) {
      p.sumcheck_polys.emplace_back();
      for (uint32_t s = 0; s + 1 < j; ++s, i += 3) p.sumcheck_polys.back().push_back({v[i], v[i + 1], v[i + 2]});
    }
    DuplexSponge t = start_transcript(n);
    GkrClaim c;
    const VerifyResult r = gkr_verify(t, p, n, c);
    EXPECT_FALSE(r.ok) << n;
    EXPECT_NE(r.reason.find("GKR layer 1"), std::string::npos) << r.reason;
    EXPECT_EQ(r.code, RejectCode(GkrReject::RootNumeratorNotZero)) << r.reason;
  }
}

// The compiled plan: each sub-round is its partials then its program, two dependent dispatches;
// the whole GKR part is the tree, the layer-1 program and, per layer j >= 2, one eq dispatch and
// 2 (j - 1) for the sub-rounds.
TEST(GkrPlan, ASubRoundIsTwoDependentDispatches) {
  const uint32_t n = 12;
  ProverGraph pg;
  build_prover(pg, n, params_with_pow(0));
  const Plan p = compile(pg.g);
  std::vector<const Step*> steps;
  for (const Segment& s : p.segments)
    for (const Step& st : s.steps) steps.push_back(&st);
  uint32_t gkr_dispatches = 0;
  for (const Step* st : steps) gkr_dispatches += p.tasks[st->task].name.rfind("gkr.", 0) == 0;
  const uint32_t tree = (n - 1 + kGkrMaxFusedLayers - 1) / kGkrMaxFusedLayers;
  EXPECT_EQ(gkr_dispatches, 1 /* logup_pow */ + tree + 1 /* layer 1 */ + (n - 1) + n * (n - 1));
  for (uint32_t j = 2; j <= n; ++j)
    for (uint32_t s = 0; s + 1 < j; ++s) {
      const std::string name = fmt::format("gkr.layer{}.round{}.", j, s);
      std::vector<size_t> at;
      for (size_t i = 0; i < steps.size(); ++i)
        if (p.tasks[steps[i]->task].name.rfind(name, 0) == 0) at.push_back(i);
      ASSERT_EQ(at.size(), 2u) << name;
      EXPECT_EQ(at[1], at[0] + 1) << name;
      EXPECT_EQ(p.tasks[steps[at[0]]->task].name, name + "partials");
      EXPECT_EQ(p.tasks[steps[at[1]]->task].name, name + "program");
      // Each waits for the one before it (memory barriers), nothing else stands between.
      EXPECT_EQ(steps[at[0]]->barrier, BarrierKind::Memory) << name;
      EXPECT_EQ(steps[at[1]]->barrier, BarrierKind::Memory) << name;
    }
}
