#include "stages/air/debug_check.hpp"

#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <optional>
#include <unordered_map>

#include <fmt/format.h>

#include "runtime/error.hpp"
#include "stages/air/dag.hpp"
#include "stages/air/eval.hpp"

namespace vkstark {

namespace {

constexpr uint32_t kRowsPerTask = 256;
constexpr size_t kSamplesPerSign = 3;  // senders and receivers named per unbalanced message
constexpr size_t kColumnsShown = 16;

// A field element as the signed integer nearest zero (counts and multiplicities read as -1, not
// p - 1).
bool negative(Fp v) { return v.value() > Fp::P / 2; }
std::string signed_text(Fp v) {
  return negative(v) ? fmt::format("-{}", Fp::P - v.value()) : fmt::format("{}", v.value());
}

// The variables the expression of node `root` reads, in Variable order.
std::vector<Variable> variables_of(const SymbolicDag& dag, uint32_t root) {
  const std::vector<bool> live = dag.reachable(std::span<const uint32_t>(&root, 1));
  std::vector<Variable> vars;
  for (uint32_t i = 0; i <= root; ++i)
    if (live[i] && dag.nodes[i].kind == NodeKind::Variable) vars.push_back(dag.nodes[i].var);
  std::sort(vars.begin(), vars.end());
  vars.erase(std::unique(vars.begin(), vars.end()), vars.end());
  return vars;
}

// "main[0][2] = 5, main[0].next[2] = 7 (row 4)": the values of `vars` at `row`.
std::string column_values(const std::vector<Variable>& vars, const SymbolicAir& air, TraceRows& rows, uint32_t row) {
  rows.set_row(row);
  std::string out;
  size_t shown = 0;
  for (const Variable& v : vars) {
    if (shown == kColumnsShown) {
      out += fmt::format(", ... ({} more)", vars.size() - shown);
      break;
    }
    const Fp x = v.entry == EntryKind::Public ? rows.public_value(v.index)
                                              : rows.value(row_view_part(v, air.shape), v.offset, v.index);
    out += fmt::format("{}{} = {}", shown == 0 ? "" : ", ", variable_name(air, v), signed_text(x));
    if (v.entry != EntryKind::Public && v.offset == 1) out += fmt::format(" (row {})", (row + 1) % rows.height());
    ++shown;
  }
  return out;
}

// A (bus, message) key and what sends and receives it.
struct BusKey {
  uint16_t bus = 0;
  std::vector<uint32_t> message;  // canonical values
  bool operator==(const BusKey&) const = default;
  auto operator<=>(const BusKey&) const = default;
};
struct BusKeyHash {
  size_t operator()(const BusKey& k) const {
    uint64_t h = 0x9E3779B97F4A7C15ull ^ k.bus;
    for (uint32_t v : k.message) h = (h ^ v) * 0x100000001B3ull + (h >> 29);
    return static_cast<size_t>(h);
  }
};
struct Contribution {
  uint32_t air = 0, row = 0, interaction = 0;
  Fp count;
  auto order() const { return std::tuple(air, row, interaction); }
};
struct BusEntry {
  Fp net;
  uint64_t sends = 0, receives = 0;
  std::vector<Contribution> send_samples, receive_samples;  // the first by (AIR, row, interaction)
};
using BusMap = std::unordered_map<BusKey, BusEntry, BusKeyHash>;

void keep_first(std::vector<Contribution>& samples, const Contribution& c) {
  auto at = std::lower_bound(samples.begin(), samples.end(), c,
                             [](const Contribution& a, const Contribution& b) { return a.order() < b.order(); });
  if (at - samples.begin() >= static_cast<std::ptrdiff_t>(kSamplesPerSign)) return;
  samples.insert(at, c);
  if (samples.size() > kSamplesPerSign) samples.pop_back();
}

void add(BusEntry& e, const Contribution& c) {
  e.net += c.count;
  if (negative(c.count)) {
    ++e.receives;
    keep_first(e.receive_samples, c);
  } else {
    ++e.sends;
    keep_first(e.send_samples, c);
  }
}

void merge(BusEntry& into, const BusEntry& from) {
  into.net += from.net;
  into.sends += from.sends;
  into.receives += from.receives;
  for (const Contribution& c : from.send_samples) keep_first(into.send_samples, c);
  for (const Contribution& c : from.receive_samples) keep_first(into.receive_samples, c);
}

struct FirstViolation {
  uint32_t row = 0, constraint = 0;  // emission index
  Fp value;
  auto order() const { return std::pair(row, constraint); }
};

// One AIR's constraints on every row (violations counted, the first kept) and its interactions
// into `buses`.
struct AirCheck {
  uint64_t violated = 0;
  std::optional<FirstViolation> first;
};

AirCheck check_air(const DebugAirInput& in, uint32_t air_index, const SymbolicDag& dag,
                   const std::vector<uint32_t>& roots, tbb::enumerable_thread_specific<BusMap>& buses) {
  const uint32_t h = in.parts.front()->height;
  struct Local {
    uint64_t violated = 0;
    std::optional<FirstViolation> first;
  };
  tbb::enumerable_thread_specific<Local> locals;
  const uint32_t tasks = (h + kRowsPerTask - 1) / kRowsPerTask;
  tbb::parallel_for(uint32_t{0}, tasks, [&](uint32_t t) {
    Local& local = locals.local();
    BusMap& bus = buses.local();
    TraceRows rows(std::span<const TraceMatrix* const>(in.parts), in.public_values);
    std::vector<Fp> values;
    BusKey key;  // reused: a row's message is copied into the map only when it is new there
    const uint32_t end = std::min(h, (t + 1) * kRowsPerTask);
    for (uint32_t r = t * kRowsPerTask; r < end; ++r) {
      rows.set_row(r);
      eval_nodes(dag, in.air->shape, rows, values);
      for (uint32_t c = 0; c < roots.size(); ++c) {
        if (values[roots[c]].is_zero()) continue;
        ++local.violated;
        const FirstViolation v{r, c, values[roots[c]]};
        if (!local.first || v.order() < local.first->order()) local.first = v;
      }
      for (uint32_t i = 0; i < dag.interactions.size(); ++i) {
        const DagInteraction& it = dag.interactions[i];
        const Fp count = values[it.count];
        if (count.is_zero()) continue;
        key.bus = it.bus;
        key.message.clear();
        for (uint32_t m : it.message) key.message.push_back(values[m].value());
        auto at = bus.find(key);
        if (at == bus.end()) at = bus.emplace(key, BusEntry{}).first;
        add(at->second, Contribution{air_index, r, i, count});
      }
    }
  });
  AirCheck out;
  for (const Local& l : locals) {
    out.violated += l.violated;
    if (l.first && (!out.first || l.first->order() < out.first->order())) out.first = l.first;
  }
  return out;
}

std::string message_text(const std::vector<uint32_t>& message) {
  std::string s = "[";
  for (size_t i = 0; i < message.size(); ++i) s += fmt::format("{}{}", i ? ", " : "", message[i]);
  return s + "]";
}

std::string interaction_text(const SymbolicAir& air, const InteractionExpr& it) {
  std::string s = "[";
  for (size_t i = 0; i < it.message.size(); ++i) s += (i ? ", " : "") + expression_text(air, it.message[i], 60);
  return s + "] count " + expression_text(air, it.count, 60);
}

}  // namespace

std::string DebugReport::message() const {
  if (ok()) return "";
  std::string s = "debug checker:";
  if (violated > 0) s += fmt::format(" {} constraint failure{} (row, constraint)", violated, violated == 1 ? "" : "s");
  if (violated > 0 && unbalanced > 0) s += ",";
  if (unbalanced > 0) s += fmt::format(" {} unbalanced bus message{}", unbalanced, unbalanced == 1 ? "" : "s");
  for (const std::string& p : problems) s += "\n  " + p;
  return s;
}

DebugReport debug_check(std::span<const DebugAirInput> airs, size_t max_problems) {
  for (const DebugAirInput& in : airs) {
    if (in.air == nullptr) throw InputError("debug checker: an input without its AIR (air is null)");
    check_trace_shape(in.air->name, in.air->shape, std::span<const TraceMatrix* const>(in.parts), in.public_values);
  }
  DebugReport report;
  std::vector<std::string> constraint_problems;
  tbb::enumerable_thread_specific<BusMap> buses;
  for (uint32_t a = 0; a < airs.size(); ++a) {
    const DebugAirInput& in = airs[a];
    std::vector<uint32_t> roots;
    const SymbolicDag dag = build_dag(*in.air, &roots);
    const AirCheck c = check_air(in, a, dag, roots, buses);
    report.violated += c.violated;
    if (!c.first) continue;
    const FirstViolation& v = *c.first;
    report.constraint_failures.push_back({.air = in.air->name,
                                          .constraint = v.constraint,
                                          .row = v.row,
                                          .value = v.value,
                                          .failures = c.violated,
                                          .expression = expression_text(*in.air, in.air->constraints[v.constraint])});
    TraceRows rows(std::span<const TraceMatrix* const>(in.parts), in.public_values);
    constraint_problems.push_back(fmt::format(
        "AIR {}: constraint {} fails at row {} (value {}){}: {}\n    reads {}", in.air->name, v.constraint, v.row,
        signed_text(v.value), c.violated > 1 ? fmt::format("; {} failures in this AIR in all", c.violated) : "",
        expression_text(*in.air, in.air->constraints[v.constraint], 300),
        column_values(variables_of(dag, roots[v.constraint]), *in.air, rows, v.row)));
  }
  // The buses: every thread's map merged, then the unbalanced messages in order of bus and first
  // contribution.
  BusMap all;
  for (BusMap& m : buses)
    for (auto& [key, entry] : m) {
      auto [it, fresh] = all.try_emplace(key);
      if (fresh) {
        it->second = std::move(entry);
      } else {
        merge(it->second, entry);
      }
    }
  struct Unbalanced {
    const BusKey* key;
    const BusEntry* entry;
    std::tuple<uint16_t, uint32_t, uint32_t, uint32_t> order;
  };
  std::vector<Unbalanced> unbalanced;
  for (const auto& [key, entry] : all) {
    if (entry.net.is_zero()) continue;
    const Contribution& c =
        !entry.send_samples.empty() &&
                (entry.receive_samples.empty() || entry.send_samples[0].order() < entry.receive_samples[0].order())
            ? entry.send_samples[0]
            : entry.receive_samples[0];
    unbalanced.push_back({&key, &entry, std::tuple(key.bus, c.air, c.row, c.interaction)});
  }
  std::sort(unbalanced.begin(), unbalanced.end(), [](const Unbalanced& x, const Unbalanced& y) {
    return x.order != y.order ? x.order < y.order : *x.key < *y.key;
  });
  report.unbalanced = unbalanced.size();
  auto sample_text = [&](const Contribution& c) {
    const SymbolicAir& air = *airs[c.air].air;
    return fmt::format("AIR {} row {} interaction {} (message {}) with count {}", air.name, c.row, c.interaction,
                       interaction_text(air, air.interactions[c.interaction]), signed_text(c.count));
  };
  std::vector<std::string> bus_problems;
  for (const Unbalanced& u : unbalanced) {
    const BusEntry& e = *u.entry;
    std::string bus = fmt::format("bus {}", u.key->bus);
    for (const DebugAirInput& in : airs)
      if (auto it = in.air->bus_names.find(u.key->bus); it != in.air->bus_names.end()) {
        bus += " (" + it->second + ")";
        break;
      }
    std::string s = fmt::format("{}: message {} has net multiplicity {} ({} sends, {} receives)", bus,
                                message_text(u.key->message), signed_text(e.net), e.sends, e.receives);
    if (e.sends == 0) s += "; nothing sends it";
    if (e.receives == 0) s += "; nothing receives it";
    for (const Contribution& c : e.send_samples) s += "\n    sent by " + sample_text(c);
    if (e.sends > e.send_samples.size()) s += fmt::format("\n    ... {} more sends", e.sends - e.send_samples.size());
    for (const Contribution& c : e.receive_samples) s += "\n    received by " + sample_text(c);
    if (e.receives > e.receive_samples.size())
      s += fmt::format("\n    ... {} more receives", e.receives - e.receive_samples.size());
    bus_problems.push_back(std::move(s));
    if (bus_problems.size() + constraint_problems.size() > max_problems) break;
  }
  for (auto* list : {&constraint_problems, &bus_problems})
    for (std::string& p : *list) report.problems.push_back(std::move(p));
  const uint64_t total = report.unbalanced + constraint_problems.size();
  if (report.problems.size() > max_problems) report.problems.resize(max_problems);
  if (total > report.problems.size())
    report.problems.push_back(fmt::format("... {} more problems not shown", total - report.problems.size()));
  return report;
}

void DebugReport::throw_if_failed() const {
  if (!ok()) throw InputError(message());
}

DebugReport debug_check(std::span<const AirWithTraces> airs, size_t max_problems) {
  std::vector<SymbolicAir> symbolic;
  std::vector<std::optional<TraceMatrix>> preprocessed(airs.size());
  symbolic.reserve(airs.size());
  for (const AirWithTraces& t : airs) {
    if (!t.air) throw InputError("debug checker: traces without their AIR (AirWithTraces::air is null)");
    symbolic.push_back(symbolic_air(*t.air));
  }
  std::vector<DebugAirInput> inputs;
  for (size_t a = 0; a < airs.size(); ++a)
    inputs.push_back({.air = &symbolic[a],
                      .parts = airs[a].row_view_part_refs(preprocessed[a]),
                      .public_values = airs[a].public_values});
  return debug_check(std::span<const DebugAirInput>(inputs), max_problems);
}

DebugReport debug_check(const ProvingKey& pk, const std::vector<std::optional<AirWithTraces>>& airs,
                        size_t max_problems) {
  if (airs.size() != pk.per_air.size())
    throw InputError(
        fmt::format("debug checker: {} trace sets for {} AIRs of the key", airs.size(), pk.per_air.size()));
  KeyAirMatch match(pk);
  std::vector<DebugAirInput> inputs;
  for (size_t a = 0; a < airs.size(); ++a) {
    if (!airs[a]) continue;
    match.check(uint32_t(a), airs[a]->air);
    const AirProvingKey& k = pk.per_air[a];
    DebugAirInput in{.air = &k.symbolic, .parts = {}, .public_values = airs[a]->public_values};
    if (k.preprocessed_trace) in.parts.push_back(&*k.preprocessed_trace);
    for (size_t i = 0; i < airs[a]->cached.size(); ++i) in.parts.push_back(&airs[a]->cached_part(i));
    in.parts.push_back(&airs[a]->common);
    inputs.push_back(std::move(in));
  }
  return debug_check(std::span<const DebugAirInput>(inputs), max_problems);
}

}  // namespace vkstark
