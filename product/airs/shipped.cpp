#include "product/airs/shipped.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "product/airs/fibonacci.hpp"
#include "product/airs/interactions.hpp"
#include "product/airs/keccak.hpp"
#include "runtime/error.hpp"

namespace vkstark {

std::vector<std::shared_ptr<const Air>> shipped_airs(std::string_view computation) {
  // One object each for the process (they hold no state): a prover matches the AIRs of its key to
  // the objects it is given once (KeyAirMatch), so every job of a batch shares them.
  static const std::shared_ptr<const Air> keccak = std::make_shared<KeccakAir>();
  static const std::shared_ptr<const Air> fibonacci = std::make_shared<FibonacciAir>();
  static const std::shared_ptr<const Air> decompose = std::make_shared<Decompose>();
  static const std::shared_ptr<const Air> byte_table = std::make_shared<ByteTable>();
  if (computation == "keccakf") return {keccak};
  if (computation == "fibonacci") return {fibonacci};
  if (computation == "interactions") return {decompose, byte_table};
  throw InputError(fmt::format("unknown computation '{}' (expected {})", computation,
                               fmt::join(std::begin(kShippedComputations), std::end(kShippedComputations), ", ")));
}

std::shared_ptr<const Air> shipped_air_named(std::string_view name) {
  for (std::string_view c : kShippedComputations)
    for (std::shared_ptr<const Air>& air : shipped_airs(c))
      if (air->name() == name) return air;
  return nullptr;
}

}  // namespace vkstark
