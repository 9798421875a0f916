// One command-line parser for every executable (bench/, examples/). Each main declares its options
// (name, value kind, range, default, help, destination); the parser takes numbers only as whole
// decimal tokens inside their range, refuses unknown, valueless and repeated options, checks the
// output files before any work starts (without touching them), and writes the usage text from the
// declarations.
//
// Exit statuses of parse_or_exit: --help prints the usage to stdout and exits 0; a usage error prints
// "<program>: <message>" and a hint to --help to stderr and exits 2. Runtime errors (exit 1) are the
// mains' business.
//
// Thread-compatible: one Options per main. Destinations are written by parse() and must outlive it.
#pragma once

#include <concepts>
#include <cstdint>
#include <functional>
#include <limits>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace vkstark::cli {

// A bad command line. The message names the option, the value and what is allowed.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

template <std::unsigned_integral T>
struct Range {
  T min = 0;
  T max = std::numeric_limits<T>::max();
};

class Options {
 public:
  // `description`: what the executable does, printed under the usage line (may hold newlines).
  Options(std::string program, std::string description);

  // --name, no value.
  void flag(std::string name, bool& dest, std::string help);

  // --name N: a whole decimal number in [range.min, range.max]; dest = default_value until given.
  template <std::unsigned_integral T>
  void number(std::string name, std::string metavar, T& dest, T default_value, Range<T> range, std::string help) {
    dest = default_value;
    add_number(std::move(name), std::move(metavar), default_value, range.min, range.max, std::move(help),
               [&dest](uint64_t v) { dest = static_cast<T>(v); });
  }

  // --name X with X one of `choices`; dest = default_value until given (it may be "", e.g. "not given").
  void choice(std::string name, std::string& dest, std::vector<std::string> choices, std::string default_value,
              std::string help);

  // --name FILE: a file the executable writes. parse() checks that it could be written once the whole
  // command line is valid, so that an unwritable path fails before any work, and touches nothing: the
  // executable replaces the file whole when it has its contents (write_binary_file, replace_file), so
  // a run that fails leaves it as it was. dest = "" until given.
  void output(std::string name, std::string& dest, std::string help);

  // --name VALUE: any non-empty text the main checks itself (e.g. a device list). dest = "" until given.
  void text(std::string name, std::string metavar, std::string& dest, std::string help);

  // --name FILE: a file the executable reads (opened by the main, not by parse()). dest = "" until given.
  void input(std::string name, std::string& dest, std::string help);

  // A required argument that is no option (e.g. the FILE of `vkstark verify FILE`), in the order
  // declared; parse() fails when one is missing or an extra one is given.
  void positional(std::string metavar, std::string& dest, std::string help);

  // Every argument starting with `prefix` (e.g. "--benchmark_" for Google Benchmark's flags) is
  // appended to dest as it is, for another parser; repeats allowed. `metavar` stands for them in the
  // usage text.
  void passthrough(std::string prefix, std::vector<std::string>& dest, std::string metavar, std::string help);

  enum class Outcome { run, help };
  // args without the program name. Options take their value as "--name value" or "--name=value".
  // Returns Outcome::help for --help or -h (the rest is not looked at and nothing is created).
  // Throws UsageError.
  [[nodiscard]] Outcome parse(const std::vector<std::string_view>& args);

  // parse(argv[1..]) with the exit statuses above.
  void parse_or_exit(int argc, const char* const* argv);

  // A usage error found after parsing (e.g. two options that do not fit together): prints it like
  // parse_or_exit does and exits 2.
  [[noreturn]] void fail(std::string_view message) const;

  // Whether the last parse() saw option `name` (a default value is not "given").
  [[nodiscard]] bool given(std::string_view name) const;

  [[nodiscard]] std::string usage() const;
  [[nodiscard]] const std::string& program() const { return program_; }

 private:
  enum class Kind { flag, value, output, passthrough, positional };
  struct Option {
    std::string name;     // "--width"; the prefix for Kind::passthrough
    std::string metavar;  // "W"; "" for flags
    std::string help;     // with the range and default appended
    std::string allowed;  // "a whole number in [1, 4096]", for messages
    Kind kind = Kind::value;
    std::function<void(std::string_view)> set;  // throws UsageError
    bool given = false;
  };

  void add(Option o);
  void add_number(std::string name, std::string metavar, uint64_t default_value, uint64_t min, uint64_t max,
                  std::string help, std::function<void(uint64_t)> store);
  Option* find(std::string_view name);

  std::string program_, description_;
  std::vector<Option> options_;
  std::vector<std::pair<std::string, std::string*>> outputs_;  // option name, destination
};

// UsageError "<option>: cannot write '<path>': <reason>" when `path` could not be written
// (runtime/file.hpp, unwritable_reason); touches nothing.
void check_output(std::string_view option, const std::string& path);
// Whether two output paths are one file that is, or would be, a regular file: the same path once
// made absolute and normal ("." and ".." resolved, links followed as far as they exist). Special
// files (/dev/null, a pipe) are written in place and may be shared: false.
bool same_regular_file(const std::string& x, const std::string& y);

// --executor cpu|vulkan|auto, for every executable that runs a plan ("" = $VKSTARK_EXECUTOR, else
// auto; see executors/executors.hpp).
void executor_option(Options& options, std::string& dest);

// --memory-mode fast|default|low ("" = unset) and --device-memory BYTES (0 = unset), for the
// executables that prove (ProverOptions::memory_mode, device_memory_bytes).
struct MemoryOptions {
  std::string mode;
  uint64_t device_memory = 0;
};
void memory_options(Options& options, MemoryOptions& dest);

// Writes `bytes` to `path` (an --output file: a proof, a key), replacing it whole (replace_file:
// the old contents stay when the write fails). std::runtime_error naming the file when it cannot be
// written.
void write_binary_file(const std::string& path, std::span<const uint8_t> bytes);

// The whole file at `path`, at most max_bytes of it (an input of unknown origin: a proof, a key),
// read only where it starts with one of `starts` (when given). FileError naming the file and the
// reason when it cannot be opened or read, or is larger, or starts otherwise (runtime/file.hpp,
// read_whole_file).
class FileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};
std::vector<uint8_t> read_binary_file(const std::string& path, uint64_t max_bytes,
                                      std::span<const std::string_view> starts = {},
                                      std::string_view what = "file this reads");

}  // namespace vkstark::cli
