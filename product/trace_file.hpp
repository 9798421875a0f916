// Trace files (`.vkt`): one shipped AIR's main trace with its public values, for proving traces made
// elsewhere (vkstark trace writes them, vkstark prove-batch reads them). Hostile input: decoding is
// bounded by the file's size and every error names the field.
//
// Layout (little-endian u32 words after the magic): "VKSTRACE" (8 bytes), version (kTraceFileVersion),
// AIR name length n (1 to 64) and n bytes of the name (printable ASCII) padded with zero bytes to a
// multiple of 4, width, log2 height (<= 24), public value count (<= 4096), the public values, then
// width x height values, column by column (TraceMatrix's order). Every value is a canonical BabyBear
// element (< p); nothing follows. So a file has one encoding: decoding then encoding gives the same
// bytes. A decoder allocates at most about the file's size.
//
// Value types; the functions are pure. Thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "stages/air/air.hpp"
#include "stages/air/input.hpp"

namespace vkstark {

inline constexpr uint32_t kTraceFileVersion = 1;

struct TraceFile {
  std::string air;  // a shipped AIR's Air::name(): "fibonacci" | "keccak"
  TraceMatrix main;
  std::vector<Fp> public_values;
  bool operator==(const TraceFile&) const = default;
};

// InputError for what the layout cannot hold: a bad name, a height that is not a power of two in
// [1, 2^24], values.size() != width x height, more than 4096 public values.
std::vector<uint8_t> encode_trace_file(const TraceFile& file);
// DecodeError (stages/encoding/codec.hpp) naming the field ("trace file: ..."): bad magic, another version, a
// bad name or padding, a count over its bound, a length past the end ("truncated in the <field>"),
// a non-canonical value (which column and row), trailing bytes ("N bytes past the end"). The shape
// is not checked against an AIR here (trace_file_air does).
TraceFile decode_trace_file(std::span<const uint8_t> bytes);
// The same from a file, its values read straight into the memory `allocate` gives for that many
// cells (e.g. host memory the upload reads in place: Executor::host_memory), else the heap, and
// converted there. InputError when the file cannot be read; DecodeError as decode_trace_file.
TraceFile read_trace_file(const std::string& path, const std::function<TraceValues(uint64_t cells)>& allocate = {});

// The AIR of a shipped name with the file's trace: InputError naming the AIR and the field when the
// name is unknown, the width is not the AIR's, the height is not a power of two >= 2, or the public
// value count is not the AIR's.
AirWithTraces trace_file_air(TraceFile file);
// The file of one shipped AIR's trace (the AIR's name must be one trace_file_air knows, and the trace
// one it accepts): InputError for another AIR, a preprocessed or cached part, or a bad shape.
TraceFile to_trace_file(const AirWithTraces& t);

}  // namespace vkstark
