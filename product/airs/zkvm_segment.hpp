// A synthetic zkVM-shaped segment: many AIRs in one proof, as a zkVM proves them (issue 22). Chips
// of widths 1 to about 300 and heights spread over 2^0 .. 2^max_log_height send messages over
// memory-like buses to one table AIR per bus and their row counters to a range table with a
// preprocessed column; some chips keep their values in a cached part, some read a preprocessed
// column, some are absent from the proof. Every AIR is optional; the shape alone fixes the AIRs
// (keygen), the seed fixes the traces. For tests and benches. Thread-compatible values.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "stages/air/air.hpp"
#include "stages/air/input.hpp"

namespace vkstark {

struct ZkvmSegmentShape {
  uint32_t chips = 100;         // chips (plus one table per memory bus and the range table)
  uint32_t max_log_height = 8;  // chip heights cycle through 2^0 .. 2^max_log_height
  uint32_t memory_buses = 8;    // buses 1..memory_buses; bus 0 is the range bus
  uint32_t max_width = 300;     // the widest chip
  uint32_t absent_every = 9;    // chip i is absent when i % absent_every == absent_every - 1 (0: none)
  uint64_t seed = 1;
};

struct ZkvmSegment {
  std::vector<std::shared_ptr<const Air>> airs;      // keygen order: chips, tables, the range table
  std::vector<std::optional<AirWithTraces>> traces;  // per AIR (nullopt: absent from the proof)
  uint64_t cells() const;                            // trace cells of the present AIRs, every part
  uint64_t present() const;
};

// InputError for a shape outside what the fixture supports (no chip, heights above 2^24, widths
// below 4 where a chip must send).
[[nodiscard]] ZkvmSegment zkvm_segment(const ZkvmSegmentShape& shape);

}  // namespace vkstark
