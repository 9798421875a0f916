// The stacked opening reduction end to end (protocol.md 10): random traces of mixed heights (some
// below 2^l_skip, so strided) in one to three commitments are committed with stacked_commit, the
// column claims at a random r are computed on the host as the columns' PLE openings (protocol.md
// 9.6), the device proves from a transcript state taken from the host, and the host verifies.
// Specified: the verifier accepts and outputs the prover's u; every stacking opening is its stacked
// column's PLE at u; each round polynomial is the one a naive host prover computes from the
// definitions of protocol.md 10.2 (so s_j(0) + s_j(1) = the previous claim, and s'_0 is the
// definition's polynomial at random points); the proof bytes are the same on every executor; a
// tampered proof field or a wrong claim is rejected; a round is two dependent dispatches.
#include <fmt/format.h>

#include <cstring>

#include "kernels/basic.hpp"
#include "kernels/whir.hpp"
#include "runtime/plan.hpp"
#include "stages/common/ntt.hpp"
#include "stages/common/poly.hpp"
#include "stages/encoding/layout.hpp"
#include "stages/stacked_reduction/prover.hpp"
#include "stages/stacked_reduction/verify.hpp"
#include "stages/whir/prover.hpp"
#include "stages/whir/verify.hpp"
#include "tests/parity/executor_fixture.hpp"

using namespace vkstark;
using namespace vkstark::testing;

