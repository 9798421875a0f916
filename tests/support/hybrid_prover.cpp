#include "tests/support/hybrid_prover.hpp"

#include <fmt/format.h>

#include <bit>

#include "kernels/basic.hpp"
#include "kernels/whir.hpp"
#include "runtime/plan.hpp"
#include "stages/gkr/input.hpp"
#include "stages/gkr/prover.hpp"
#include "stages/ntt.hpp"
#include "stages/pcs/stacked.hpp"
#include "stages/preamble.hpp"
#include "stages/prover_commit.hpp"
#include "stages/reduction/prover.hpp"
#include "stages/whir/prover.hpp"
#include "tests/support/model_batch_prover.hpp"

namespace vkstark {

namespace {

uint32_t log_height_of(const AirWithTraces& a) { return uint32_t(std::countr_zero(a.common.height)); }

template <class T>
Buffer<T> download_copy(Graph& g, const std::string& name, View<T> v) {
  Buffer<T> out = g.output<T>(name, v.count);
  g.dispatch<CopyU32>(name, {.src = v.template bitcast<uint32_t>(), .dst = out.all().template bitcast<uint32_t>()});
  return out;
}

}  // namespace

Proof hybrid_prove(const ProvingKey& pk, const std::vector<std::optional<AirWithTraces>>& airs, Executor& exec) {
  const MultiStarkVerifyingKey& vk = pk.vk;
  const SystemParams& params = vk.params;
  std::vector<std::optional<uint32_t>> heights;
  for (const auto& a : airs) heights.push_back(a ? std::optional<uint32_t>(log_height_of(*a)) : std::nullopt);
  const ProofShape s = proof_shape(vk, heights);
  const uint32_t log_n = params.log_stacked_height() + params.log_blowup;
  prepare_ntt_twiddles(exec, log_n);
  const uint32_t l = params.l_skip, n_global = std::max(s.batch.n_max, s.logup.n_logup);

  Proof proof;
  for (size_t a = 0; a < airs.size(); ++a) {
    proof.public_values.push_back(airs[a] ? airs[a]->public_values : std::vector<Fp>{});
    proof.trace_vdata.push_back(std::nullopt);
  }

  // Run 1: commitments, preamble, LogUp (protocol.md 7 steps 1-4).
  DuplexSponge host_transcript;
  std::vector<Fp4> xi;
  Fp4 alpha, beta;
  {
    Graph g;
    Ntt ntt(g, log_n);
    TraceCommitments c = commit_traces(g, ntt, pk, airs, s);
    ProofLayout layout;
    auto regions = PartRegions<GkrProof>::reserve(layout, [x = s.gkr](auto& v, GkrProof& p) { gkr_fields(v, p, &x); });
    layout.create_buffer(g);
    std::vector<Buffer<Digest>> roots;
    for (size_t i = 0; i < c.commits.size(); ++i)
      roots.push_back(download_copy(g, fmt::format("root{}", i), c.commits[i].root()));
    DeviceTranscript t(g, "transcript");
    std::vector<PreambleAir> preamble(airs.size());
    for (size_t T = 0; T < s.order.size(); ++T) {
      const uint32_t a = s.order[T];
      PreambleAir& p = preamble[a];
      p.present = true;
      p.log_height = log_height_of(*airs[a]);
      if (c.preprocessed[T] >= 0) p.preprocessed_root = c.commits[c.preprocessed[T]].root();
      for (size_t i = 0; i < vk.per_air[a].params.width.cached_mains.size(); ++i)
        p.cached_roots.push_back(c.commits[c.first_cached[T] + i].root());
      if (c.public_values[T].valid()) p.public_values = c.public_values[T].all();
    }
    observe_preamble(g, t, vk, c.commits[0].root(), preamble);
    const GkrProofViews views = gkr_proof_views(layout, regions, regions.proto());
    const GkrChallenges ch = gkr_grind_and_challenges(g, t, views, params);
    View<Fp4> xi_all = g.transient<Fp4>("xi", l + n_global).all();
    uint32_t have = 0;
    if (s.gkr.layers == 0) {
      g.dispatch<CopyU32>("q0_claim.one",
                          {.src = g.constant<Fp4>("one", std::vector<Fp4>{Fp4::one()}).all().bitcast<uint32_t>(),
                           .dst = views.q0_claim.bitcast<uint32_t>()});
    } else {
      std::vector<std::shared_ptr<const InteractionKernels>> kernels;
      std::vector<LogupInputTrace> traces;
      for (size_t T = 0; T < s.order.size(); ++T) {
        kernels.push_back(make_interaction_kernels(pk.per_air[s.order[T]]));
        LogupInputTrace tr;
        tr.air = &pk.per_air[s.order[T]];
        tr.kernels = kernels.back().get();
        for (const TracePart& part : c.parts[T]) tr.parts.push_back(part.whole("hybrid prover"));
        if (c.public_values[T].valid()) tr.public_values = c.public_values[T].all();
        tr.log_height = log_height_of(*airs[s.order[T]]);
        traces.push_back(std::move(tr));
      }
      const uint64_t leaves = uint64_t(1) << s.gkr.layers;
      View<Fp4> p = g.transient<Fp4>("gkr.p", leaves).all(), q = g.transient<Fp4>("gkr.q", leaves).all();
      add_logup_input_layer(g, t, traces, s.logup, l, ch.alpha, ch.beta, p, q);
      const View<Fp4> gkr_xi = gkr_prove(g, t, views, p, q, s.gkr.layers);
      g.dispatch<CopyU32>(
          "xi.gkr", {.src = gkr_xi.bitcast<uint32_t>(), .dst = xi_all.slice(0, s.gkr.layers).bitcast<uint32_t>()});
      have = s.gkr.layers;
    }
    if (have < l + n_global) t.sample_ext(xi_all.slice(have, l + n_global - have));
    Buffer<Fp4> xi_out = download_copy(g, "xi.out", xi_all);
    Buffer<Fp4> alpha_out = download_copy(g, "alpha.out", ch.alpha), beta_out = download_copy(g, "beta.out", ch.beta);
    Buffer<SpongeState> state_out = download_copy(g, "transcript.out", t.state().all());

    auto plan = exec.prepare(compile(g));
    upload_traces(*plan, c, pk, airs, s);
    Trace trace;
    plan->run(trace);
    proof.gkr_proof = regions.decode(plan->download(layout.buffer()));
    proof.common_main_commit = plan->download(roots[0])[0];
    for (size_t T = 0; T < s.order.size(); ++T) {
      TraceVData d{log_height_of(*airs[s.order[T]]), {}};
      for (size_t i = 0; i < vk.per_air[s.order[T]].params.width.cached_mains.size(); ++i)
        d.cached_commitments.push_back(plan->download(roots[c.first_cached[T] + i])[0]);
      proof.trace_vdata[s.order[T]] = d;
    }
    xi = plan->download(xi_out);
    alpha = plan->download(alpha_out)[0];
    beta = plan->download(beta_out)[0];
    const SpongeState st = plan->download(state_out)[0];
    host_transcript = DuplexSponge::from_state(st.state, st.absorb_idx, st.sample_idx);
  }

  // The batch constraint sumcheck on the host (protocol.md 7 step 5).
  ModelBatchInput in;
  in.pk = &pk;
  in.order = s.order;
  for (uint32_t a : s.order) {
    in.parts.push_back(airs[a]->row_view_parts());
    in.public_values.push_back(airs[a]->public_values);
  }
  in.row_start = s.logup.row_start;
  in.n_logup = s.logup.n_logup;
  in.beta = beta;
  in.xi = xi;
  in.allow_violations = true;  // an invalid witness gives a proof for the verifier to reject
  const ModelBatchOutput batch = model_batch_prove(host_transcript, in);
  proof.batch_constraint_proof = batch.proof;
  (void)alpha;

  // Run 2: stacked reduction and WHIR (steps 6, 7), from the host transcript's state.
  {
    Graph g;
    Ntt ntt(g, log_n);
    TraceCommitments c = commit_traces(g, ntt, pk, airs, s);
    finish_messages(g, c);
    ProofLayout layout;
    auto stacking = PartRegions<StackingProof>::reserve(
        layout, [x = s.stacking](auto& v, StackingProof& p) { stacking_fields(v, p, &x); });
    auto whir = reserve_whir_regions(layout, s.whir);
    layout.create_buffer(g);
    Buffer<SpongeState> state = g.input<SpongeState>("transcript.in", 1);
    Buffer<Fp4> r = g.input<Fp4>("r", batch.r.size());
    DeviceTranscript t(g, "transcript", state.all());
    const View<Fp4> u = stacked_reduction_prove(g, t, stacking_proof_views(layout, stacking, stacking.proto()), params,
                                                {c.pointers(), c.need_rot, r.all()});
    View<Fp4> cube = g.transient<Fp4>("u_cube", params.log_stacked_height()).all();
    g.dispatch<UCube>("u_cube", {.u = u, .cube = cube, .l_skip = l});
    WhirOpening opening{c.pointers(), cube};
    whir_prove(g, ntt, t, layout, whir, s.whir, params, opening);
    auto plan = exec.prepare(compile(g));
    upload_traces(*plan, c, pk, airs, s);
    SpongeState st{host_transcript.state(), host_transcript.absorb_idx(), host_transcript.sample_idx()};
    plan->upload(state, std::vector<SpongeState>{st});
    plan->upload(r, batch.r);
    Trace trace;
    plan->run(trace);
    const std::vector<uint32_t> words = plan->download(layout.buffer());
    proof.stacking_proof = stacking.decode(words);
    proof.whir_proof = whir.decode(words);
  }
  return proof;
}

}  // namespace vkstark
