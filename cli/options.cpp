#include "cli/options.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "runtime/file.hpp"

namespace vkstark::cli {

namespace {

constexpr std::string_view kHelp = "--help";
constexpr size_t kUsageWidth = 100;  // the usage line wraps here
constexpr size_t kMaxColumn = 30;    // help texts start here, unless an option's name is longer

// A whole decimal token: digits only (no sign, space, "0x" or trailing characters), no overflow.
bool parse_whole(std::string_view s, uint64_t& out) {
  if (s.empty()) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && end == s.data() + s.size();
}

}  // namespace

Options::Options(std::string program, std::string description)
    : program_(std::move(program)), description_(std::move(description)) {}

void Options::add(Option o) {
  if (!o.name.starts_with("--") || o.name == kHelp || find(o.name))
    throw std::logic_error(fmt::format("{}: option '{}' declared twice or badly named", program_, o.name));
  options_.push_back(std::move(o));
}

Options::Option* Options::find(std::string_view name) {
  for (Option& o : options_)
    if (o.kind != Kind::passthrough && o.name == name) return &o;
  return nullptr;
}

bool Options::given(std::string_view name) const {
  for (const Option& o : options_)
    if (o.name == name) return o.given;
  throw std::logic_error(fmt::format("{}: no option {} declared", program_, name));
}

void Options::flag(std::string name, bool& dest, std::string help) {
  dest = false;
  add({.name = std::move(name),
       .metavar = "",
       .help = std::move(help),
       .allowed = "",
       .kind = Kind::flag,
       .set = [&dest](std::string_view) { dest = true; }});
}

void Options::add_number(std::string name, std::string metavar, uint64_t default_value, uint64_t min, uint64_t max,
                         std::string help, std::function<void(uint64_t)> store) {
  if (min > max || default_value < min || default_value > max)
    throw std::logic_error(fmt::format("{}: {} has its default outside its range", program_, name));
  std::string allowed = fmt::format("a whole number in [{}, {}]", min, max);
  auto set = [name, allowed, min, max, store = std::move(store)](std::string_view value) {
    uint64_t v = 0;
    if (!parse_whole(value, v)) throw UsageError(fmt::format("{}: '{}' is not {}", name, value, allowed));
    if (v < min) throw UsageError(fmt::format("{}: {} is below the least allowed, {} ({})", name, v, min, allowed));
    if (v > max) throw UsageError(fmt::format("{}: {} is above the largest allowed, {} ({})", name, v, max, allowed));
    store(v);
  };
  help += fmt::format(" ({} in [{}, {}], default {})", metavar, min, max, default_value);
  add({.name = std::move(name),
       .metavar = std::move(metavar),
       .help = std::move(help),
       .allowed = std::move(allowed),
       .kind = Kind::value,
       .set = std::move(set)});
}

void Options::choice(std::string name, std::string& dest, std::vector<std::string> choices, std::string default_value,
                     std::string help) {
  dest = default_value;
  std::string allowed = fmt::format("one of {}", fmt::join(choices, ", "));
  auto set = [name, allowed, choices, &dest](std::string_view value) {
    for (const std::string& c : choices)
      if (c == value) {
        dest = c;
        return;
      }
    throw UsageError(fmt::format("{}: '{}' is not {}", name, value, allowed));
  };
  if (!default_value.empty()) help += fmt::format(" (default {})", default_value);
  add({.name = std::move(name),
       .metavar = fmt::format("{}", fmt::join(choices, "|")),
       .help = std::move(help),
       .allowed = std::move(allowed),
       .kind = Kind::value,
       .set = std::move(set)});
}

bool same_regular_file(const std::string& x, const std::string& y) {
  std::error_code ec;
  const std::filesystem::path a = std::filesystem::weakly_canonical(x, ec);
  if (ec) return false;
  const std::filesystem::path b = std::filesystem::weakly_canonical(y, ec);
  if (ec || a != b) return false;
  const std::filesystem::file_status st = std::filesystem::status(a, ec);
  return !std::filesystem::exists(st) || std::filesystem::is_regular_file(st);
}

void Options::output(std::string name, std::string& dest, std::string help) {
  dest.clear();
  auto set = [name, &dest](std::string_view value) {
    if (value.empty()) throw UsageError(fmt::format("{}: empty file name", name));
    dest = value;
  };
  outputs_.emplace_back(name, &dest);
  add({.name = std::move(name),
       .metavar = "FILE",
       .help = std::move(help),
       .allowed = "a file name",
       .kind = Kind::output,
       .set = std::move(set)});
}

void Options::passthrough(std::string prefix, std::vector<std::string>& dest, std::string metavar, std::string help) {
  dest.clear();
  auto set = [&dest](std::string_view arg) { dest.emplace_back(arg); };
  // Not through add(): a prefix is no option name, and find() skips it.
  options_.push_back({.name = std::move(prefix),
                      .metavar = std::move(metavar),
                      .help = std::move(help),
                      .allowed = "",
                      .kind = Kind::passthrough,
                      .set = std::move(set)});
}

void Options::text(std::string name, std::string metavar, std::string& dest, std::string help) {
  dest.clear();
  auto set = [name, &dest](std::string_view value) {
    if (value.empty()) throw UsageError(fmt::format("{}: empty value", name));
    dest = value;
  };
  add({.name = std::move(name),
       .metavar = std::move(metavar),
       .help = std::move(help),
       .allowed = "a non-empty value",
       .kind = Kind::value,
       .set = std::move(set)});
}

void Options::input(std::string name, std::string& dest, std::string help) {
  dest.clear();
  auto set = [name, &dest](std::string_view value) {
    if (value.empty()) throw UsageError(fmt::format("{}: empty file name", name));
    dest = value;
  };
  add({.name = std::move(name),
       .metavar = "FILE",
       .help = std::move(help),
       .allowed = "a file name",
       .kind = Kind::value,
       .set = std::move(set)});
}

void Options::positional(std::string metavar, std::string& dest, std::string help) {
  dest.clear();
  auto set = [&dest](std::string_view arg) { dest = arg; };
  // Not through add(): find() looks up options by name, and a positional has none.
  options_.push_back({.name = "",
                      .metavar = std::move(metavar),
                      .help = std::move(help),
                      .allowed = "",
                      .kind = Kind::positional,
                      .set = std::move(set)});
}

Options::Outcome Options::parse(const std::vector<std::string_view>& args) {
  for (Option& o : options_) o.given = false;
  for (const std::string_view arg : args)
    if (arg == kHelp || arg == "-h") return Outcome::help;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string_view arg = args[i];
    if (!arg.starts_with("-") || arg == "-") {
      auto p = std::find_if(options_.begin(), options_.end(),
                            [](const Option& o) { return o.kind == Kind::positional && !o.given; });
      if (p == options_.end() || arg.empty()) throw UsageError(fmt::format("unexpected argument '{}'", arg));
      p->given = true;
      p->set(arg);
      continue;
    }
    const size_t eq = arg.find('=');
    const std::string_view name = arg.substr(0, eq);
    Option* o = find(name);
    if (!o) {
      auto pass = std::find_if(options_.begin(), options_.end(),
                               [&](const Option& p) { return p.kind == Kind::passthrough && arg.starts_with(p.name); });
      if (pass != options_.end()) {
        pass->set(arg);
        continue;
      }
      if (name == kHelp) throw UsageError(fmt::format("{} takes no value", kHelp));
      throw UsageError(fmt::format("unknown option '{}'", name));
    }
    if (o->given) throw UsageError(fmt::format("{} given more than once", o->name));
    o->given = true;
    if (o->kind == Kind::flag) {
      if (eq != std::string_view::npos) throw UsageError(fmt::format("{} takes no value (got '{}')", o->name, arg));
      o->set("");
      continue;
    }
    if (eq != std::string_view::npos) {
      o->set(arg.substr(eq + 1));
    } else if (i + 1 < args.size() && !args[i + 1].starts_with("--")) {
      o->set(args[++i]);
    } else {
      throw UsageError(fmt::format("{}: missing value ({})", o->name, o->allowed));
    }
  }
  for (const Option& o : options_)
    if (o.kind == Kind::positional && !o.given) throw UsageError(fmt::format("missing {} ({})", o.metavar, o.help));
  for (const auto& [name, dest] : outputs_)
    if (!dest->empty()) check_output(name, *dest);
  // Two outputs naming one file: the second write would replace the first (a proof lost behind a
  // vk file). Special files (/dev/null, a pipe) are written in place and may be shared.
  for (size_t a = 0; a < outputs_.size(); ++a)
    for (size_t b = a + 1; b < outputs_.size(); ++b) {
      const std::string &x = *outputs_[a].second, &y = *outputs_[b].second;
      if (x.empty() || y.empty() || !same_regular_file(x, y)) continue;
      throw UsageError(fmt::format("{} and {} name the same file '{}': each output needs its own", outputs_[a].first,
                                   outputs_[b].first, y));
    }
  return Outcome::run;
}

