#include "stages/common/trace_part.hpp"

#include <fmt/format.h>

#include "runtime/error.hpp"

namespace vkstark {

View<Fp> TracePart::whole(const std::string& what) const {
  if (segments.size() != 1)
    throw GraphError(
        fmt::format("{}: the trace part ({} columns of 2^{} rows) lies in {} pieces of its commitment, not "
                    "one view",
                    what, width, log_height, segments.size()));
  return segments[0].data;
}

}  // namespace vkstark
