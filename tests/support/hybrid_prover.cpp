#include "tests/support/hybrid_prover.hpp"

#include <fmt/format.h>

#include <bit>
#include <functional>
#include <map>
#include <memory>

#include "kernels/basic.hpp"
#include "runtime/plan.hpp"
#include "stages/common/ntt.hpp"
#include "stages/preamble/commit_traces.hpp"
#include "stages/prover_phases.hpp"
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

// One device run of some of the proof's phases: the commitments recomputed, every part of the proof
// reserved, the transcript fresh or from a host state (an Input), r an Input where given.
struct Run {
  Graph g;
  Ntt ntt;
  TraceCommitments c;
  ProofLayout layout;
  ProofRegions regions;
  std::vector<Buffer<Digest>> roots;
  std::optional<Buffer<SpongeState>> state_in;
  std::optional<Buffer<Fp4>> r_in;
  std::optional<DeviceTranscript> t;
  std::unique_ptr<ProverContext> context;  // its members are not movable
  SpongeState state{};                     // for state_in
  std::vector<Fp4> r;                      // for r_in

  Run(const ProvingKey& pk, const std::vector<std::optional<AirWithTraces>>& airs, const ProofShape& s,
      const std::function<const InteractionKernels&(uint32_t, bool)>& interactions, size_t r_len)
      : ntt(g, pk.vk.params.log_stacked_height() + pk.vk.params.log_blowup) {
    c = commit_traces(g, ntt, pk, airs, s);
    regions = ProofRegions::reserve(layout, s);
    layout.create_buffer(g);
    for (size_t i = 0; i < c.commits.size(); ++i)
      roots.push_back(download_copy(g, fmt::format("root{}", i), c.commits[i].root()));
    if (r_len == 0) {
      t.emplace(g, "transcript");
    } else {
      state_in = g.input<SpongeState>("transcript.in", 1);
      r_in = g.input<Fp4>("r", r_len);
      t.emplace(g, "transcript", state_in->all());
    }
    context.reset(new ProverContext{.g = g,
                                    .t = *t,
                                    .ntt = ntt,
                                    .pk = pk,
                                    .airs = airs,
                                    .shape = s,
                                    .commits = c,
                                    .layout = layout,
                                    .regions = regions,
                                    .interaction_kernels = interactions,
                                    .functional_kernels = [](uint32_t) -> const AirFunctionalKernels& {
                                      throw GraphError("hybrid prover: the constraint sumcheck runs on the host");
                                    }});
    if (r_in) context->r = r_in->all();
  }
};

}  // namespace

Proof hybrid_prove(const ProvingKey& pk, const std::vector<std::optional<AirWithTraces>>& airs, Executor& exec) {
  const MultiStarkVerifyingKey& vk = pk.vk;
  const SystemParams& params = vk.params;
  std::vector<std::optional<uint32_t>> heights;
  for (const auto& a : airs) heights.push_back(a ? std::optional<uint32_t>(log_height_of(*a)) : std::nullopt);
  const ProofShape s = proof_shape(vk, heights);
  prepare_ntt_twiddles(exec, params.log_stacked_height() + params.log_blowup);
  std::map<std::pair<uint32_t, bool>, std::shared_ptr<const InteractionKernels>> kernels;
  auto interactions = [&](uint32_t air, bool compact) -> const InteractionKernels& {
    auto& k = kernels[{air, compact}];
    if (!k) k = make_interaction_kernels(pk.per_air[air], {}, compact);
    return *k;
  };

  Proof proof;
  for (size_t a = 0; a < airs.size(); ++a) {
    proof.public_values.push_back(airs[a] ? airs[a]->public_values : std::vector<Fp>{});
    proof.trace_vdata.push_back(std::nullopt);
  }
  // The prover's phases (kProofPhases) on the device, but for the batch constraint sumcheck: the
  // phases before it in run 1, the model on the host from run 1's transcript state and xi, the
  // phases after it in run 2 from the model's transcript state and r.
  auto run = std::make_unique<Run>(pk, airs, s, interactions, 0);
  for (Phase phase : kProofPhases) {
    if (phase != Phase::BatchConstraint) {
      prove_phase(phase, *run->context);
      continue;
    }
    end_phases(*run->context);
    Graph& g = run->g;
    Buffer<Fp4> xi_out = download_copy(g, "xi.out", run->context->xi);
    Buffer<Fp4> beta_out = download_copy(g, "beta.out", run->context->beta);
    Buffer<SpongeState> state_out = download_copy(g, "transcript.out", run->t->state().all());
    auto plan = exec.prepare(compile(g));
    upload_traces(*plan, run->c, pk, airs, s);
    Trace trace;
    plan->run(trace);
    proof.gkr_proof = run->regions.gkr->decode(plan->download(run->layout.buffer()));
    proof.common_main_commit = plan->download(run->roots[0])[0];
    for (size_t T = 0; T < s.order.size(); ++T) {
      TraceVData d{log_height_of(*airs[s.order[T]]), {}};
      for (size_t i = 0; i < vk.per_air[s.order[T]].params.width.cached_mains.size(); ++i)
        d.cached_commitments.push_back(plan->download(run->roots[run->c.first_cached[T] + i])[0]);
      proof.trace_vdata[s.order[T]] = d;
    }
    const SpongeState st = plan->download(state_out)[0];
    DuplexSponge host_transcript = DuplexSponge::from_state(st.state, st.absorb_idx, st.sample_idx);

    // protocol.md 7 step 5 on the host.
    ModelBatchInput in;
    in.pk = &pk;
    in.order = s.order;
    for (uint32_t a : s.order) {
      in.parts.push_back(airs[a]->row_view_parts());
      in.public_values.push_back(airs[a]->public_values);
    }
    in.row_start = s.logup.row_start;
    in.n_logup = s.logup.n_logup;
    in.beta = plan->download(beta_out)[0];
    in.xi = plan->download(xi_out);
    in.allow_violations = true;  // an invalid witness gives a proof for the verifier to reject
    const ModelBatchOutput batch = model_batch_prove(host_transcript, in);
    proof.batch_constraint_proof = batch.proof;

    run = std::make_unique<Run>(pk, airs, s, interactions, batch.r.size());
    run->state = SpongeState{host_transcript.state(), host_transcript.absorb_idx(), host_transcript.sample_idx()};
    run->r = batch.r;
  }
  end_phases(*run->context);
  auto plan = exec.prepare(compile(run->g));
  upload_traces(*plan, run->c, pk, airs, s);
  plan->upload(*run->state_in, std::vector<SpongeState>{run->state});
  plan->upload(*run->r_in, run->r);
  Trace trace;
  plan->run(trace);
  const std::vector<uint32_t> words = plan->download(run->layout.buffer());
  proof.stacking_proof = run->regions.stacking->decode(words);
  proof.whir_proof = run->regions.whir->decode(words);
  return proof;
}

}  // namespace vkstark
