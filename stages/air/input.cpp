#include "stages/air/input.hpp"

#include <fmt/format.h>

#include <bit>
#include <utility>

#include "runtime/error.hpp"

namespace vkstark {

AirWithTraces::AirWithTraces(std::shared_ptr<const Air> a, TraceMatrix c, std::vector<Fp> pv)
    : air(std::move(a)), common(std::move(c)), public_values(std::move(pv)) {
  validate();
}

AirWithTraces::AirWithTraces(std::shared_ptr<const Air> a, std::vector<TraceMatrix> cp, TraceMatrix c,
                             std::vector<Fp> pv)
    : air(std::move(a)), cached(std::move(cp)), common(std::move(c)), public_values(std::move(pv)) {
  validate();
}

namespace {

void check_matrix(const std::string& air, const std::string& what, const TraceMatrix& m) {
  if (m.values.size() != uint64_t(m.width) * m.height)
    throw InputError(fmt::format("AIR {}: the {} holds {} values, not width {} x height {}", air, what, m.values.size(),
                                 m.width, m.height));
}

}  // namespace

void AirWithTraces::validate() const {
  if (!air)
    throw InputError(
        "AirWithTraces: the AIR is null; give the AIR the traces are for (the one the proving key was made from)");
  const std::string name = air->name();
  const AirShape shape = air->shape();
  const uint32_t h = common.height;
  if (h == 0 || !std::has_single_bit(h))
    throw InputError(fmt::format("AIR {}: trace height {} is not a power of two (pad the trace)", name, h));
  if (common.width != shape.common_width)
    throw InputError(fmt::format("AIR {}: common main trace of width {}, the AIR has {} columns", name, common.width,
                                 shape.common_width));
  check_matrix(name, "common main trace", common);
  if (cached.size() != shape.cached_widths.size())
    throw InputError(
        fmt::format("AIR {}: {} cached main traces, the AIR has {}", name, cached.size(), shape.cached_widths.size()));
  if (!committed.empty() && committed.size() != cached.size())
    throw InputError(fmt::format("AIR {}: {} committed cached parts listed, the AIR has {} cached parts", name,
                                 committed.size(), cached.size()));
  for (size_t i = 0; i < cached.size(); ++i) {
    if (is_committed(i)) {
      if (cached[i].width != 0 || !cached[i].values.empty())
        throw InputError(fmt::format(
            "AIR {}: cached main trace {} is given both as values and as a committed trace (use_committed() empties "
            "the values)",
            name, i));
      if (committed[i]->air != name || committed[i]->part != i)
        throw InputError(fmt::format("AIR {}: cached main trace {} is a trace committed for AIR {} part {}", name, i,
                                     committed[i]->air, committed[i]->part));
    }
    const TraceMatrix& m = cached_part(i);
    if (m.width != shape.cached_widths[i] || m.height != h)
      throw InputError(fmt::format("AIR {}: cached main trace {} is {} x {} (width x height), {} x {} expected", name,
                                   i, m.width, m.height, shape.cached_widths[i], h));
    check_matrix(name, fmt::format("cached main trace {}", i), m);
  }
  if (public_values.size() != shape.num_public_values)
    throw InputError(
        fmt::format("AIR {}: {} public values, the AIR has {}", name, public_values.size(), shape.num_public_values));
}

void AirWithTraces::use_committed(uint32_t part, std::shared_ptr<const CommittedTrace> c) {
  if (!air) throw InputError("AirWithTraces: the AIR is null; set it before use_committed()");
  const std::string name = air->name();
  if (!c) throw InputError(fmt::format("AIR {}: use_committed({}) of a null committed trace", name, part));
  const uint32_t parts = air->shape().num_cached();
  if (part >= parts) throw InputError(fmt::format("AIR {}: cached part {} of {}", name, part, parts));
  if (c->air != name || c->part != part)
    throw InputError(
        fmt::format("AIR {}: cached part {} given a trace committed for AIR {} part {}", name, part, c->air, c->part));
  if (cached.size() < parts) cached.resize(parts);
  committed.resize(parts);
  cached[part] = TraceMatrix{};
  committed[part] = std::move(c);
}

const TraceMatrix& AirWithTraces::cached_part(size_t i) const {
  return is_committed(i) ? *committed[i]->matrix : cached[i];
}

uint32_t AirWithTraces::log_height() const { return uint32_t(std::countr_zero(common.height)); }

std::vector<const TraceMatrix*> AirWithTraces::row_view_part_refs(std::optional<TraceMatrix>& preprocessed) const {
  if (!air) throw InputError("AirWithTraces: the AIR is null");
  preprocessed = air->preprocessed_trace();
  std::vector<const TraceMatrix*> parts;
  if (preprocessed) parts.push_back(&*preprocessed);
  for (size_t i = 0; i < cached.size(); ++i) parts.push_back(&cached_part(i));
  parts.push_back(&common);
  return parts;
}

std::vector<TraceMatrix> AirWithTraces::row_view_parts() const {
  std::optional<TraceMatrix> pre;
  std::vector<TraceMatrix> parts;
  for (const TraceMatrix* m : row_view_part_refs(pre)) parts.push_back(*m);
  return parts;
}

}  // namespace vkstark