void Options::parse_or_exit(int argc, const char* const* argv) {
  std::vector<std::string_view> args(argv + std::min(argc, 1), argv + argc);
  try {
    if (parse(args) == Outcome::help) {
      fmt::print("{}", usage());
      std::fflush(stdout);
      std::exit(0);
    }
  } catch (const UsageError& e) {
    fail(e.what());
  }
}

void Options::fail(std::string_view message) const {
  fmt::print(stderr, "{}: {}\nTry '{} --help' for the options.\n", program_, message, program_);
  std::exit(2);
}

std::string Options::usage() const {
  std::string out = fmt::format("usage: {}", program_);
  const size_t indent = out.size() + 1;
  size_t line_start = 0;
  auto synopsis = [&](const std::string& word) {
    if (out.size() - line_start + 1 + word.size() > kUsageWidth) {
      out += '\n';
      line_start = out.size();
      out.append(indent - 1, ' ');
    }
    out += ' ';
    out += word;
  };
  auto left = [](const Option& o) {
    if (o.kind == Kind::passthrough || o.kind == Kind::positional) return o.metavar;
    return o.metavar.empty() ? o.name : fmt::format("{} {}", o.name, o.metavar);
  };
  for (const Option& o : options_)
    if (o.kind == Kind::positional) synopsis(o.metavar);
  for (const Option& o : options_)
    if (o.kind != Kind::positional) synopsis(fmt::format("[{}{}]", left(o), o.kind == Kind::passthrough ? "..." : ""));
  synopsis("[--help]");
  out += "\n";
  if (!description_.empty()) out += description_ + (description_.ends_with('\n') ? "" : "\n");
  out += "\noptions:\n";

  size_t column = std::string(kHelp).size();
  for (const Option& o : options_) column = std::max(column, std::min(left(o).size(), kMaxColumn));
  column += 4;  // two spaces before, two after
  auto row = [&](const std::string& l, const std::string& help) {
    std::string line = "  " + l;
    if (line.size() + 2 > column) {
      out += line + "\n";
      line.clear();
    }
    line.resize(column, ' ');
    size_t start = 0;
    for (size_t nl; (nl = help.find('\n', start)) != std::string::npos; start = nl + 1) {
      out += line + help.substr(start, nl - start) + "\n";
      line.assign(column, ' ');
    }
    out += line + help.substr(start) + "\n";
  };
  for (const Option& o : options_) row(left(o), o.help);
  row(std::string(kHelp), "print this help and exit");
  return out;
}

