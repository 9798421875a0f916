#include "product/batch/manifest.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <span>
#include <system_error>

#include "runtime/error.hpp"
#include "stages/common/params.hpp"

namespace vkstark::batch {

namespace {

namespace fs = std::filesystem;

constexpr size_t kMaxLineBytes = 4096;
constexpr size_t kMaxNameBytes = 64;
constexpr uint32_t kMaxPermutations = 1u << 16;
constexpr uint32_t kMinRows = 4;
constexpr uint32_t kMaxRows = 1u << 24;
constexpr uint32_t kMinLogStacked = 8;

// The keys, in the order the "unknown key" message lists them.
constexpr std::array<std::string_view, 10> kKeys = {
    "air", "permutations", "rows", "seed", "trace", "vk", "input", "params", "log_stacked_height", "out"};

bool is_name_char(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
}

bool valid_name(std::string_view name) {
  return !name.empty() && name.size() <= kMaxNameBytes && std::all_of(name.begin(), name.end(), is_name_char);
}

// A whole decimal token (digits only: no sign, space or "0x"), at most UINT32_MAX.
std::optional<uint32_t> parse_u32(std::string_view s) {
  if (s.empty() || !std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; })) return std::nullopt;
  uint32_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

// `value` taken from `folder` when relative (and folder is not empty).
std::string resolve(std::string_view folder, std::string_view value) {
  const fs::path p(value);
  if (folder.empty() || p.is_absolute()) return std::string(value);
  return (fs::path(folder) / p).string();
}

// One manifest line's fields, as written.
struct Fields {
  std::map<std::string_view, std::string_view> values;
  std::optional<std::string_view> get(std::string_view key) const {
    const auto it = values.find(key);
    if (it == values.end()) return std::nullopt;
    return it->second;
  }
};

class LineParser {
 public:
  LineParser(std::string_view source, uint32_t line) : source_(source), line_(line) {}

  [[noreturn]] void fail(std::string_view what) const {
    throw InputError(fmt::format("{} line {}: {}", source_, line_, what));
  }

  // Bytes a line may not hold: NUL and the other control characters but tab (a stray \r included).
  void check_bytes(std::string_view text) const {
    if (text.size() > kMaxLineBytes) fail(fmt::format("{} bytes, at most {} a line", text.size(), kMaxLineBytes));
    for (size_t i = 0; i < text.size(); ++i) {
      const auto c = static_cast<unsigned char>(text[i]);
      if (c == 0) fail(fmt::format("a NUL byte at byte {}", i + 1));
      if ((c < 0x20 && c != '\t') || c == 0x7f) fail(fmt::format("control character 0x{:02x} at byte {}", c, i + 1));
    }
  }

  // The fields of `tokens` (all but the name).
  Fields fields(std::span<const std::string_view> tokens) const {
    Fields f;
    for (std::string_view t : tokens) {
      const size_t eq = t.find('=');
      if (eq == std::string_view::npos) fail(fmt::format("'{}' is not key=value", t));
      const std::string_view key = t.substr(0, eq), value = t.substr(eq + 1);
      if (std::find(kKeys.begin(), kKeys.end(), key) == kKeys.end())
        fail(fmt::format("unknown key '{}' (expected {})", key, fmt::join(kKeys, ", ")));
      if (value.empty()) fail(fmt::format("{}= has no value", key));
      if (!f.values.emplace(key, value).second) fail(fmt::format("{}= given twice", key));
    }
    return f;
  }

  uint32_t number(const Fields& f, std::string_view key, uint32_t min, uint32_t max) const {
    const std::string_view v = *f.get(key);
    const std::optional<uint32_t> n = parse_u32(v);
    if (!n || *n < min || *n > max) fail(fmt::format("{}={}: not a whole number in [{}, {}]", key, v, min, max));
    return *n;
  }

  uint32_t rows(const Fields& f) const {
    const std::string_view v = *f.get("rows");
    const std::optional<uint32_t> n = parse_u32(v);
    if (!n || *n < kMinRows || *n > kMaxRows || !std::has_single_bit(*n))
      fail(fmt::format("rows={}: not a power of two in [{}, {}]", v, kMinRows, kMaxRows));
    return *n;
  }

