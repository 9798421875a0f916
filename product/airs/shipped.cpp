#include "product/airs/shipped.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "product/airs/fibonacci.hpp"
#include "product/airs/interactions.hpp"
#include "product/airs/keccak.hpp"
#include "runtime/error.hpp"

namespace vkstark {

std::vector<std::shared_ptr<const Air>> shipped_airs(std::string_view computation) {
  if (computation == "keccakf") return {std::make_shared<KeccakAir>()};
  if (computation == "fibonacci") return {std::make_shared<FibonacciAir>()};
  if (computation == "interactions") return {std::make_shared<Decompose>(), std::make_shared<ByteTable>()};
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