void check_output(std::string_view option, const std::string& path) {
  if (const std::string why = unwritable_reason(path); !why.empty())
    throw UsageError(fmt::format("{}: cannot write '{}': {}", option, path, why));
}

void executor_option(Options& options, std::string& dest) {
  options.choice("--executor", dest, {"cpu", "vulkan", "auto"}, "",
                 "executor to run on (default: $VKSTARK_EXECUTOR, else auto)");
}

void memory_options(Options& options, MemoryOptions& dest) {
  options.choice("--memory-mode", dest.mode, {"fast", "default", "low"}, "",
                 "device memory against speed (the same proof): fast keeps the whole RS codeword, default while the "
                 "proof holds at most 3x its traces, low none (default: $VKSTARK_MEMORY_MODE, else default, or with "
                 "--device-memory the fastest that fits)");
  options.number<uint64_t>("--device-memory", "BYTES", dest.device_memory, 0, {0, ~uint64_t(0)},
                           "the device memory a proof may take (0: $VKSTARK_DEVICE_MEMORY_BYTES, else the device's)");
}

void write_binary_file(const std::string& path, std::span<const uint8_t> bytes) {
  replace_file(path, std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
}

std::vector<uint8_t> read_binary_file(const std::string& path, uint64_t max_bytes,
                                      std::span<const std::string_view> starts, std::string_view what) {
  ReadFile file = read_whole_file(path, max_bytes, starts, what);
  if (!file.error.empty()) throw FileError(file.error);
  return std::move(file.bytes);
}

}  // namespace vkstark::cli