  // A key that only one AIR (or two) takes.
  void only_for(const Fields& f, std::string_view key, std::string_view air, std::string_view other = {}) const {
    if (!f.get(key) || f.get("air") == air || (!other.empty() && f.get("air") == other)) return;
    fail(other.empty() ? fmt::format("{}= is for air={}", key, air)
                       : fmt::format("{}= is for air={} or air={}", key, air, other));
  }

  Job job(std::string_view name, const Fields& f, std::string_view folder, const Job& defaults) const {
    Job job;
    job.line = line_;
    job.name = std::string(name);
    job.params = defaults.params;
    job.log_stacked = defaults.log_stacked;
    const auto air = f.get("air"), trace = f.get("trace"), vk = f.get("vk"), input = f.get("input");
    if (int(air.has_value()) + int(trace.has_value()) + int(vk.has_value() || input.has_value()) > 1)
      fail(air ? fmt::format("air={} and {}= both given", *air,
                             trace ? "trace"
                             : vk  ? "vk"
                                   : "input")
               : fmt::format("trace= and {}= both given", vk ? "vk" : "input"));
    if (!air && !trace && !vk && !input) fail("no air=, trace= or vk= with input=");
    if (vk.has_value() != input.has_value()) fail(vk ? "vk= needs input= (the proving input)" : "input= needs vk=");
    if (vk && (f.get("params") || f.get("log_stacked_height")))
      fail(fmt::format("{}= does not apply with vk= (the verifying key fixes the params)",
                       f.get("params") ? "params" : "log_stacked_height"));
    only_for(f, "permutations", "keccakf");
    only_for(f, "seed", "keccakf");
    only_for(f, "rows", "fibonacci", "interactions");
    if (air == "keccakf") {
      if (!f.get("permutations")) fail("air=keccakf needs permutations=");
      job.size = number(f, "permutations", 1, kMaxPermutations);
      if (f.get("seed")) job.seed = number(f, "seed", 0, UINT32_MAX);
    } else if (air == "fibonacci" || air == "interactions") {
      if (!f.get("rows")) fail(fmt::format("air={} needs rows=", *air));
      job.size = rows(f);
    } else if (air) {
      fail(fmt::format("air={}: expected keccakf, fibonacci or interactions", *air));
    }
    if (air) job.air = std::string(*air);
    if (trace) job.trace_file = resolve(folder, *trace);
    if (vk) {
      job.vk_file = resolve(folder, *vk);
      job.input_file = resolve(folder, *input);
    }
    if (const auto p = f.get("params")) {
      if (*p != "secure" && *p != "test") fail(fmt::format("params={}: expected secure or test", *p));
      job.params = std::string(*p);
    }
    if (f.get("log_stacked_height"))
      job.log_stacked = number(f, "log_stacked_height", kMinLogStacked, kMaxLogStackedHeight);
    const auto out = f.get("out");
    if (!out) fail("no out=");
    job.out = resolve(folder, *out);
    return job;
  }

 private:
  std::string_view source_;
  uint32_t line_;
};

// The tokens of a line up to its comment (a token that starts with '#').
std::vector<std::string_view> tokens_of(std::string_view text) {
  std::vector<std::string_view> tokens;
  size_t i = 0;
  while (i < text.size()) {
    if (text[i] == ' ' || text[i] == '\t') {
      ++i;
      continue;
    }
    if (text[i] == '#') break;
    const size_t end = std::min(text.find_first_of(" \t", i), text.size());
    tokens.push_back(text.substr(i, end - i));
    i = end;
  }
  return tokens;
}

}  // namespace