namespace {

struct TraceData {
  uint32_t width, log_height;
  bool need_rot;
  std::vector<Fp> values;  // column-major
  std::span<const Fp> column(uint32_t j) const {
    return std::span<const Fp>(values).subspan(uint64_t(j) << log_height, uint64_t(1) << log_height);
  }
};

TraceData random_trace(uint32_t width, uint32_t log_height, bool need_rot, uint64_t seed) {
  return {width, log_height, need_rot, field_values(uint64_t(width) << log_height, seed)};
}

struct Case {
  const char* what;
  SystemParams params;
  std::vector<std::vector<TraceData>> commitments;  // each sorted by height, descending
};

std::vector<Case> cases() {
  return {
      {"one commitment, every kind of height",
       test_system_params_small(2, 5, 2),
       {{random_trace(2, 7, true, 1), random_trace(3, 5, false, 2), random_trace(1, 3, true, 3),
         random_trace(2, 2, true, 4), random_trace(2, 1, true, 5), random_trace(1, 0, false, 6)}}},
      {"three commitments",
       test_system_params_small(2, 5, 2),
       {{random_trace(1, 6, true, 7), random_trace(2, 4, false, 8)},
        {random_trace(3, 7, true, 9)},
        {random_trace(2, 1, true, 10), random_trace(1, 0, true, 11)}}},
      {"n_stack 1",
       test_system_params_small(3, 1, 2),
       {{random_trace(2, 4, true, 12), random_trace(1, 3, true, 13), random_trace(2, 1, false, 14)}}},
      {"40 columns of one height: round 0 reduces more than 32 partial sums",
       test_system_params_small(2, 5, 2),
       {{random_trace(40, 7, true, 18), random_trace(3, 2, false, 19)}}},
      {"n_stack 0",
       test_system_params_small(3, 0, 1),
       {{random_trace(2, 3, true, 15), random_trace(1, 2, true, 16)}, {random_trace(1, 0, false, 17)}}},
  };
}

// What the host knows: layouts, stacked columns, the point r, the claims, the transcript before
// lambda'.
struct HostSetup {
  std::vector<StackedLayout> layouts;
  std::vector<std::vector<bool>> need_rot;
  std::vector<std::vector<std::vector<Fp>>> columns;  // [commitment][stacked column][row]
  std::vector<Fp4> r, claims;
  DuplexSponge transcript;
};

HostSetup host_setup(const Case& cs, uint64_t seed) {
  const uint32_t l = cs.params.l_skip;
  HostSetup hs;
  uint32_t n_max = 0;
  for (const auto& traces : cs.commitments) {
    std::vector<MatrixShape> shapes;
    hs.need_rot.emplace_back();
    for (const TraceData& t : traces) {
      shapes.push_back({t.width, t.log_height});
      hs.need_rot.back().push_back(t.need_rot);
      n_max = std::max(n_max, t.log_height > l ? t.log_height - l : 0);
    }
    hs.layouts.emplace_back(shapes, l, cs.params.n_stack);
  }
  hs.r = ext_values(n_max + 1, seed);
  for (size_t c = 0; c < cs.commitments.size(); ++c) {
    const StackedLayout& layout = hs.layouts[c];
    auto& cols = hs.columns.emplace_back(layout.stacked_width(), std::vector<Fp>(layout.stacked_height()));
    for (const StackedSlice& s : layout.slices()) {
      const TraceData& t = cs.commitments[c][s.matrix];
      const std::span<const Fp> col = t.column(s.column);
      const uint64_t stride = s.log_height >= l ? 1 : uint64_t(1) << (l - s.log_height);
      for (uint64_t i = 0; i < col.size(); ++i) cols[s.stacked_col][s.row_start + i * stride] = col[i];
      // protocol.md 9.6: the PLE openings at r, the rotated one of the next-row column.
      std::vector<Fp> rotated(col.size());
      for (uint64_t i = 0; i < col.size(); ++i) rotated[i] = col[(i + 1) % col.size()];
      hs.claims.push_back(eval_ple(col, l, hs.r));
      hs.claims.push_back(t.need_rot ? eval_ple(rotated, l, hs.r) : Fp4::zero());
    }
  }
  for (const Fp& v : field_values(5, seed + 1)) hs.transcript.observe(v);  // some earlier transcript
  return hs;
}

struct ProofRun {
  std::vector<uint32_t> words;
  StackingProof proof;
  WhirProof whir;
  std::vector<Digest> roots;
  std::vector<uint32_t> widths;
  std::vector<Fp4> u;
  std::vector<uint32_t> state;  // the device transcript at the end (SpongeState words)
  Trace trace;
};

// The proof regions and the graph of a reduction: commitments, then the reduction (under
// prover.openings), then u and the transcript state copied out.
struct ReductionGraph {
  Graph graph;
  ProofLayout layout;
  StackingRegions regions;
  WhirShape whir_shape;
  WhirRegions whir;  // with_whir only
  Buffer<Digest> roots;
  ProofRegion<Fp4> u;
  Buffer<uint32_t> state;
  Buffer<Fp4> r;
  Buffer<SpongeState> init;
  std::vector<std::pair<Buffer<Fp>, const TraceData*>> traces;
};

std::unique_ptr<ReductionGraph> build(const Case& cs, const HostSetup& hs, bool with_whir = false) {
  auto rg = std::make_unique<ReductionGraph>();
  Graph& g = rg->graph;
  const SystemParams& params = cs.params;
  const uint32_t log_n = params.log_stacked_height() + params.log_blowup;
  Ntt ntt(g, log_n);
  StackingShape shape{uint32_t(2 << params.l_skip) - 1, params.n_stack, {}};
  for (const StackedLayout& layout : hs.layouts) shape.widths.push_back(layout.stacked_width());
  rg->regions = reserve_stacking_regions(rg->layout, shape);
  rg->whir_shape = WhirShape::from(params, shape.widths);
  if (with_whir) rg->whir = reserve_whir_regions(rg->layout, rg->whir_shape);
  rg->u = rg->layout.add<Fp4>("u", 1ull + params.n_stack);
  rg->layout.create_buffer(g);
  rg->r = g.input<Fp4>("r", hs.r.size());
  rg->init = g.input<SpongeState>("transcript.init", 1);
  DeviceTranscript t(g, "transcript", rg->init.all());
  std::vector<StackedCommitment> commitments;
  {
    auto span = g.span("prover.main_trace_commit");
    for (size_t c = 0; c < cs.commitments.size(); ++c) {
      std::vector<TraceView> views;
      for (size_t i = 0; i < cs.commitments[c].size(); ++i) {
        const TraceData& d = cs.commitments[c][i];
        auto buf = g.input<Fp>(fmt::format("trace{}.{}", c, i), d.values.size());
        rg->traces.push_back({buf, &d});
        views.push_back({buf.all(), d.width, d.log_height});
      }
      commitments.push_back(commit_stacked(g, ntt, fmt::format("commit{}", c), views, params));
    }
  }
  StackedReductionInput in;
  for (const StackedCommitment& c : commitments) in.commitments.push_back(&c);
  in.need_rot = hs.need_rot;
  in.r = rg->r.all();
  const StackingProofViews views = stacking_proof_views(rg->layout, rg->regions, rg->regions.proto());
  auto span = g.span("prover.openings");
  const View<Fp4> u = stacked_reduction_prove(g, t, views, params, in);
  g.dispatch<CopyU32>("u.copy", {.src = u.bitcast<uint32_t>(), .dst = rg->layout.view(rg->u).bitcast<uint32_t>()});
  rg->roots = g.output<Digest>("roots", commitments.size());
  for (size_t c = 0; c < commitments.size(); ++c)
    g.dispatch<CopyU32>(fmt::format("root{}.copy", c), {.src = commitments[c].root().bitcast<uint32_t>(),
                                                        .dst = rg->roots.slice(c, 1).bitcast<uint32_t>()});
  if (with_whir) {  // WHIR opens the stacking openings at u, as the full prover's next phase does
    View<Fp4> cube = g.transient<Fp4>("u_cube", params.log_stacked_height()).all();
    g.dispatch<UCube>("u_cube", {.u = u, .cube = cube, .l_skip = params.l_skip});
    whir_prove(g, ntt, t, rg->layout, rg->whir, rg->whir_shape, params, {in.commitments, cube});
  }
  rg->state = g.output<uint32_t>("state", sizeof(SpongeState) / 4);
  g.dispatch<CopyU32>("state.copy", {.src = t.state().all().bitcast<uint32_t>(), .dst = rg->state.all()});
  return rg;
}

ProofRun prove(Executor& exec, const Case& cs, const HostSetup& hs, bool with_whir = false) {
  prepare_ntt_twiddles(exec, cs.params.log_stacked_height() + cs.params.log_blowup);
  auto rg = build(cs, hs, with_whir);
  auto p = exec.prepare(compile(rg->graph));
  for (auto& [buf, d] : rg->traces) p->upload(buf, d->values);
  p->upload(rg->r, hs.r);
  const SpongeState init{hs.transcript.state(), hs.transcript.absorb_idx(), hs.transcript.sample_idx()};
  p->upload(rg->init, std::vector<SpongeState>{init});
  ProofRun run;
  p->run(run.trace);
  run.words = p->download(rg->layout.buffer());
  run.words.resize(rg->layout.total_words());  // the padding after the last region is never written
  run.state = p->download(rg->state);
  run.proof = rg->regions.decode(run.words);
  if (with_whir) run.whir = rg->whir.decode(run.words);
  run.roots = p->download(rg->roots);
  run.widths = rg->whir_shape.commitment_widths;
  const std::span<const Fp4> u = rg->layout.read(run.words, rg->u);
  run.u.assign(u.begin(), u.end());
  return run;
}

StackedClaims claims_of(const HostSetup& hs) { return {hs.layouts, hs.need_rot, hs.r, hs.claims}; }

VerifyResult verify(const HostSetup& hs, const StackingProof& proof, const SystemParams& params,
                    std::vector<Fp4>* u = nullptr, DuplexSponge* end = nullptr) {
  DuplexSponge t = hs.transcript;
  std::vector<Fp4> u_out;
  VerifyResult v = stacked_reduction_verify(t, proof, params, claims_of(hs), u_out);
  if (u) *u = u_out;
  if (end) *end = t;
  return v;
}

// ---------------------------------------------------------------------------------------------
// The naive host prover: the round polynomials from the definitions of protocol.md 10.2.

Fp4 lagrange_at(const std::vector<Fp>& chunk, uint32_t l, const Fp4& z) {
  Fp4 acc;
  const Fp omega = two_adic_generator(l);
  Fp w = Fp::one();
  for (const Fp& v : chunk) {
    acc += eval_eq_uni(l, Fp4(w), z) * v;
    w *= omega;
  }
  return acc;
}

// K_c(z, x) for boolean x (chunk index), from eq_prism, kappa_rot and in_{l,n}.
Fp4 kernel_at(const HostSetup& hs, size_t c, uint64_t col, const Fp4& z, uint64_t x, const Fp4& lambda,
              uint64_t first_slice) {
  const StackedLayout& layout = hs.layouts[c];
  const uint32_t l = layout.l_skip();
  Fp4 acc;
  uint64_t i = first_slice;
  for (const StackedSlice& s : layout.slices()) {
    const uint64_t idx = i++;
    if (s.stacked_col != col) continue;
    const int32_t n = int32_t(s.log_height) - int32_t(l);
    const uint32_t nt = n > 0 ? uint32_t(n) : 0;
    const uint64_t first = s.row_start >> l;
    if (x < first || x >= first + (uint64_t(1) << nt)) continue;
    const LiftedPoint rp = lifted_point(l, n, hs.r);
    std::vector<Fp4> point = {z};
    for (uint32_t k = 0; k < nt; ++k) point.push_back(((x - first) >> k) & 1 ? Fp4::one() : Fp4::zero());
    Fp4 k = eval_eq_prism(rp.L, point, rp.rs);
    if (hs.need_rot[c][s.matrix]) k += lambda * eval_rot_kernel_prism(rp.L, point, rp.rs);
    acc += lambda.pow(2 * idx) * eval_in_uni(l, n, z) * k;
  }
  return acc;
}

// sum_c sum_x q-hat_c(z, x) K_c(z, x): s'_0(z) by definition.
Fp4 s0_at(const HostSetup& hs, const Fp4& z, const Fp4& lambda) {
  Fp4 acc;
  uint64_t first_slice = 0;
  for (size_t c = 0; c < hs.layouts.size(); ++c) {
    const uint32_t l = hs.layouts[c].l_skip();
    const uint64_t n = uint64_t(1) << l;
    for (uint64_t col = 0; col < hs.columns[c].size(); ++col)
      for (uint64_t x = 0; x < (uint64_t(1) << hs.layouts[c].n_stack()); ++x) {
        std::vector<Fp> chunk(hs.columns[c][col].begin() + x * n, hs.columns[c][col].begin() + (x + 1) * n);
        acc += lagrange_at(chunk, l, z) * kernel_at(hs, c, col, z, x, lambda, first_slice);
      }
    first_slice += hs.layouts[c].slices().size();
  }
  return acc;
}

// Every round against the naive prover: s'_0 at random points and its sum over D, then the tables
// after u_0 folded round by round, with s_j(0) + s_j(1) = the previous claim.
void check_rounds(const Case& cs, const HostSetup& hs, const ProofRun& run) {
  const uint32_t l = cs.params.l_skip, n_stack = cs.params.n_stack;
  DuplexSponge t = hs.transcript;
  const Fp4 lambda = t.sample_ext();
  Fp4 claim;
  for (size_t i = 0; i < hs.claims.size(); i += 2) claim += (hs.claims[i] + lambda * hs.claims[i + 1]) * lambda.pow(i);
  const std::vector<Fp4>& s0 = run.proof.univariate_round_coeffs;
  ASSERT_EQ(sum_over_domain(l, s0), claim) << cs.what;
  for (const Fp4& z : ext_values(2, 77)) ASSERT_EQ(horner(s0, z), s0_at(hs, z, lambda)) << cs.what;
  // Tables after u_0: every stacked column's PLE at (u_0, x) and its kernel, all columns in a row.
  const Fp4 u0 = run.u[0];
  claim = horner(s0, u0);
  std::vector<Fp4> f, k;
  uint64_t first_slice = 0;
  for (size_t c = 0; c < hs.layouts.size(); ++c) {
    const uint64_t n = uint64_t(1) << l;
    for (uint64_t col = 0; col < hs.columns[c].size(); ++col)
      for (uint64_t x = 0; x < (uint64_t(1) << n_stack); ++x) {
        std::vector<Fp> chunk(hs.columns[c][col].begin() + x * n, hs.columns[c][col].begin() + (x + 1) * n);
        f.push_back(lagrange_at(chunk, l, u0));
        k.push_back(kernel_at(hs, c, col, u0, x, lambda, first_slice));
      }
    first_slice += hs.layouts[c].slices().size();
  }
  for (uint32_t j = 1; j <= n_stack; ++j) {
    Fp4 e0, e1, e2;
    for (size_t y = 0; y < f.size() / 2; ++y) {
      const Fp4 f0 = f[2 * y], f1 = f[2 * y + 1], k0 = k[2 * y], k1 = k[2 * y + 1];
      e0 += f0 * k0;
      e1 += f1 * k1;
      e2 += (f1 + f1 - f0) * (k1 + k1 - k0);
    }
    const auto& [v1, v2] = run.proof.sumcheck_round_polys[j - 1];
    ASSERT_EQ(v1, e1) << cs.what << " round " << j;
    ASSERT_EQ(v2, e2) << cs.what << " round " << j;
    ASSERT_EQ(e0 + e1, claim) << cs.what << " round " << j;
    claim = interpolate_quadratic(e0, e1, e2, run.u[j]);
    for (size_t y = 0; y < f.size() / 2; ++y) {
      f[y] = f[2 * y] + run.u[j] * (f[2 * y + 1] - f[2 * y]);
      k[y] = k[2 * y] + run.u[j] * (k[2 * y + 1] - k[2 * y]);
    }
    f.resize(f.size() / 2);
    k.resize(k.size() / 2);
  }
  Fp4 last;
  for (size_t i = 0; i < f.size(); ++i) last += f[i] * k[i];
  EXPECT_EQ(last, claim) << cs.what;
}

}  // namespace

