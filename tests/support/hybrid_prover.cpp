#include "tests/support/hybrid_prover.hpp"

#include <bit>
#include <memory>

#include "runtime/plan.hpp"
#include "stages/preamble/commit_traces.hpp"
#include "stages/prover_phases.hpp"
#include "tests/support/model_batch_prover.hpp"

namespace vkstark {

namespace {

uint32_t log_height_of(const AirWithTraces& a) { return uint32_t(std::countr_zero(a.common.height)); }

// One device run of some of the proof's phases: the proof set up as the prover does (the
// commitments recomputed, every part of the proof reserved), the transcript fresh or from a host
// state (ProofSetupOptions::transcript_in), r an Input where given.
struct Run {
  Graph g;
  ProofSetup p;
  std::optional<Buffer<Fp4>> r_in;
  SpongeState state{};  // for p.transcript_in
  std::vector<Fp4> r;   // for r_in

  Run(const ProvingKey& pk, const std::vector<std::optional<AirWithTraces>>& airs, const ProofShape& s,
      AirKernels& kernels, size_t r_len)
      : p(g, pk, airs, s, kernels, {.transcript_in = r_len != 0}) {
    if (r_len == 0) return;
    r_in = g.input<Fp4>("r", r_len);
    p.context.r = r_in->all();
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
  // The interactions' kernels as the prover makes them; the functionals' are never made (the
  // constraint sumcheck runs on the host).
  AirKernels kernels(pk, exec, Round0Kernels::Interpreted, false);

  Proof proof;
  for (size_t a = 0; a < airs.size(); ++a) {
    proof.public_values.push_back(airs[a] ? airs[a]->public_values : std::vector<Fp>{});
    proof.trace_vdata.push_back(std::nullopt);
  }
  // The prover's phases (kProofPhases) on the device, but for the batch constraint sumcheck: the
  // phases before it in run 1, the model on the host from run 1's transcript state and xi, the
  // phases after it in run 2 from the model's transcript state and r.
  auto run = std::make_unique<Run>(pk, airs, s, kernels, 0);
  for (Phase phase : kProofPhases) {
    if (phase != Phase::BatchConstraint) {
      prove_phase(phase, run->p.context);
      continue;
    }
    end_phases(run->p.context);
    Graph& g = run->g;
    Buffer<Fp4> xi_out = download_copy(g, "xi.out", run->p.context.xi);
    Buffer<Fp4> beta_out = download_copy(g, "beta.out", run->p.context.beta);
    Buffer<SpongeState> state_out = download_copy(g, "transcript.out", run->p.t.state().all());
    auto plan = exec.prepare(compile(g));
    upload_traces(*plan, run->p.commits, pk, airs, s);
    Trace trace;
    plan->run(trace);
    proof.gkr_proof = run->p.regions.gkr->decode(plan->download(run->p.layout.buffer()));
    proof.common_main_commit = plan->download(run->p.roots[0])[0];
    for (size_t T = 0; T < s.order.size(); ++T) {
      TraceVData d{log_height_of(*airs[s.order[T]]), {}};
      for (size_t i = 0; i < vk.per_air[s.order[T]].params.width.cached_mains.size(); ++i)
        d.cached_commitments.push_back(plan->download(run->p.roots[run->p.commits.first_cached[T] + i])[0]);
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

    run = std::make_unique<Run>(pk, airs, s, kernels, batch.r.size());
    run->state = SpongeState{host_transcript.state(), host_transcript.absorb_idx(), host_transcript.sample_idx()};
    run->r = batch.r;
  }
  end_phases(run->p.context);
  auto plan = exec.prepare(compile(run->g));
  upload_traces(*plan, run->p.commits, pk, airs, s);
  plan->upload(*run->p.transcript_in, std::vector<SpongeState>{run->state});
  plan->upload(*run->r_in, run->r);
  Trace trace;
  plan->run(trace);
  const std::vector<uint32_t> words = plan->download(run->p.layout.buffer());
  proof.stacking_proof = run->p.regions.stacking->decode(words);
  proof.whir_proof = run->p.regions.whir->decode(words);
  return proof;
}

}  // namespace vkstark
