#include "stages/preamble/prover.hpp"

#include <fmt/format.h>

#include <variant>

namespace vkstark {

namespace {
// The observations in order: runs of host values, and device views.
class Observations {
 public:
  void host(Fp v) { host_.push_back(v); }
  void host(const Digest& d) { host_.insert(host_.end(), d.begin(), d.end()); }
  void device(View<Fp> v) {
    if (v.count == 0) return;
    flush();
    items_.push_back(v);
  }
  void emit(Graph& g, DeviceTranscript& t) {
    flush();
    for (size_t i = 0; i < items_.size(); ++i) {
      if (const auto* run = std::get_if<std::vector<Fp>>(&items_[i]))
        t.observe(g.constant<Fp>(fmt::format("preamble.{}", i), *run).all());
      else
        t.observe(std::get<View<Fp>>(items_[i]));
    }
  }

 private:
  void flush() {
    if (!host_.empty()) items_.push_back(std::move(host_));
    host_.clear();
  }
  std::vector<Fp> host_;
  std::vector<std::variant<std::vector<Fp>, View<Fp>>> items_;
};
}  // namespace

void observe_preamble(Graph& g, DeviceTranscript& t, const MultiStarkVerifyingKey& vk, View<Digest> common_root,
                      std::span<const PreambleAir> airs) {
  if (airs.size() != vk.per_air.size())
    throw InputError(fmt::format("preamble: {} AIRs given, the verifying key has {}", airs.size(), vk.per_air.size()));
  Observations o;
  o.host(vk.pre_hash);
  o.device(common_root.bitcast<Fp>());
  for (size_t a = 0; a < airs.size(); ++a) {
    const StarkVerifyingKey& k = vk.per_air[a];
    const PreambleAir& air = airs[a];
    if (!k.is_required) o.host(air.present ? Fp::one() : Fp());
    if (!air.present) continue;
    if (air.cached_roots.size() != k.params.width.cached_mains.size() ||
        air.public_values.count != k.params.num_public_values ||
        air.preprocessed_root.has_value() != k.preprocessed_data.has_value())
      throw InputError(
          fmt::format("preamble: AIR {} does not match its verifying key (cached parts, public values "
                      "or preprocessed trace)",
                      a));
    if (air.preprocessed_root)
      o.device(air.preprocessed_root->bitcast<Fp>());
    else
      o.host(Fp::from_canonical_unchecked(air.log_height));
    for (const View<Digest>& r : air.cached_roots) o.device(r.bitcast<Fp>());
    o.device(air.public_values);
  }
  o.emit(g, t);
}

}  // namespace vkstark