class StackedReduction : public ExecutorTest {};
VKSTARK_INSTANTIATE_FOR_EXECUTORS(StackedReduction);

TEST_P(StackedReduction, ProofVerifiesAndOpensTheStackedColumnsAtU) {
  for (const Case& cs : cases()) {
    const HostSetup hs = host_setup(cs, 1);
    const ProofRun run = prove(exec(), cs, hs);
    std::vector<Fp4> u;
    DuplexSponge end;
    const VerifyResult v = verify(hs, run.proof, cs.params, &u, &end);
    ASSERT_TRUE(v.ok) << cs.what << ": " << v.reason;
    EXPECT_EQ(u, run.u) << cs.what;
    ASSERT_EQ(u.size(), 1u + cs.params.n_stack);
    // The device transcript ends where the verifier's does.
    const SpongeState host_end{end.state(), end.absorb_idx(), end.sample_idx()};
    std::vector<uint32_t> host_words(sizeof(SpongeState) / 4);
    std::memcpy(host_words.data(), &host_end, sizeof(SpongeState));
    EXPECT_EQ(run.state, host_words) << cs.what;
    for (size_t c = 0; c < hs.layouts.size(); ++c)
      for (size_t col = 0; col < hs.columns[c].size(); ++col)
        EXPECT_EQ(run.proof.stacking_openings[c][col], eval_ple(hs.columns[c][col], cs.params.l_skip, u))
            << cs.what << ": commitment " << c << " column " << col;
    EXPECT_EQ(run.trace.counters.host_tasks, 0u);
    EXPECT_LE(run.trace.counters.host_syncs, 2u);
  }
}

