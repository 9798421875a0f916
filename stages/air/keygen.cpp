#include "stages/air/keygen.hpp"

#include <fmt/format.h>

#include <bit>

#include "kernels/basic.hpp"
#include "runtime/kernel_abi.hpp"
#include "stages/common/ntt.hpp"
#include "stages/pcs/stacked.hpp"

namespace vkstark {

namespace {

// Each preprocessed trace alone through stacked_commit (protocol.md 4.4), all in one plan.
void commit_preprocessed(ProvingKey& pk, const SystemParams& params, Executor& executor) {
  struct Job {
    uint32_t air;
    Buffer<Fp> trace;
    Buffer<Digest> root;
    uint32_t stacking_width;
    int64_t hypercube_dim;
  };
  std::vector<Job> jobs;
  const uint32_t log_codeword = params.log_stacked_height() + params.log_blowup;
  Graph g;
  {
    auto span = g.span("keygen.preprocessed_commit");
    Ntt ntt(g, log_codeword);
    for (uint32_t i = 0; i < pk.per_air.size(); ++i) {
      const std::optional<TraceMatrix>& t = pk.per_air[i].preprocessed_trace;
      if (!t) continue;
      const std::string name = fmt::format("air{}.preprocessed", i);
      Buffer<Fp> trace = g.input<Fp>(name + ".trace", t->values.size());
      const uint32_t log_height = std::countr_zero(t->height);
      const TraceView view{trace.all(), t->width, log_height};
      StackedCommitment c = commit_stacked(g, ntt, name, std::span<const TraceView>(&view, 1), params);
      Buffer<Digest> root = g.output<Digest>(name + ".root", 1);
      g.dispatch<CopyU32>(name + ".save_root",
                          {.src = c.root().bitcast<uint32_t>(), .dst = root.all().bitcast<uint32_t>()});
      jobs.push_back({i, trace, root, c.layout.stacked_width(), int64_t(log_height) - int64_t(params.l_skip)});
    }
  }
  if (jobs.empty()) return;
  prepare_ntt_twiddles(executor, log_codeword);
  auto plan = executor.prepare(compile(std::move(g)));
  for (const Job& j : jobs) plan->upload(j.trace, pk.per_air[j.air].preprocessed_trace->values.span());
  Trace trace;
  plan->run(trace);
  for (const Job& j : jobs) {
    const Digest root = plan->download(j.root).at(0);
    pk.per_air[j.air].preprocessed_root = root;
    pk.vk.per_air[j.air].preprocessed_data = PreprocessedVerifierData{root, j.hypercube_dim, j.stacking_width};
  }
}

}  // namespace

ProvingKey keygen(std::span<const std::shared_ptr<const Air>> airs, const SystemParams& params, Executor& executor) {
  params.validate();
  if (airs.empty()) throw InputError("keygen: no AIRs");
  ProvingKey pk;
  pk.vk.params = params;
  for (size_t i = 0; i < airs.size(); ++i) {
    if (!airs[i]) throw InputError(fmt::format("keygen: AIR {} is null", i));
    pk.per_air.push_back(keygen_air(airs[i], params));
    pk.vk.per_air.push_back(verifying_key_entry(pk.per_air.back()));
  }
  pk.vk.trace_height_constraints = compute_trace_height_constraints(pk.vk.per_air, params);
  commit_preprocessed(pk, params, executor);
  pk.vk.pre_hash = vk_pre_hash(encode_vk_postcard(pk.vk));
  return pk;
}

ProvingKey keygen_from_vk(const MultiStarkVerifyingKey& vk, std::span<const std::shared_ptr<const Air>> airs,
                          Executor& executor) {
  if (airs.size() != vk.per_air.size())
    throw InputError(fmt::format("{} AIRs for a verifying key of {}", airs.size(), vk.per_air.size()));
  ProvingKey pk = keygen(airs, vk.params, executor);
  if (pk.vk == vk) return pk;
  for (size_t a = 0; a < airs.size(); ++a) {
    const StarkVerifyingKey& got = pk.vk.per_air[a];
    const StarkVerifyingKey& want = vk.per_air[a];
    const std::string name = pk.per_air[a].name;
    if (got.preprocessed_data && want.preprocessed_data && got.preprocessed_data != want.preprocessed_data)
      throw InputError(
          fmt::format("AIR {}: its preprocessed trace ({} x {} rows) is not the one the verifying key was "
                      "made with: it commits to {}, the key holds {}",
                      name, pk.per_air[a].preprocessed_trace->width, pk.per_air[a].preprocessed_trace->height,
                      to_hex(got.preprocessed_data->commit), to_hex(want.preprocessed_data->commit)));
    if (got != want)
      throw InputError(fmt::format("AIR {}: keygen gives another verifying key entry than the key's", name));
  }
  throw InputError("keygen gives the verifying key's AIRs but other trace-height constraints or params");
}

}  // namespace vkstark
