#include "product/trace_file.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <memory>
#include <string_view>

#include "product/airs/fibonacci.hpp"
#include "product/airs/keccak.hpp"
#include "runtime/error.hpp"
#include "stages/proof/codec.hpp"

namespace vkstark {

namespace {

constexpr std::string_view kMagic = "VKSTRACE";
constexpr uint32_t kMaxNameBytes = 64;
constexpr uint32_t kMaxLogHeight = 24;
constexpr uint32_t kMaxPublicValues = 4096;

[[noreturn]] void fail(std::string_view what) { throw DecodeError(fmt::format("trace file: {}", what)); }

// "" when `name` may be a trace file's AIR name, else what is wrong with it. Printable ASCII only,
// so that an error message that quotes a hostile name stays one line of text.
std::string name_problem(std::string_view name) {
  if (name.empty() || name.size() > kMaxNameBytes)
    return fmt::format("AIR name length {} (expected 1 to {})", name.size(), kMaxNameBytes);
  for (size_t i = 0; i < name.size(); ++i)
    if (name[i] < 0x20 || name[i] > 0x7e) return fmt::format("AIR name byte {} is not printable ASCII", i);
  return "";
}

uint32_t padded(uint32_t n) { return (n + 3) & ~3u; }

// Reads through a ByteReader, each read checked first so that a short file fails with
// "truncated in the <field>".
class Reader {
 public:
  explicit Reader(std::span<const uint8_t> bytes) : r_(bytes) {}
  void need(uint64_t n, std::string_view field) const {
    if (r_.remaining() < n)
      fail(fmt::format("truncated in the {} ({} bytes left, {} needed)", field, r_.remaining(), n));
  }
  uint32_t u32(std::string_view field) {
    need(4, field);
    return r_.u32("trace file");
  }
  std::span<const uint8_t> bytes(uint64_t n, std::string_view field) {
    need(n, field);
    return r_.bytes(n, "trace file");
  }
  size_t remaining() const { return r_.remaining(); }

 private:
  ByteReader r_;
};

uint32_t le32(const uint8_t* p) {
  return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}

// The shipped AIR of a trace file's name (InputError for another name).
std::shared_ptr<const Air> shipped_air(const std::string& name) {
  if (name == "fibonacci") return std::make_shared<FibonacciAir>();
  if (name == "keccak") return std::make_shared<KeccakAir>();
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
  out.reserve(kMagic.size() + 4 * 5 + padded(uint32_t(file.air.size())) + 4 * file.public_values.size() +
              4 * m.values.size());
  ByteWriter w(out);
  w.u32(kTraceFileVersion);
  w.u32(uint32_t(file.air.size()));
  out.insert(out.end(), file.air.begin(), file.air.end());
  out.resize(out.size() + padded(uint32_t(file.air.size())) - file.air.size(), 0);
  w.u32(m.width);
  w.u32(uint32_t(std::countr_zero(m.height)));
  w.u32(uint32_t(file.public_values.size()));
  for (Fp v : file.public_values) w.f(v);
  for (Fp v : m.values) w.f(v);
  return out;
}

TraceFile decode_trace_file(std::span<const uint8_t> bytes) {
  if (bytes.size() < kMagic.size() || !std::equal(kMagic.begin(), kMagic.end(), bytes.begin()))
    fail(fmt::format("magic: the file does not start with \"{}\": not a vkstark trace file", kMagic));
  Reader r(bytes);
  (void)r.bytes(kMagic.size(), "magic");
  const uint32_t version = r.u32("version");
  if (version != kTraceFileVersion)
    fail(fmt::format("version {} (this build reads version {})", version, kTraceFileVersion));

  TraceFile file;
  const uint32_t name_len = r.u32("AIR name length");
  if (name_len > kMaxNameBytes) fail(fmt::format("AIR name length {} > {}", name_len, kMaxNameBytes));
  const auto name = r.bytes(padded(name_len), "AIR name");
  file.air.assign(name.begin(), name.begin() + name_len);
  if (std::string p = name_problem(file.air); !p.empty()) fail(p);
  for (uint32_t i = name_len; i < name.size(); ++i)
    if (name[i] != 0) fail(fmt::format("AIR name padding byte {} is {}, not 0", i - name_len, name[i]));

  const uint32_t width = r.u32("width");
  const uint32_t log_height = r.u32("log2 height");
  if (log_height > kMaxLogHeight) fail(fmt::format("log2 height {} > {}", log_height, kMaxLogHeight));
  const uint32_t height = 1u << log_height;
  const uint32_t num_public = r.u32("public value count");
  if (num_public > kMaxPublicValues) fail(fmt::format("public value count {} > {}", num_public, kMaxPublicValues));

  // Both lengths are checked against the bytes left before anything is allocated for them: the
  // products fit a u64 (4096 x 4 and 2^32 x 2^24 x 4).
  const auto pv = r.bytes(uint64_t(num_public) * 4, "public values");
  file.public_values.resize(num_public);
  for (uint32_t i = 0; i < num_public; ++i) {
    const uint32_t v = le32(&pv[4 * size_t(i)]);
    if (v >= Fp::P) fail(fmt::format("public value {}: {} is not a canonical BabyBear element", i, v));
    file.public_values[i] = Fp::from_canonical_unchecked(v);
  }

  const uint64_t cells = uint64_t(width) * height;
  const auto values = r.bytes(cells * 4, "values");
  file.main = TraceMatrix(width, height);
  for (uint64_t i = 0; i < cells; ++i) {
    const uint32_t v = le32(&values[4 * i]);
    if (v >= Fp::P)
      fail(fmt::format("column {} row {}: {} is not a canonical BabyBear element", i / height, i % height, v));
    file.main.values[i] = Fp::from_canonical_unchecked(v);
  }
  if (r.remaining() != 0) fail(fmt::format("{} bytes past the end", r.remaining()));
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