TEST_P(StackedReduction, RoundPolynomialsAreTheNaiveProversAndKeepTheSumcheckInvariant) {
  for (const Case& cs : cases()) {
    const HostSetup hs = host_setup(cs, 2);
    const ProofRun run = prove(exec(), cs, hs);
    check_rounds(cs, hs, run);
  }
}

TEST_P(StackedReduction, WhirOpensTheStackingOpeningsAtU) {
  for (const Case& cs : cases()) {
    const HostSetup hs = host_setup(cs, 7);
    const ProofRun run = prove(exec(), cs, hs, true);
    DuplexSponge t;
    std::vector<Fp4> u;
    const VerifyResult v = verify(hs, run.proof, cs.params, &u, &t);
    ASSERT_TRUE(v.ok) << cs.what << ": " << v.reason;
    WhirStatement st{run.roots, run.widths, {}, {}};
    for (uint32_t k = 0; k < cs.params.l_skip; ++k) st.u_cube.push_back(u[0].pow(uint64_t(1) << k));
    st.u_cube.insert(st.u_cube.end(), u.begin() + 1, u.end());
    for (const auto& col : run.proof.stacking_openings) st.openings.insert(st.openings.end(), col.begin(), col.end());
    const VerifyResult w = whir_verify(t, run.whir, cs.params, st);
    EXPECT_TRUE(w.ok) << cs.what << ": " << w.reason;
    // The openings are bound: WHIR rejects a changed one.
    st.openings[0] += Fp4::one();
    DuplexSponge t2;
    ASSERT_TRUE(verify(hs, run.proof, cs.params, nullptr, &t2).ok);
    const VerifyResult changed = whir_verify(t2, run.whir, cs.params, st);
    EXPECT_FALSE(changed.ok) << cs.what;
    EXPECT_TRUE(changed.in(RejectPhase::Whir)) << cs.what << ": " << changed.code;
  }
}

