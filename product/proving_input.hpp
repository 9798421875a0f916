// Proving inputs (`.vki`): everything one proof needs besides its verifying key, for proving AIRs
// given as data (`vkstark prove --vk KEY --input INPUT`): per AIR of the key, its name, its
// preprocessed trace (when it has one), and whether it is in the proof; per AIR in the proof, its
// cached main parts, its common main part and its public values. The format is specified in
// docs/proving-input.md (a writer in another language needs nothing else: tests/support/
// write_proving_input.py is one); in short, little-endian u32 words:
//
//   "VKSINPUT" version=1 air_count
//   per AIR: name (length, bytes, zero padding to 4) preprocessed_width preprocessed_log_height present
//            [present: log_height cached_count cached_widths... common_width public_count publics...]
//   then the values, AIR by AIR, each matrix column-major: preprocessed, cached 0.., common
//
// every value a canonical BabyBear element (< p); nothing follows. So an input has one encoding.
// Hostile input: decoding is bounded by the input's size (a lying header allocates nothing) and
// every error names the AIR (index and name) and the field.
//
// Value types; the functions are pure (the reader: and the file system). Thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "stages/air/air.hpp"
#include "stages/air/input.hpp"
#include "stages/air/verifying_key.hpp"

namespace vkstark {

inline constexpr uint32_t kProvingInputVersion = 1;
inline constexpr uint32_t kProvingInputMaxAirs = 1u << 16;
inline constexpr uint32_t kProvingInputMaxNameBytes = 128;  // as the proof file's AIR names
inline constexpr uint32_t kProvingInputMaxLogHeight = 24;   // kMaxLogStackedHeight
inline constexpr uint32_t kProvingInputMaxCached = 7;       // with the common main: kMaxViewArray parts
inline constexpr uint32_t kProvingInputMaxPublicValues = 1u << 16;

struct ProvingInputAir {
  std::string name;
  std::optional<TraceMatrix> preprocessed;  // fixed at keygen: must have the key's commitment
  bool present = false;                     // in this proof
  std::vector<TraceMatrix> cached;          // present: the cached main parts, part order
  TraceMatrix common;                       // present: the common main part
  std::vector<Fp> public_values;            // present
  bool operator==(const ProvingInputAir&) const = default;
};

struct ProvingInput {
  std::vector<ProvingInputAir> airs;  // the verifying key's AIR order
  bool operator==(const ProvingInput&) const = default;
};

// InputError naming the AIR for what the layout cannot hold: no AIR or more than the maximum, a bad
// name, a matrix whose height is not a power of two in [1, 2^24] or whose values do not fill it,
// a width of 0, present parts of different heights, too many cached parts or public values, parts
// or public values given for an absent AIR.
std::vector<uint8_t> encode_proving_input(const ProvingInput& input);

// DecodeError "proving input: AIR 1 (example_byte_table): truncated in the common main values (...)",
// naming the AIR and the field: bad magic, another version, a count or height over its bound, a
// bad name or padding, a flag that is not 0 or 1, a non-canonical value (which part, column, row),
// a length past the end, trailing bytes. Not checked against a verifying key here (prover_job is).
ProvingInput decode_proving_input(std::span<const uint8_t> bytes);

// The same from a file, each main part read straight into the memory `allocate` gives for its cells
// (e.g. host memory the upload reads in place: Executor::host_memory), else the heap, and converted
// there; preprocessed traces (kept by the proving key, beyond any one proof) into the heap. InputError when the file
// cannot be read; DecodeError as decode_proving_input.
ProvingInput read_proving_input(const std::string& path,
                                const std::function<TraceValues(uint64_t cells)>& allocate = {});

// The input of a proof of `key_airs` (a key's AIRs written in code, its order) with these traces
// (one entry per AIR, nullopt: absent): names and preprocessed traces from the AIRs. InputError
// naming the AIR as encode_proving_input's, or for traces that do not fit their AIR.
ProvingInput to_proving_input(std::span<const std::shared_ptr<const Air>> key_airs,
                              std::span<const std::optional<AirWithTraces>> traces);

// A vk file (stages/air/verifying_key.hpp: encode_vk_file) read and decoded. InputError naming the
// path when it cannot be read or is larger than kMaxVkFileBytes; DecodeError as decode_vk_file's,
// its message prefixed with the path.
inline constexpr uint64_t kMaxVkFileBytes = uint64_t(256) << 20;
MultiStarkVerifyingKey read_vk_file(const std::string& path);

// A proof of AIRs given as data: the AIRs built from the key's entries with the input's names and
// preprocessed traces (DagAir), for keygen_from_vk, and the traces for the prover.
struct DataJob {
  std::vector<std::string> names;
  std::vector<std::shared_ptr<const Air>> airs;
  std::vector<std::optional<AirWithTraces>> traces;  // per AIR; nullopt: absent
};

// InputError naming the AIR (index and name) for an input that does not fit the key: another AIR
// count, a preprocessed trace missing, unexpected or of another width, a required AIR absent, no
// AIR present, a height above the params' stacked height or unlike the preprocessed trace's, another
// number or width of cached parts, another common main width or public value count. `sources`: AIRs
// written in code, per AIR where at hand (DagAir's source: names in debug messages).
DataJob prover_job(const MultiStarkVerifyingKey& vk, ProvingInput input, std::span<const Air* const> sources = {});

}  // namespace vkstark
