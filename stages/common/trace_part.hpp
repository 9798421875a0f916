// A trace part as the device holds it (stages/pcs/stacked.hpp stores traces in place, in their
// commitment's stacked matrix). Value type; thread-compatible.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kernels/types.hpp"
#include "runtime/buffer.hpp"

namespace vkstark {

// A trace part on the device: `width` columns of 2^log_height rows, column-major, as one or more
// views of whole consecutive columns (a trace stored in a stacked matrix of several tiles may be
// cut where a tile ends).
struct TracePart {
  struct Segment {
    View<Fp> data;  // columns [first_column, first_column + columns)
    uint32_t first_column = 0;
    uint32_t columns = 0;
    Buffer<Fp> buffer;  // the buffer `data` lies in (upload the columns there, at data.offset)
  };
  std::vector<Segment> segments;
  uint32_t width = 0;
  uint32_t log_height = 0;
  // The part as one view. GraphError when it lies in several segments (naming `what`).
  View<Fp> whole(const std::string& what) const;
  uint64_t bytes() const { return (uint64_t(width) << log_height) * sizeof(Fp); }
};

}  // namespace vkstark