TEST(StackedReductionAcrossExecutors, ProofBytesAreIdentical) {
  for (const Case& cs : cases()) {
    const HostSetup hs = host_setup(cs, 3);
    const ProofRun cpu = prove(executor("cpu"), cs, hs);
    const ProofRun vk = prove(executor("vulkan"), cs, hs);
    ASSERT_EQ(cpu.words.size(), vk.words.size()) << cs.what;
    for (size_t i = 0; i < cpu.words.size(); ++i)
      EXPECT_EQ(cpu.words[i], vk.words[i]) << cs.what << ": proof word " << i;
    EXPECT_EQ(cpu.state, vk.state) << cs.what;
  }
}

// A changed value is caught by the first check it reaches: s'_0's sum over D sees only its
// coefficients of degree 0 mod 2^l_skip; any other value moves the last claim or the openings.
TEST(StackedReductionVerifier, RejectsEveryTamperedProofField) {
  const Case cs = cases()[1];
  const HostSetup hs = host_setup(cs, 4);
  const ProofRun run = prove(executor("cpu"), cs, hs);
  ASSERT_TRUE(verify(hs, run.proof, cs.params).ok);
  const Fp4 one = Fp4::one();
  const size_t N = size_t(1) << cs.params.l_skip;
  auto expect_rejected = [&](const StackingProof& p, StackedReductionReject code, const std::string& what) {
    const VerifyResult v = verify(hs, p, cs.params);
    EXPECT_FALSE(v.ok) << what;
    EXPECT_EQ(v.code, RejectCode(code)) << what << ": " << v.reason;
  };
  for (size_t i = 0; i < run.proof.univariate_round_coeffs.size(); ++i) {
    StackingProof p = run.proof;
    p.univariate_round_coeffs[i] += one;
    expect_rejected(p,
                    i % N == 0 ? StackedReductionReject::Round0SumMismatch : StackedReductionReject::OpeningsMismatch,
                    fmt::format("univariate_round_coeffs[{}]", i));
  }
  for (size_t j = 0; j < run.proof.sumcheck_round_polys.size(); ++j)
    for (size_t x = 0; x < 2; ++x) {
      StackingProof p = run.proof;
      p.sumcheck_round_polys[j][x] += one;
      expect_rejected(p, StackedReductionReject::OpeningsMismatch, fmt::format("sumcheck_round_polys[{}][{}]", j, x));
    }
  for (size_t c = 0; c < run.proof.stacking_openings.size(); ++c)
    for (size_t col = 0; col < run.proof.stacking_openings[c].size(); ++col) {
      StackingProof p = run.proof;
      p.stacking_openings[c][col] += one;
      expect_rejected(p, StackedReductionReject::OpeningsMismatch, fmt::format("stacking_openings[{}][{}]", c, col));
    }
  // Shapes: a missing or extra entry anywhere is a rejection, not a crash.
  {
    StackingProof p = run.proof;
    p.univariate_round_coeffs.pop_back();
    expect_rejected(p, StackedReductionReject::Shape, "a univariate coefficient missing");
    p = run.proof;
    p.sumcheck_round_polys.push_back({one, one});
    expect_rejected(p, StackedReductionReject::Shape, "an extra round");
    p = run.proof;
    p.stacking_openings[2].pop_back();
    expect_rejected(p, StackedReductionReject::Shape, "an opening missing");
    p = run.proof;
    p.stacking_openings.pop_back();
    expect_rejected(p, StackedReductionReject::Shape, "a commitment's openings missing");
  }
}

