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
  std::optional<Graph::GroupScope> group(g.memory_group("trace"));
  for (size_t T = 0; T < s.order.size(); ++T) {
    const AirWithTraces& a = *airs[s.order[T]];
    c.parts.emplace_back();
    size_t p = 0;
    std::optional<TraceMatrix> pre;
    for (const TraceMatrix* m : a.row_view_part_refs(pre))
      c.parts.back().push_back(g.input<Fp>(fmt::format("trace{}.part{}", T, p++), m->values.size()));
    c.public_values.push_back(a.public_values.empty()
                                  ? Buffer<Fp>()
                                  : g.input<Fp>(fmt::format("trace{}.public_values", T), a.public_values.size()));
    common.push_back({c.parts.back().back().all(), a.common.width, log_height_of(a)});
    common_rot.push_back(pk.vk.per_air[s.order[T]].params.need_rot);
  }
  group.reset();
  c.commits.push_back(stacked_commit(g, ntt, "common_main", common, params));
  c.need_rot.push_back(common_rot);
  for (size_t T = 0; T < s.order.size(); ++T) {
    const AirWithTraces& a = *airs[s.order[T]];
    const bool rot = pk.vk.per_air[s.order[T]].params.need_rot;
    std::optional<TraceMatrix> preprocessed;
    const std::vector<const TraceMatrix*> parts = a.row_view_part_refs(preprocessed);
    const bool pre = pk.per_air[s.order[T]].shape.preprocessed_width > 0;
    c.preprocessed.push_back(pre ? int(c.commits.size()) : -1);
    c.first_cached.push_back(int(c.commits.size()) + (pre ? 1 : 0));
    for (size_t p = 0; p + 1 < parts.size(); ++p) {
      const TraceView v{c.parts[T][p].all(), parts[p]->width, log_height_of(a)};
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
    std::optional<TraceMatrix> pre;
    const std::vector<const TraceMatrix*> parts = a.row_view_part_refs(pre);  // no copy of the traces
    if (parts.size() != c.parts[T].size())
      throw InputError(fmt::format("prover: AIR {} has {} trace parts, its proof was prepared for {}", a.air->name(),
                                   parts.size(), c.parts[T].size()));
    for (size_t p = 0; p < parts.size(); ++p) plan.upload(c.parts[T][p], parts[p]->values);
    if (!a.public_values.empty()) plan.upload(c.public_values[T], a.public_values);
  }
}

}  // namespace vkstark
