#include "product/proving_input.hpp"

#include <fmt/format.h>

#include <bit>
#include <string_view>

#include "product/detail/field_file.hpp"
#include "runtime/error.hpp"
#include "stages/air/dag_air.hpp"
#include "stages/encoding/codec.hpp"

namespace vkstark {

namespace {

constexpr std::string_view kMagic = "VKSINPUT";
constexpr const char* kPrefix = "proving input";

[[noreturn]] void fail(std::string_view what) { throw DecodeError(fmt::format("{}: {}", kPrefix, what)); }

std::string air_label(size_t a, const std::string& name) { return fmt::format("AIR {} ({})", a, name); }

// One matrix of the values section: which AIR and part, its shape.
struct MatrixSlot {
  enum class Part { Preprocessed, Cached, Common };
  uint32_t air = 0;
  Part part = Part::Common;
  uint32_t cached = 0;  // Part::Cached: which cached part
  uint32_t width = 0, log_height = 0;
  uint64_t cells() const { return uint64_t(width) << log_height; }
  std::string name() const {
    return part == Part::Preprocessed ? "preprocessed"
           : part == Part::Common     ? "common main"
                                      : fmt::format("cached part {}", cached);
  }
};

// The headers decoded: the input without values (each matrix has its shape, no cells), the matrices
// in file order, and the byte offset of the values.
struct Head {
  ProvingInput input;
  std::vector<MatrixSlot> slots;
  uint64_t values_at = 0;
  uint64_t value_bytes = 0;  // of every matrix together (checked against the input's size)
};

TraceMatrix& slot_matrix(ProvingInput& in, const MatrixSlot& s) {
  ProvingInputAir& a = in.airs[s.air];
  switch (s.part) {
    case MatrixSlot::Part::Preprocessed:
      return *a.preprocessed;
    case MatrixSlot::Part::Cached:
      return a.cached[s.cached];
    case MatrixSlot::Part::Common:
      break;
  }
  return a.common;
}

// The fixed words at the start: magic, version, header byte count. The reader is left at the first
// AIR header.
uint32_t decode_start(detail::CheckedReader& r, std::span<const uint8_t> bytes) {
  if (bytes.size() < kMagic.size() || !std::equal(kMagic.begin(), kMagic.end(), bytes.begin()))
    fail(fmt::format("magic: the file does not start with \"{}\": not a vkstark proving input", kMagic));
  (void)r.bytes(kMagic.size(), "magic");
  const uint32_t version = r.u32("version");
  if (version != kProvingInputVersion)
    fail(fmt::format("version {} (this build reads version {})", version, kProvingInputVersion));
  return r.u32("header byte count");
}

// The AIR headers, from `r` at the first of them to exactly `header_bytes` later.
Head decode_headers(detail::CheckedReader& r, uint32_t header_bytes, uint64_t total_bytes) {
  const uint64_t start = r.pos();
  Head h;
  const uint32_t count = r.u32("AIR count");
  if (count == 0 || count > kProvingInputMaxAirs)
    fail(fmt::format("AIR count {} (expected 1 to {})", count, kProvingInputMaxAirs));
  r.need(uint64_t(count) * 20, "AIR headers");  // each at least 5 words: bounds the reserve
  h.input.airs.reserve(count);
  for (uint32_t a = 0; a < count; ++a) {
    ProvingInputAir air;
    air.name = r.name(fmt::format("AIR {} name", a), kProvingInputMaxNameBytes);
    const std::string label = air_label(a, air.name);
    auto field = [&](std::string_view what) { return fmt::format("{} {}", label, what); };
    const uint32_t pre_width = r.u32(field("preprocessed width"));
    const uint32_t pre_log = r.u32(field("preprocessed log height"));
    if (pre_log > kProvingInputMaxLogHeight)
      r.fail(fmt::format("{}: preprocessed log height {} > {}", label, pre_log, kProvingInputMaxLogHeight));
    if (pre_width == 0 && pre_log != 0)
      r.fail(fmt::format("{}: preprocessed log height {} without a preprocessed part (width 0)", label, pre_log));
    if (pre_width > 0) {
      air.preprocessed = TraceMatrix();
      air.preprocessed->width = pre_width;
      air.preprocessed->height = 1u << pre_log;
      h.slots.push_back({a, MatrixSlot::Part::Preprocessed, 0, pre_width, pre_log});
    }
    const uint32_t present = r.u32(field("present flag"));
    if (present > 1) r.fail(fmt::format("{}: present flag {} is neither 0 nor 1", label, present));
    air.present = present == 1;
    if (air.present) {
      const uint32_t log_height = r.u32(field("log height"));
      if (log_height > kProvingInputMaxLogHeight)
        r.fail(fmt::format("{}: log height {} > {}", label, log_height, kProvingInputMaxLogHeight));
      const uint32_t cached = r.u32(field("cached part count"));
      if (cached > kProvingInputMaxCached)
        r.fail(fmt::format("{}: {} cached parts, more than {}", label, cached, kProvingInputMaxCached));
      for (uint32_t i = 0; i < cached; ++i) {
        const uint32_t w = r.u32(field(fmt::format("cached part {} width", i)));
        if (w == 0) r.fail(fmt::format("{}: cached part {} has width 0", label, i));
        TraceMatrix m;
        m.width = w;
        m.height = 1u << log_height;
        air.cached.push_back(std::move(m));
        h.slots.push_back({a, MatrixSlot::Part::Cached, i, w, log_height});
      }
      const uint32_t common = r.u32(field("common main width"));
      if (common == 0) r.fail(fmt::format("{}: common main width 0", label));
      air.common.width = common;
      air.common.height = 1u << log_height;
      h.slots.push_back({a, MatrixSlot::Part::Common, 0, common, log_height});
      const uint32_t publics = r.u32(field("public value count"));
      if (publics > kProvingInputMaxPublicValues)
        r.fail(fmt::format("{}: {} public values, more than {}", label, publics, kProvingInputMaxPublicValues));
      r.need(uint64_t(publics) * 4, field("public values"));
      air.public_values.reserve(publics);
      for (uint32_t i = 0; i < publics; ++i)
        air.public_values.push_back(r.canonical(field(fmt::format("public value {}", i))));
    }
    h.input.airs.push_back(std::move(air));
  }
  if (r.pos() - start != header_bytes)
    fail(fmt::format("the header byte count is {}, the AIR headers take {}", header_bytes, r.pos() - start));
  h.values_at = r.pos();
  // Every matrix's values must be in the input: summed against what is left, so that the sum cannot
  // overflow and a lying header allocates nothing.
  const uint64_t left = total_bytes - h.values_at;
  for (const MatrixSlot& s : h.slots) {
    const uint64_t bytes = s.cells() * 4;
    if (bytes > left - h.value_bytes)
      fail(fmt::format("truncated in the {} {} values ({} bytes left, {} needed)",
                       air_label(s.air, h.input.airs[s.air].name), s.name(), left - h.value_bytes, bytes));
    h.value_bytes += bytes;
  }
  if (left > h.value_bytes) fail(fmt::format("{} bytes past the end", left - h.value_bytes));
  return h;
}

// A matrix's canonical words turned into field elements in place: DecodeError naming the AIR, part,
// column and row of the first value that is not canonical.
void convert(const Head& h, const MatrixSlot& s, const uint8_t* bytes, Fp* values) {
  if (const auto i = detail::convert_canonical(bytes, values, s.cells())) {
    const uint64_t height = uint64_t(1) << s.log_height;
    fail(fmt::format("{} {} column {} row {}: {} is not a canonical BabyBear element",
                     air_label(s.air, h.input.airs[s.air].name), s.name(), *i / height, *i % height,
                     detail::le32(bytes + 4 * *i)));
  }
}

// Fills every matrix of `h` with fill(slot, matrix), in file order; then the input. The AIR names
// stay in `h` while it fills (for messages).
template <class Fill>
ProvingInput fill_values(Head& h, Fill&& fill) {
  for (const MatrixSlot& s : h.slots) fill(s, slot_matrix(h.input, s));
  return std::move(h.input);
}

void check_matrix(const std::string& label, const std::string& part, const TraceMatrix& m) {
  if (m.width == 0) throw InputError(fmt::format("proving input: {}: the {} has width 0", label, part));
  if (m.height == 0 || !std::has_single_bit(m.height) || std::countr_zero(m.height) > int(kProvingInputMaxLogHeight))
    throw InputError(fmt::format("proving input: {}: the {} height {} is not a power of two in [1, 2^{}]", label, part,
                                 m.height, kProvingInputMaxLogHeight));
  if (m.values.size() != uint64_t(m.width) * m.height)
    throw InputError(fmt::format("proving input: {}: the {} holds {} values, not {} x {}", label, part, m.values.size(),
                                 m.width, m.height));
}

}  // namespace

std::vector<uint8_t> encode_proving_input(const ProvingInput& input) {
  if (input.airs.empty() || input.airs.size() > kProvingInputMaxAirs)
    throw InputError(fmt::format("proving input: {} AIRs (expected 1 to {})", input.airs.size(), kProvingInputMaxAirs));
  std::vector<uint8_t> head;
  ByteWriter h(head);
  h.u32(uint32_t(input.airs.size()));
  uint64_t value_count = 0;
  for (size_t a = 0; a < input.airs.size(); ++a) {
    const ProvingInputAir& air = input.airs[a];
    if (std::string p = detail::name_problem(air.name, kProvingInputMaxNameBytes); !p.empty())
      throw InputError(fmt::format("proving input: AIR {}: {}", a, p));
    const std::string label = air_label(a, air.name);
    h.u32(uint32_t(air.name.size()));
    head.insert(head.end(), air.name.begin(), air.name.end());
    head.resize(head.size() + detail::padded4(uint32_t(air.name.size())) - air.name.size(), 0);
    if (air.preprocessed) {
      check_matrix(label, "preprocessed trace", *air.preprocessed);
      h.u32(air.preprocessed->width);
      h.u32(uint32_t(std::countr_zero(air.preprocessed->height)));
      value_count += air.preprocessed->values.size();
    } else {
      h.u32(0);
      h.u32(0);
    }
    h.u32(air.present ? 1 : 0);
    if (!air.present) {
      if (!air.cached.empty() || air.common.width != 0 || !air.public_values.empty())
        throw InputError(fmt::format("proving input: {}: absent, but has trace parts or public values", label));
      continue;
    }
    check_matrix(label, "common main", air.common);
    if (air.cached.size() > kProvingInputMaxCached)
      throw InputError(fmt::format("proving input: {}: {} cached parts, more than {}", label, air.cached.size(),
                                   kProvingInputMaxCached));
    if (air.public_values.size() > kProvingInputMaxPublicValues)
      throw InputError(fmt::format("proving input: {}: {} public values, more than {}", label, air.public_values.size(),
                                   kProvingInputMaxPublicValues));
    h.u32(uint32_t(std::countr_zero(air.common.height)));
    h.u32(uint32_t(air.cached.size()));
    for (size_t i = 0; i < air.cached.size(); ++i) {
      check_matrix(label, fmt::format("cached part {}", i), air.cached[i]);
      if (air.cached[i].height != air.common.height)
        throw InputError(fmt::format("proving input: {}: cached part {} has {} rows, the common main {}", label, i,
                                     air.cached[i].height, air.common.height));
      h.u32(air.cached[i].width);
      value_count += air.cached[i].values.size();
    }
    h.u32(air.common.width);
    value_count += air.common.values.size();
    h.u32(uint32_t(air.public_values.size()));
    for (Fp v : air.public_values) h.u32(v.value());
  }
  std::vector<uint8_t> out(kMagic.begin(), kMagic.end());
  out.reserve(kMagic.size() + 8 + head.size() + 4 * value_count);
  ByteWriter w(out);
  w.u32(kProvingInputVersion);
  w.u32(uint32_t(head.size()));
  out.insert(out.end(), head.begin(), head.end());
  auto values = [&](const TraceMatrix& m) {
    for (Fp v : m.values) w.u32(v.value());
  };
  for (const ProvingInputAir& air : input.airs) {
    if (air.preprocessed) values(*air.preprocessed);
    if (!air.present) continue;
    for (const TraceMatrix& m : air.cached) values(m);
    values(air.common);
  }
  return out;
}

ProvingInput decode_proving_input(std::span<const uint8_t> bytes) {
  detail::CheckedReader r(bytes, kPrefix);
  const uint32_t header_bytes = decode_start(r, bytes);
  r.need(header_bytes, "AIR headers");
  detail::CheckedReader hr(bytes.first(r.pos() + header_bytes), kPrefix);
  (void)hr.bytes(r.pos(), "magic");
  Head h = decode_headers(hr, header_bytes, bytes.size());
  uint64_t at = h.values_at;
  return fill_values(h, [&](const MatrixSlot& s, TraceMatrix& m) {
    m.values = TraceValues(s.cells());
    convert(h, s, bytes.data() + at, m.values.data());
    at += s.cells() * 4;
  });
}

ProvingInput read_proving_input(const std::string& path, const std::function<TraceValues(uint64_t)>& allocate) {
  const detail::PositionalFile in(path, "proving input");
  const uint64_t size = in.size();
  std::vector<uint8_t> start(std::min<uint64_t>(size, kMagic.size() + 8));
  if (!in.read_at(start.data(), start.size(), 0)) fail("the file changed while it was read");
  detail::CheckedReader sr(start, kPrefix);
  const uint32_t header_bytes = decode_start(sr, start);
  if (size - start.size() < header_bytes)
    fail(fmt::format("truncated in the AIR headers ({} bytes left, {} needed)", size - start.size(), header_bytes));
  std::vector<uint8_t> head(start.size() + header_bytes);
  if (!in.read_at(head.data(), head.size(), 0)) fail("the file changed while it was read");
  detail::CheckedReader hr(head, kPrefix);
  (void)hr.bytes(start.size(), "magic");
  Head h = decode_headers(hr, header_bytes, size);
  uint64_t at = h.values_at;
  return fill_values(h, [&](const MatrixSlot& s, TraceMatrix& m) {
    const uint64_t cells = s.cells();
    // A preprocessed trace goes to the heap: the key keeps it, beyond any one proof's memory.
    const bool main_part = s.part != MatrixSlot::Part::Preprocessed;
    m.values = allocate && main_part ? allocate(cells) : TraceValues(cells);
    if (m.values.size() != cells)
      throw InputError(
          fmt::format("proving input '{}': {} cells of memory given for {}", path, m.values.size(), cells));
    if (!in.read_at(m.values.data(), cells * 4, at)) fail("the file changed while it was read");
    convert(h, s, reinterpret_cast<const uint8_t*>(m.values.data()), m.values.data());
    at += cells * 4;
  });
}

MultiStarkVerifyingKey read_vk_file(const std::string& path) {
  const detail::PositionalFile in(path, "vk file");
  if (in.size() > kMaxVkFileBytes)
    throw InputError(fmt::format("the vk file '{}' has {} bytes, more than the {} a verifying key may take", path,
                                 in.size(), kMaxVkFileBytes));
  std::vector<uint8_t> bytes(in.size());
  if (!in.read_at(bytes.data(), bytes.size(), 0))
    throw InputError(fmt::format("cannot read the vk file '{}': it changed while it was read", path));
  try {
    return decode_vk_file(bytes);
  } catch (const DecodeError& e) {
    throw DecodeError(fmt::format("{}: {}", path, e.what()), e.code());
  }
}

ProvingInput to_proving_input(std::span<const std::shared_ptr<const Air>> key_airs,
                              std::span<const std::optional<AirWithTraces>> traces) {
  if (key_airs.size() != traces.size())
    throw InputError(fmt::format("proving input: {} trace sets for {} AIRs", traces.size(), key_airs.size()));
  ProvingInput in;
  for (size_t a = 0; a < key_airs.size(); ++a) {
    if (!key_airs[a]) throw InputError(fmt::format("proving input: AIR {} is null", a));
    ProvingInputAir air;
    air.name = key_airs[a]->name();
    air.preprocessed = key_airs[a]->preprocessed_trace();
    if (const std::optional<AirWithTraces>& t = traces[a]) {
      if (t->air && t->air->name() != air.name)
        throw InputError(
            fmt::format("proving input: AIR {} is {}, its traces are given for AIR {}", a, air.name, t->air->name()));
      t->validate();
      air.present = true;
      for (size_t i = 0; i < key_airs[a]->shape().num_cached(); ++i) air.cached.push_back(t->cached_part(i));
      air.common = t->common;
      air.public_values = t->public_values;
    }
    in.airs.push_back(std::move(air));
  }
  return in;
}

DataJob prover_job(const MultiStarkVerifyingKey& vk, ProvingInput input, std::span<const Air* const> sources) {
  const size_t n = vk.per_air.size();
  if (input.airs.size() != n)
    throw InputError(fmt::format("the proving input has {} AIRs, the verifying key {}: it is not an input for this key",
                                 input.airs.size(), n));
  DataJob job;
  std::vector<std::optional<TraceMatrix>> preprocessed;
  bool any = false;
  const uint32_t max_log = vk.params.log_stacked_height();
  for (size_t a = 0; a < n; ++a) {
    ProvingInputAir& in = input.airs[a];
    const StarkVerifyingKey& key = vk.per_air[a];
    const std::string label = air_label(a, in.name);
    auto reject = [&](const std::string& what) { throw InputError(fmt::format("{}: {}", label, what)); };
    const AirShape shape = key.shape();
    if (in.preprocessed.has_value() != (shape.preprocessed_width > 0))
      reject(in.preprocessed ? "the input has a preprocessed trace, the verifying key no preprocessed part"
                             : fmt::format("the verifying key has a preprocessed part of width {}; the input has no "
                                           "preprocessed trace for it",
                                           shape.preprocessed_width));
    if (in.preprocessed && in.preprocessed->width != shape.preprocessed_width)
      reject(fmt::format("the preprocessed trace has {} columns, the verifying key {}", in.preprocessed->width,
                         shape.preprocessed_width));
    if (!in.present && key.is_required) reject("absent from the input, but the verifying key requires it");
    if (in.present) {
      any = true;
      const uint32_t log_height = std::countr_zero(in.common.height);
      if (log_height > max_log)
        reject(fmt::format("trace height 2^{} is above the params' stacked height 2^{}", log_height, max_log));
      if (in.preprocessed && in.preprocessed->height != in.common.height)
        reject(fmt::format("trace height {} is not its preprocessed trace's {}", in.common.height,
                           in.preprocessed->height));
      if (in.cached.size() != shape.num_cached())
        reject(fmt::format("{} cached parts, the verifying key has {}", in.cached.size(), shape.num_cached()));
      for (size_t i = 0; i < in.cached.size(); ++i)
        if (in.cached[i].width != shape.cached_widths[i])
          reject(fmt::format("cached part {} has width {}, the verifying key {}", i, in.cached[i].width,
                             shape.cached_widths[i]));
      if (in.common.width != shape.common_width)
        reject(fmt::format("common main width {}, the verifying key {}", in.common.width, shape.common_width));
      if (in.public_values.size() != shape.num_public_values)
        reject(fmt::format("{} public values, the verifying key {}", in.public_values.size(), shape.num_public_values));
    }
    job.names.push_back(in.name);
    preprocessed.push_back(std::move(in.preprocessed));
  }
  if (!any) throw InputError("the proving input has no AIR present: nothing to prove");
  job.airs = airs_from_vk(vk, job.names, std::move(preprocessed), sources);
  for (size_t a = 0; a < n; ++a) {
    ProvingInputAir& in = input.airs[a];
    if (!in.present) {
      job.traces.emplace_back(std::nullopt);
      continue;
    }
    job.traces.emplace_back(
        AirWithTraces(job.airs[a], std::move(in.cached), std::move(in.common), std::move(in.public_values)));
  }
  return job;
}

}  // namespace vkstark