TEST(StackedReductionVerifier, RejectsAWrongClaim) {
  const Case cs = cases()[0];
  const HostSetup hs = host_setup(cs, 5);
  const ProofRun run = prove(executor("cpu"), cs, hs);
  ASSERT_TRUE(verify(hs, run.proof, cs.params).ok);
  for (size_t i : {size_t(0), size_t(1), hs.claims.size() - 2}) {
    HostSetup wrong = hs;
    wrong.claims[i] += Fp4::one();
    const VerifyResult v = verify(wrong, run.proof, cs.params);
    EXPECT_FALSE(v.ok) << "claim " << i;
    EXPECT_TRUE(v.is(StackedReductionReject::Round0SumMismatch)) << "claim " << i << ": " << v.code;
  }
  // r enters only the kernels of the last check.
  HostSetup wrong_r = hs;
  wrong_r.r[0] += Fp4::one();
  const VerifyResult v = verify(wrong_r, run.proof, cs.params);
  EXPECT_FALSE(v.ok);
  EXPECT_TRUE(v.is(StackedReductionReject::OpeningsMismatch)) << v.code;
  // A rotated claim where the AIR has no rotation is the caller's mistake.
  HostSetup bad = hs;
  bad.claims[2 * 2 + 1] = Fp4::one();  // slice 2: the second trace, need_rot false
  EXPECT_THROW((void)verify(bad, run.proof, cs.params), InputError);
  bad = hs;
  bad.claims.pop_back();
  EXPECT_THROW((void)verify(bad, run.proof, cs.params), InputError);
}

