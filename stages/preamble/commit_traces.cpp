#include "stages/preamble/commit_traces.hpp"

#include <fmt/format.h>

#include <bit>
#include <map>

namespace vkstark {

namespace {
uint32_t log_height_of(const AirWithTraces& a) { return uint32_t(std::countr_zero(a.common.height)); }

// An AIR's parts in row-view order, the preprocessed one from the key (not made again), with the
// commitment each was made in once (or null).
struct PartRef {
  const TraceMatrix* matrix = nullptr;
  const CommittedTrace* committed = nullptr;
};
std::vector<PartRef> part_refs(const ProvingKey& pk, uint32_t air, const AirWithTraces& a,
                               const std::vector<std::shared_ptr<const CommittedTrace>>& preprocessed) {
  std::vector<PartRef> out;
  if (const auto& pre = pk.per_air[air].preprocessed_trace)
    out.push_back({&*pre, air < preprocessed.size() ? preprocessed[air].get() : nullptr});
  for (size_t i = 0; i < a.cached.size(); ++i)
    out.push_back({&a.cached_part(i), a.is_committed(i) ? a.committed[i].get() : nullptr});
  out.push_back({&a.common, nullptr});
  return out;
}

// The traces' views for the commitments, per sorted trace in row-view order.
struct TraceInputs {
  // A part below 2^l_skip rows is an Input of its own (stacked by a copy); the others live in place.
  std::vector<std::vector<TraceView>> views;
  std::vector<std::vector<Buffer<Fp>>> own;  // per part: its own Input (or none)
  std::vector<TraceView> common;             // per trace: its common main part
  std::vector<bool> common_rot;              // per trace: need_rot
};

// Declares the traces' Inputs (and the Persistent buffers of the parts committed once, in
// c.committed) and the public values' Inputs (c.public_values).
TraceInputs declare_traces(Graph& g, const ProvingKey& pk, const std::vector<std::optional<AirWithTraces>>& airs,
                           const ProofShape& s, const std::vector<std::shared_ptr<const CommittedTrace>>& preprocessed,
                           TraceCommitments& c) {
  const SystemParams& params = pk.params();
  TraceInputs in;
  in.views.resize(s.order.size());
  in.own.resize(s.order.size());
  auto view_of = [&](size_t T, size_t p, const TraceMatrix& m, uint32_t log_height) -> TraceView {
    if (log_height >= params.l_skip) {
      in.own[T].emplace_back();
      return {View<Fp>{}, m.width, log_height};
    }
    auto group = g.memory_group("trace");
    in.own[T].push_back(g.input<Fp>(fmt::format("trace{}.part{}", T, p), m.values.size()));
    return {in.own[T].back().all(), m.width, log_height};
  };
  c.committed.resize(s.order.size());
  std::map<std::string, Buffer<Fp>> traces_of;  // committed id -> its values
  for (size_t T = 0; T < s.order.size(); ++T) {
    const AirWithTraces& a = *airs[s.order[T]];
    size_t p = 0;
    for (const PartRef& r : part_refs(pk, s.order[T], a, preprocessed)) {
      if (r.committed) {
        // Its values where the commitment left them (the evaluations; its message is the RS message).
        // (Declared once per graph: AIRs with equal preprocessed traces share one commitment.)
        auto [it, fresh] = traces_of.try_emplace(r.committed->id);
        if (fresh) it->second = g.persistent<Fp>(r.committed->id + ".trace", r.matrix->values.size());
        in.own[T].push_back(it->second);
        in.views[T].push_back({in.own[T].back().all(), r.matrix->width, log_height_of(a)});
        c.committed[T].push_back(r.committed->id);
      } else {
        in.views[T].push_back(view_of(T, p, *r.matrix, log_height_of(a)));
        c.committed[T].emplace_back();
      }
      ++p;
    }
    {
      auto group = g.memory_group("trace");
      c.public_values.push_back(a.public_values.empty()
                                    ? Buffer<Fp>()
                                    : g.input<Fp>(fmt::format("trace{}.public_values", T), a.public_values.size()));
    }
    in.common.push_back(in.views[T].back());
    in.common_rot.push_back(pk.vk.per_air[s.order[T]].params.need_rot);
  }
  return in;
}

// Part p of trace T: its own Input, or where its commitment `sc` stored it (as matrix `matrix`).
TracePart trace_part(const TraceInputs& in, size_t T, size_t p, const StackedCommitment& sc, size_t matrix) {
  const TraceView& v = in.views[T][p];
  if (v.in_place()) return sc.in_place[matrix];
  TracePart part;
  part.width = v.width;
  part.log_height = v.log_height;
  if (v.width > 0) part.segments.push_back({v.data, 0, v.width, in.own[T][p]});
  return part;
}
}  // namespace

std::vector<const StackedCommitment*> TraceCommitments::pointers() const {
  std::vector<const StackedCommitment*> out;
  for (const StackedCommitment& c : commits) out.push_back(&c);
  return out;
}

TraceCommitments commit_traces(Graph& g, Ntt& ntt, const ProvingKey& pk,
                               const std::vector<std::optional<AirWithTraces>>& airs, const ProofShape& s,
                               const std::vector<std::shared_ptr<const CommittedTrace>>& preprocessed,
                               uint64_t kept_codeword_bytes, bool keep_narrow) {
  TraceCommitments c;
  const SystemParams& params = pk.params();
  const TraceInputs in = declare_traces(g, pk, airs, s, preprocessed, c);
  std::map<std::string, StackedCommitment> commitments_of;  // committed id -> its commitment
  uint64_t keep_left = kept_codeword_bytes;
  // Traces kept in the stacked matrix; the codeword's columns while the budget lasts.
  auto keep = [&]() {
    const uint64_t column = uint64_t(sizeof(Fp)) << (params.log_stacked_height() + params.log_blowup);
    const uint64_t cols = std::min<uint64_t>(keep_left / column, ~0u);
    // Nothing kept is the low-memory mode: smaller batches (16 rather than 8).
    return StackedCommitOptions{.keep_traces = true,
                                .kept_codeword_columns = uint32_t(cols),
                                .keep_narrow = keep_narrow,
                                .batches = kept_codeword_bytes == 0 ? 16u : 8u};
  };
  auto took = [&](const StackedCommitment& sc) {
    keep_left -= std::min(keep_left, uint64_t(sc.kept_columns) * sc.codeword_column_bytes());
  };
  c.commits.push_back(commit_stacked(g, ntt, "common_main", in.common, params, keep()));
  took(c.commits.back());
  c.names.push_back("common_main");
  c.need_rot.push_back(in.common_rot);
  c.parts.resize(s.order.size());
  for (size_t T = 0; T < s.order.size(); ++T) {
    const bool rot = pk.vk.per_air[s.order[T]].params.need_rot;
    const bool pre = pk.per_air[s.order[T]].shape.preprocessed_width > 0;
    c.preprocessed.push_back(pre ? int(c.commits.size()) : -1);
    c.first_cached.push_back(int(c.commits.size()) + (pre ? 1 : 0));
    for (size_t p = 0; p + 1 < in.views[T].size(); ++p) {
      const std::string name = fmt::format("trace{}.commit{}", T, p);
      if (!c.committed[T][p].empty()) {
        auto it = commitments_of.find(c.committed[T][p]);
        if (it == commitments_of.end())
          it = commitments_of
                   .emplace(c.committed[T][p],
                            stacked_commitment_of(g, c.committed[T][p], std::span(&in.views[T][p], 1), params))
                   .first;
        c.commits.push_back(it->second);
      } else {
        c.commits.push_back(commit_stacked(g, ntt, name, std::span(&in.views[T][p], 1), params, keep()));
        took(c.commits.back());
      }
      c.names.push_back(name);
      c.need_rot.push_back({rot});
      c.parts[T].push_back(trace_part(in, T, p, c.commits.back(), 0));
    }
    c.parts[T].push_back(trace_part(in, T, in.views[T].size() - 1, c.commits[0], T));
  }
  return c;
}

void finish_messages(Graph& g, TraceCommitments& c) {
  for (size_t i = 0; i < c.commits.size(); ++i) finish_message(g, c.commits[i], c.names[i]);
}

void upload_traces(PreparedPlan& plan, const TraceCommitments& c, const ProvingKey& pk,
                   const std::vector<std::optional<AirWithTraces>>& airs, const ProofShape& s,
                   const std::vector<std::shared_ptr<const CommittedTrace>>& preprocessed) {
  for (size_t T = 0; T < s.order.size(); ++T) {
    const AirWithTraces& a = *airs[s.order[T]];
    const std::vector<PartRef> parts = part_refs(pk, s.order[T], a, preprocessed);  // no copy of the traces
    if (parts.size() != c.parts[T].size())
      throw InputError(fmt::format("prover: AIR {} has {} trace parts, its proof was prepared for {}", a.air->name(),
                                   parts.size(), c.parts[T].size()));
    for (size_t p = 0; p < parts.size(); ++p) {
      const std::string given = parts[p].committed ? parts[p].committed->id : std::string();
      if (given != c.committed[T][p])
        throw InputError(
            fmt::format("prover: AIR {} trace part {} is {}, its proof was prepared with {}: prepare the proof again",
                        a.air->name(), p,
                        given.empty() ? std::string("given as values") : fmt::format("the committed trace {}", given),
                        c.committed[T][p].empty() ? std::string("values")
                                                  : fmt::format("the committed trace {}", c.committed[T][p])));
      if (!given.empty()) continue;  // on the device since it was committed
      const TracePart& part = c.parts[T][p];
      const TraceValues& values = parts[p].matrix->values;
      const uint64_t rows = uint64_t(1) << part.log_height;
      if (values.size() != uint64_t(part.width) * rows)
        throw InputError(fmt::format("prover: AIR {} part {} has {} values, its proof was prepared for {} x 2^{}",
                                     a.air->name(), p, values.size(), part.width, part.log_height));
      for (const TracePart::Segment& seg : part.segments) {
        const std::span<const Fp> cols(values.data() + seg.first_column * rows, uint64_t(seg.columns) * rows);
        if (seg.data.offset == 0 && seg.data.count == seg.buffer.count())
          plan.upload(seg.buffer, cols);  // the whole buffer: its own Input, or a stacked matrix it fills
        else
          plan.upload(seg.buffer, seg.data.offset, cols);  // its place in the stacked matrix
      }
    }
    if (!a.public_values.empty()) plan.upload(c.public_values[T], a.public_values);
  }
}

}  // namespace vkstark
