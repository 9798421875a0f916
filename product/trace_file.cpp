#include "product/trace_file.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <memory>
#include <string_view>

#include "product/airs/shipped.hpp"
#include "product/detail/field_file.hpp"
#include "runtime/error.hpp"
#include "stages/encoding/codec.hpp"

namespace vkstark {

namespace {

constexpr std::string_view kMagic = "VKSTRACE";
constexpr uint32_t kMaxNameBytes = 64;
constexpr uint32_t kMaxLogHeight = 24;
constexpr uint32_t kMaxPublicValues = 4096;

[[noreturn]] void fail(std::string_view what) { throw DecodeError(fmt::format("trace file: {}", what)); }

std::string name_problem(std::string_view name) { return detail::name_problem(name, kMaxNameBytes); }

// Checked reads whose errors start "trace file: ".
class Reader : public detail::CheckedReader {
 public:
  explicit Reader(std::span<const uint8_t> bytes) : CheckedReader(bytes, "trace file") {}
};

// The shipped AIR of a trace file's name (InputError for another name).
std::shared_ptr<const Air> shipped_air(const std::string& name) {
  if (name == "fibonacci" || name == "keccak") return shipped_air_named(name);
  throw InputError(fmt::format("unknown AIR '{}' (trace files hold fibonacci or keccak)", name));
}

// InputError naming the AIR when the file's trace does not fit it as the prover needs.
void check_fits(const Air& air, const TraceFile& file) {
  const AirShape shape = air.shape();
  const TraceMatrix& m = file.main;
  if (m.width != shape.common_width)
    throw InputError(fmt::format("AIR {}: trace width {}, the AIR has {}", file.air, m.width, shape.common_width));
  if (m.height < 2 || !std::has_single_bit(m.height))
    throw InputError(fmt::format("AIR {}: trace height {} is not a power of two >= 2", file.air, m.height));
  if (m.values.size() != uint64_t(m.width) * m.height)
    throw InputError(
        fmt::format("AIR {}: trace of {} values, {} x {} expected", file.air, m.values.size(), m.width, m.height));
  if (file.public_values.size() != shape.num_public_values)
    throw InputError(fmt::format("AIR {}: {} public values, the AIR has {}", file.air, file.public_values.size(),
                                 shape.num_public_values));
}

}  // namespace

std::vector<uint8_t> encode_trace_file(const TraceFile& file) {
  if (std::string p = name_problem(file.air); !p.empty()) throw InputError(fmt::format("trace file: {}", p));
  const TraceMatrix& m = file.main;
  if (m.height == 0 || !std::has_single_bit(m.height) || std::countr_zero(m.height) > int(kMaxLogHeight))
    throw InputError(fmt::format("trace file: height {} is not a power of two in [1, 2^{}]", m.height, kMaxLogHeight));
  if (m.values.size() != uint64_t(m.width) * m.height)
    throw InputError(fmt::format("trace file: {} values for {} x {}", m.values.size(), m.width, m.height));
  if (file.public_values.size() > kMaxPublicValues)
    throw InputError(fmt::format("trace file: {} public values > {}", file.public_values.size(), kMaxPublicValues));

  std::vector<uint8_t> out(kMagic.begin(), kMagic.end());
  out.reserve(kMagic.size() + 4 * 5 + detail::padded4(uint32_t(file.air.size())) + 4 * file.public_values.size() +
              4 * m.values.size());
  ByteWriter w(out);
  w.u32(kTraceFileVersion);
  w.u32(uint32_t(file.air.size()));
  out.insert(out.end(), file.air.begin(), file.air.end());
  out.resize(out.size() + detail::padded4(uint32_t(file.air.size())) - file.air.size(), 0);
  w.u32(m.width);
  w.u32(uint32_t(std::countr_zero(m.height)));
  w.u32(uint32_t(file.public_values.size()));
  for (Fp v : file.public_values) w.f(v);
  for (Fp v : m.values) w.f(v);
  return out;
}

namespace {

// Everything before the values: the AIR, the shape and the public values (file.main has its width
// and height, no values); the reader is left at the values.
TraceFile decode_head(Reader& r, std::span<const uint8_t> bytes) {
  if (bytes.size() < kMagic.size() || !std::equal(kMagic.begin(), kMagic.end(), bytes.begin()))
    fail(fmt::format("magic: the file does not start with \"{}\": not a vkstark trace file", kMagic));
  (void)r.bytes(kMagic.size(), "magic");
  const uint32_t version = r.u32("version");
  if (version != kTraceFileVersion)
    fail(fmt::format("version {} (this build reads version {})", version, kTraceFileVersion));

  TraceFile file;
  file.air = r.name("AIR name", kMaxNameBytes);

  const uint32_t width = r.u32("width");
  const uint32_t log_height = r.u32("log2 height");
  if (log_height > kMaxLogHeight) fail(fmt::format("log2 height {} > {}", log_height, kMaxLogHeight));
  const uint32_t num_public = r.u32("public value count");
  if (num_public > kMaxPublicValues) fail(fmt::format("public value count {} > {}", num_public, kMaxPublicValues));

  // Checked against the bytes left before anything is allocated for them (4096 x 4 fits a u64).
  const auto pv = r.bytes(uint64_t(num_public) * 4, "public values");
  file.public_values.resize(num_public);
  for (uint32_t i = 0; i < num_public; ++i) {
    const uint32_t v = detail::le32(&pv[4 * size_t(i)]);
    if (v >= Fp::P) fail(fmt::format("public value {}: {} is not a canonical BabyBear element", i, v));
    file.public_values[i] = Fp::from_canonical_unchecked(v);
  }
  file.main.width = width;
  file.main.height = 1u << log_height;
  return file;
}

// The values, canonical little-endian words as the file has them, turned into field elements in
// place (the bytes and `values` may be the same memory). DecodeError naming the column and row of
// the first value that is not canonical.
void convert_values(const uint8_t* bytes, Fp* values, uint64_t cells, uint32_t height) {
  if (const auto i = detail::convert_canonical(bytes, values, cells))
    fail(fmt::format("column {} row {}: {} is not a canonical BabyBear element", *i / height, *i % height,
                     detail::le32(bytes + 4 * *i)));
}

}  // namespace

TraceFile decode_trace_file(std::span<const uint8_t> bytes) {
  Reader r(bytes);
  TraceFile file = decode_head(r, bytes);
  // The product fits a u64 (2^32 x 2^24 x 4) and is checked against the bytes left before the
  // matrix is allocated.
  const uint64_t cells = uint64_t(file.main.width) * file.main.height;
  const auto values = r.bytes(cells * 4, "values");
  file.main.values = TraceValues(cells);
  convert_values(values.data(), file.main.values.data(), cells, file.main.height);
  if (r.remaining() != 0) fail(fmt::format("{} bytes past the end", r.remaining()));
  return file;
}

TraceFile read_trace_file(const std::string& path, const std::function<TraceValues(uint64_t)>& allocate) {
  const detail::PositionalFile in(path, "trace file");
  const uint64_t size = in.size();
  // The head is at most the magic, 5 words, the longest name and the most public values.
  std::vector<uint8_t> head(std::min<uint64_t>(size, kMagic.size() + 4 * 5 + kMaxNameBytes + 4 * kMaxPublicValues));
  if (!in.read_at(head.data(), head.size(), 0)) fail("the file changed while it was read");
  Reader r(head);
  TraceFile file = decode_head(r, head);
  const uint64_t at = head.size() - r.remaining();
  const uint64_t cells = uint64_t(file.main.width) * file.main.height;
  if (size - at < cells * 4)
    fail(fmt::format("truncated in the values ({} bytes left, {} needed)", size - at, cells * 4));
  if (size - at > cells * 4) fail(fmt::format("{} bytes past the end", size - at - cells * 4));
  // Straight into the memory given (the upload's), converted there.
  file.main.values = allocate ? allocate(cells) : TraceValues(cells);
  if (file.main.values.size() != cells)
    throw InputError(
        fmt::format("trace file '{}': {} cells of memory given for {}", path, file.main.values.size(), cells));
  if (!in.read_at(file.main.values.data(), cells * 4, at)) fail("the file changed while it was read");
  convert_values(reinterpret_cast<const uint8_t*>(file.main.values.data()), file.main.values.data(), cells,
                 file.main.height);
  return file;
}

AirWithTraces trace_file_air(TraceFile file) {
  AirWithTraces t;
  t.air = shipped_air(file.air);
  check_fits(*t.air, file);
  t.common = std::move(file.main);
  t.public_values = std::move(file.public_values);
  return t;
}

TraceFile to_trace_file(const AirWithTraces& t) {
  if (!t.air) throw InputError("trace file: the traces have no AIR");
  TraceFile file;
  file.air = t.air->name();
  const AirShape shape = t.air->shape();
  if (shape.preprocessed_width != 0 || shape.num_cached() != 0 || !t.cached.empty())
    throw InputError(fmt::format(
        "AIR {}: a trace file holds a common main trace only, not a preprocessed or cached part", file.air));
  file.main = t.common;
  file.public_values = t.public_values;
  // The shipped AIR of that name must take the trace as it is, so that the file reads back.
  check_fits(*shipped_air(file.air), file);
  return file;
}

}  // namespace vkstark