namespace {
// The steps of stacked-reduction round j in a compiled plan, from its first task to its last
// (tasks "stacked_reduction.round<j>.*"); dependent dispatches = barriers after the first + 1.
struct RoundSteps {
  uint32_t dispatches = 0, barriers = 0;
  std::string names;
};
RoundSteps round_steps(const Plan& p, uint32_t j) {
  const std::string prefix = fmt::format("stacked_reduction.round{}.", j);
  std::vector<const Step*> steps;
  for (const Segment& s : p.segments)
    for (const Step& st : s.steps) steps.push_back(&st);
  size_t first = steps.size(), last = 0;
  for (size_t i = 0; i < steps.size(); ++i)
    if (p.tasks[steps[i]->task].name.rfind(prefix, 0) == 0) {
      first = std::min(first, i);
      last = i;
    }
  RoundSteps r;
  for (size_t i = first; i <= last && first < steps.size(); ++i) {
    ++r.dispatches;
    r.names += p.tasks[steps[i]->task].name + " ";
    if (i > first && steps[i]->barrier != BarrierKind::None) ++r.barriers;
  }
  return r;
}
}  // namespace

TEST(StackedReductionPlan, EachRoundIsTwoDependentDispatches) {
  const Case cs = cases()[1];
  const HostSetup hs = host_setup(cs, 6);
  auto rg = build(cs, hs);
  const Plan p = compile(rg->graph);
  for (uint32_t j = 1; j <= cs.params.n_stack; ++j) {
    const RoundSteps r = round_steps(p, j);
    EXPECT_EQ(r.dispatches, 2u) << "round " << j << ": " << r.names;
    EXPECT_EQ(r.barriers, 1u) << "round " << j << ": " << r.names;
  }
  EXPECT_EQ(p.counts.host_tasks, 0u);
}

// The keccakf example's shape at a small size (2 permutations, stacked height 2^14): 2633 columns
// of 64 rows in one class (some read at the next row), 11 stacked columns.
TEST(StackedReductionAcrossExecutors, KeccakShapeProofBytesAreIdentical) {
  const Case cs{"keccak shape",
                app_params_with_100_bits_security(14),
                {{random_trace(1000, 6, true, 20), random_trace(1633, 6, false, 21)}}};
  const HostSetup hs = host_setup(cs, 5);
  const ProofRun cpu = prove(executor("cpu"), cs, hs);
  const ProofRun vk = prove(executor("vulkan"), cs, hs);
  ASSERT_EQ(cpu.words.size(), vk.words.size());
  size_t differ = 0;
  for (size_t i = 0; i < cpu.words.size(); ++i)
    if (cpu.words[i] != vk.words[i] && differ++ < 8) ADD_FAILURE() << "proof word " << i;
  EXPECT_EQ(differ, 0u);
  EXPECT_TRUE(verify(hs, cpu.proof, cs.params).ok);
  EXPECT_TRUE(verify(hs, vk.proof, cs.params).ok);
}
