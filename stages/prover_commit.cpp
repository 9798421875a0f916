#include "stages/prover_commit.hpp"

#include <fmt/format.h>

#include <bit>

namespace vkstark {

namespace {
uint32_t log_height_of(const AirWithTraces& a) { return uint32_t(std::countr_zero(a.common.height)); }
}  // namespace

std::vector<const StackedCommitment*> TraceCommitments::pointers() const {
  std::vector<const StackedCommitment*> out;
  for (const StackedCommitment& c : commits) out.push_back(&c);
  return out;
}

TraceCommitments commit_traces(Graph& g, Ntt& ntt, const ProvingKey& pk,
                               const std::vector<std::optional<AirWithTraces>>& airs, const ProofShape& s) {
  TraceCommitments c;
  const SystemParams& params = pk.params();
  std::vector<TraceView> common;
  std::vector<bool> common_rot;
  for (size_t T = 0; T < s.order.size(); ++T) {
    const AirWithTraces& a = *airs[s.order[T]];
    c.parts.emplace_back();
    size_t p = 0;
    for (const TraceMatrix& m : a.row_view_parts())
      c.parts.back().push_back(g.input<Fp>(fmt::format("trace{}.part{}", T, p++), m.values.size()));
    c.public_values.push_back(a.public_values.empty()
                                  ? Buffer<Fp>()
                                  : g.input<Fp>(fmt::format("trace{}.public_values", T), a.public_values.size()));
    common.push_back({c.parts.back().back().all(), a.common.width, log_height_of(a)});
    common_rot.push_back(pk.vk.per_air[s.order[T]].params.need_rot);
  }
  c.commits.push_back(stacked_commit(g, ntt, "common_main", common, params));
  c.need_rot.push_back(common_rot);
  for (size_t T = 0; T < s.order.size(); ++T) {
    const AirWithTraces& a = *airs[s.order[T]];
    const bool rot = pk.vk.per_air[s.order[T]].params.need_rot;
    const std::vector<TraceMatrix> parts = a.row_view_parts();
    const bool pre = pk.per_air[s.order[T]].shape.preprocessed_width > 0;
    c.preprocessed.push_back(pre ? int(c.commits.size()) : -1);
    c.first_cached.push_back(int(c.commits.size()) + (pre ? 1 : 0));
    for (size_t p = 0; p + 1 < parts.size(); ++p) {
      const TraceView v{c.parts[T][p].all(), parts[p].width, log_height_of(a)};
      c.commits.push_back(stacked_commit(g, ntt, fmt::format("trace{}.commit{}", T, p), std::span(&v, 1), params));
      c.need_rot.push_back({rot});
    }
  }
  return c;
}

void upload_traces(PreparedPlan& plan, const TraceCommitments& c, const std::vector<std::optional<AirWithTraces>>& airs,
                   const ProofShape& s) {
  for (size_t T = 0; T < s.order.size(); ++T) {
    const AirWithTraces& a = *airs[s.order[T]];
    // The parts in row-view order (AirWithTraces::row_view_parts), without copying the traces.
    const std::optional<TraceMatrix> pre = a.air->preprocessed_trace();
    if ((pre ? 1 : 0) + a.cached.size() + 1 != c.parts[T].size())
      throw InputError(fmt::format("prover: AIR {} has {} trace parts, its proof was prepared for {}", a.air->name(),
                                   (pre ? 1 : 0) + a.cached.size() + 1, c.parts[T].size()));
    size_t p = 0;
    if (pre) plan.upload(c.parts[T][p++], pre->values);
    for (const TraceMatrix& m : a.cached) plan.upload(c.parts[T][p++], m.values);
    plan.upload(c.parts[T][p], a.common.values);
    if (!a.public_values.empty()) plan.upload(c.public_values[T], a.public_values);
  }
}

}  // namespace vkstark