std::vector<Job> parse_manifest(std::string_view text, std::string_view source, std::string_view folder,
                                const Job& defaults) {
  if (text.size() > kMaxManifestBytes)
    throw InputError(fmt::format("{}: {} bytes, at most {}", source, text.size(), kMaxManifestBytes));
  std::vector<Job> jobs;
  std::map<std::string_view, uint32_t> name_lines;  // views into `text`
  std::map<std::string, uint32_t> out_lines;        // by the resolved path, lexically normalised
  uint32_t line = 0;
  for (size_t start = 0; start < text.size();) {
    const size_t nl = text.find('\n', start);
    const size_t end = nl == std::string_view::npos ? text.size() : nl;
    std::string_view content = text.substr(start, end - start);
    start = end + 1;
    ++line;
    if (content.ends_with('\r')) content.remove_suffix(1);
    const LineParser p(source, line);
    p.check_bytes(content);
    const std::vector<std::string_view> tokens = tokens_of(content);
    if (tokens.empty()) continue;
    const std::string_view name = tokens.front();
    if (name.find('=') != std::string_view::npos)
      p.fail(fmt::format("the line starts with '{}': a job's name comes first", name));
    if (!valid_name(name)) p.fail(fmt::format("the name '{}' is not [A-Za-z0-9._-]{{1,{}}}", name, kMaxNameBytes));
    if (const auto [it, fresh] = name_lines.emplace(name, line); !fresh)
      p.fail(fmt::format("the name '{}' is used on line {} too", name, it->second));
    if (jobs.size() == kMaxJobs) p.fail(fmt::format("more than {} jobs", kMaxJobs));
    const Fields fields = p.fields(std::span(tokens).subspan(1));
    Job job = p.job(name, fields, folder, defaults);
    if (const auto [it, fresh] = out_lines.emplace(fs::path(job.out).lexically_normal().string(), line); !fresh)
      p.fail(fmt::format("out={} is the out of line {} too", *fields.get("out"), it->second));
    jobs.push_back(std::move(job));
  }
  if (jobs.empty()) throw InputError(fmt::format("{}: no jobs", source));
  return jobs;
}

std::string read_manifest_text(const std::string& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) throw InputError(fmt::format("cannot read the manifest '{}': a folder", path));
  if (!fs::exists(path, ec)) throw InputError(fmt::format("cannot read the manifest '{}': no such file", path));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(fmt::format("cannot read the manifest '{}'", path));
  // Read at most one byte past the bound, so that a file that grows or has no size (a pipe) is
  // bounded too.
  std::string text;
  std::array<char, 1 << 16> buffer;
  while (in && text.size() <= kMaxManifestBytes) {
    in.read(buffer.data(), std::streamsize(std::min<uint64_t>(buffer.size(), kMaxManifestBytes + 1 - text.size())));
    text.append(buffer.data(), size_t(in.gcount()));
  }
  if (text.size() > kMaxManifestBytes)
    throw InputError(fmt::format("the manifest '{}' is larger than {} bytes", path, kMaxManifestBytes));
  if (in.bad()) throw InputError(fmt::format("cannot read the manifest '{}'", path));
  return text;
}

std::string manifest_folder(const std::string& path) { return fs::path(path).parent_path().string(); }

std::vector<Job> read_manifest(const std::string& path, const Job& defaults) {
  return parse_manifest(read_manifest_text(path), path, manifest_folder(path), defaults);
}

std::vector<Job> trace_folder_jobs(const std::string& folder, const std::string& out_folder, const Job& defaults) {
  std::error_code ec;
  fs::directory_iterator it(folder, ec);
  if (ec) throw InputError(fmt::format("cannot read the trace folder '{}': {}", folder, ec.message()));
  std::vector<fs::path> files;
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    const fs::path& p = it->path();
    // Every *.vkt entry is a job, whatever it is: one that is no regular file (a folder, a FIFO, a
    // dangling link) fails as its job, named in the summary, instead of vanishing from the batch.
    if (p.extension() == ".vkt") files.push_back(p);
    if (files.size() > kMaxJobs)
      throw InputError(fmt::format("the trace folder '{}' holds more than {} trace files", folder, kMaxJobs));
  }
  if (ec) throw InputError(fmt::format("cannot read the trace folder '{}': {}", folder, ec.message()));
  if (files.empty()) throw InputError(fmt::format("the trace folder '{}' holds no trace file (*.vkt)", folder));
  std::sort(files.begin(), files.end(),
            [](const fs::path& a, const fs::path& b) { return a.filename() < b.filename(); });
  std::vector<Job> jobs;
  jobs.reserve(files.size());
  for (const fs::path& p : files) {
    const std::string stem = p.stem().string();
    if (!valid_name(stem))
      throw InputError(
          fmt::format("trace file '{}': the name '{}' is not [A-Za-z0-9._-]{{1,{}}}", p.string(), stem, kMaxNameBytes));
    Job job;
    job.name = stem;
    job.trace_file = p.string();
    job.params = defaults.params;
    job.log_stacked = defaults.log_stacked;
    job.out = (fs::path(out_folder) / (stem + ".vkp")).string();
    jobs.push_back(std::move(job));
  }
  return jobs;
}

}  // namespace vkstark::batch
