// Specifies the command-line parser of every executable (cli/options.hpp): numbers are whole
// decimal tokens inside their declared range, unknown / valueless / repeated options are usage
// errors whose message names the option and the value, output files are checked only once the
// whole command line is valid, --help exits 0 and usage errors exit 2.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "cli/options.hpp"

using namespace vkstark::cli;

namespace {

// The UsageError message of parsing args; "" when they parse.
std::string usage_error(Options& options, const std::vector<std::string_view>& args) {
  try {
    (void)options.parse(args);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

// The options of a small bench, as pcs_bench declares them.
struct Bench {
  Options options{"bench", "A test bench."};
  uint32_t log_height = 0, width = 0;
  uint64_t big = 0;
  bool profile = false;
  std::string executor, json;
  std::vector<std::string> passed;

  Bench() {
    executor_option(options, executor);
    options.number<uint32_t>("--log-height", "H", log_height, 21, {4, 24}, "log2 of the height");
    options.number<uint32_t>("--width", "W", width, 42, {1, 4096}, "columns");
    options.number<uint64_t>("--big", "B", big, 0, {}, "any 64-bit number");
    options.flag("--profile", profile, "time every dispatch");
    options.output("--json", json, "write results as JSON");
    options.passthrough("--benchmark_", passed, "--benchmark_FLAG=VALUE", "Google Benchmark's flags");
  }
  Options::Outcome parse(std::vector<std::string_view> args) { return options.parse(args); }
  std::string error(std::vector<std::string_view> args) { return usage_error(options, args); }
};

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("vkstark_options_test_" + name)).string();
}

}  // namespace

TEST(Options, DefaultsHoldWhenNothingIsGiven) {
  Bench b;
  EXPECT_EQ(b.parse({}), Options::Outcome::run);
  EXPECT_EQ(b.log_height, 21u);
  EXPECT_EQ(b.width, 42u);
  EXPECT_FALSE(b.profile);
  EXPECT_EQ(b.executor, "");
  EXPECT_EQ(b.json, "");
  EXPECT_TRUE(b.passed.empty());
}

TEST(Options, TakesValuesAsNextTokenOrAfterEquals) {
  Bench b;
  EXPECT_EQ(
      b.parse({"--log-height", "12", "--width=7", "--profile", "--executor=cpu", "--big", "18446744073709551615"}),
      Options::Outcome::run);
  EXPECT_EQ(b.log_height, 12u);
  EXPECT_EQ(b.width, 7u);
  EXPECT_TRUE(b.profile);
  EXPECT_EQ(b.executor, "cpu");
  EXPECT_EQ(b.big, 18446744073709551615ull);
}

TEST(Options, TakesTheRangeBoundsThemselves) {
  Bench b;
  EXPECT_EQ(b.parse({"--log-height", "4", "--width", "4096"}), Options::Outcome::run);
  EXPECT_EQ(b.log_height, 4u);
  EXPECT_EQ(b.width, 4096u);
}

TEST(Options, NumberErrorNamesTheOptionTheValueAndTheRange) {
  EXPECT_EQ(Bench().error({"--width", "-1"}), "--width: '-1' is not a whole number in [1, 4096]");
  EXPECT_EQ(Bench().error({"--log-height", "abc"}), "--log-height: 'abc' is not a whole number in [4, 24]");
}

TEST(Options, NumbersAreWholeTokens) {
  for (std::string_view bad : {"12abc", "12 ", " 12", "+12", "-12", "0x10", "1e1", "12.0", ""}) {
    Bench b;
    EXPECT_EQ(b.error({"--log-height", bad}), fmt::format("--log-height: '{}' is not a whole number in [4, 24]", bad))
        << "'" << bad << "'";
  }
  Bench b;
  EXPECT_EQ(b.parse({"--log-height", "012"}), Options::Outcome::run);  // decimal, leading zeros allowed
  EXPECT_EQ(b.log_height, 12u);
}

TEST(Options, NumbersOutsideTheRangeAreRefused) {
  EXPECT_EQ(Bench().error({"--width", "0"}), "--width: 0 is below the least allowed, 1 (a whole number in [1, 4096])");
  EXPECT_EQ(Bench().error({"--width", "4097"}),
            "--width: 4097 is above the largest allowed, 4096 (a whole number in [1, 4096])");
  EXPECT_EQ(Bench().error({"--log-height", "3"}),
            "--log-height: 3 is below the least allowed, 4 (a whole number in [4, 24])");
}

TEST(Options, OverflowIsAnErrorNotAWrap) {
  // 2^32 + 1 and 2^32 + 12 would read as 1 and 12 through a 32-bit cast.
  EXPECT_EQ(Bench().error({"--width", "4294967297"}),
            "--width: 4294967297 is above the largest allowed, 4096 (a whole number in [1, 4096])");
  EXPECT_EQ(Bench().error({"--log-height", "4294967308"}),
            "--log-height: 4294967308 is above the largest allowed, 24 (a whole number in [4, 24])");
  EXPECT_EQ(Bench().error({"--big", "18446744073709551616"}),
            "--big: '18446744073709551616' is not a whole number in [0, 18446744073709551615]");
  EXPECT_EQ(Bench().error({"--big", "99999999999999999999999"}),
            "--big: '99999999999999999999999' is not a whole number in [0, 18446744073709551615]");
}

TEST(Options, UnknownOptionIsAnError) {
  EXPECT_EQ(Bench().error({"--bogus"}), "unknown option '--bogus'");
  EXPECT_EQ(Bench().error({"--bogus=3"}), "unknown option '--bogus'");
  EXPECT_EQ(Bench().error({"-w"}), "unknown option '-w'");
  EXPECT_EQ(Bench().error({"--Width", "3"}), "unknown option '--Width'");
}

TEST(Options, ArgumentsThatAreNoOptionAreErrors) {
  EXPECT_EQ(Bench().error({"12"}), "unexpected argument '12'");
  EXPECT_EQ(Bench().error({"--width", "3", "4"}), "unexpected argument '4'");
}

TEST(Options, MissingValueIsAnError) {
  EXPECT_EQ(Bench().error({"--width"}), "--width: missing value (a whole number in [1, 4096])");
  EXPECT_EQ(Bench().error({"--width", "--profile"}), "--width: missing value (a whole number in [1, 4096])");
  EXPECT_EQ(Bench().error({"--executor"}), "--executor: missing value (one of cpu, vulkan, auto)");
  EXPECT_EQ(Bench().error({"--json"}), "--json: missing value (a file name)");
  EXPECT_EQ(Bench().error({"--json="}), "--json: empty file name");
}

TEST(Options, RepeatedOptionIsAnError) {
  EXPECT_EQ(Bench().error({"--width", "3", "--width", "3"}), "--width given more than once");
  EXPECT_EQ(Bench().error({"--profile", "--profile"}), "--profile given more than once");
  EXPECT_EQ(Bench().error({"--executor=cpu", "--executor", "vulkan"}), "--executor given more than once");
}

TEST(Options, FlagTakesNoValue) {
  EXPECT_EQ(Bench().error({"--profile=1"}), "--profile takes no value (got '--profile=1')");
  EXPECT_EQ(Bench().error({"--help=1"}), "--help takes no value");
}

TEST(Options, ChoiceTakesOnlyItsValues) {
  EXPECT_EQ(Bench().error({"--executor", "gpu"}), "--executor: 'gpu' is not one of cpu, vulkan, auto");
  EXPECT_EQ(Bench().error({"--executor", "CPU"}), "--executor: 'CPU' is not one of cpu, vulkan, auto");
}

TEST(Options, HelpStopsParsingAndCreatesNothing) {
  const std::string path = temp_path("help.json");
  std::filesystem::remove(path);
  Bench b;
  EXPECT_EQ(b.parse({"--json", path, "--help", "--bogus"}), Options::Outcome::help);
  EXPECT_EQ(Bench().parse({"-h"}), Options::Outcome::help);
  EXPECT_FALSE(std::filesystem::exists(path));
}

TEST(Options, UsageListsEveryOptionWithItsRangeAndDefault) {
  std::string u = Bench().options.usage();
  EXPECT_NE(u.find("usage: bench [--executor cpu|vulkan|auto] [--log-height H] [--width W]"), std::string::npos) << u;
  EXPECT_NE(u.find("A test bench."), std::string::npos) << u;
  EXPECT_NE(u.find("--log-height H"), std::string::npos) << u;
  EXPECT_NE(u.find("log2 of the height (H in [4, 24], default 21)"), std::string::npos) << u;
  EXPECT_NE(u.find("--json FILE"), std::string::npos) << u;
  EXPECT_NE(u.find("--benchmark_FLAG=VALUE"), std::string::npos) << u;
  EXPECT_NE(u.find("--help"), std::string::npos) << u;
}

namespace {
std::string contents(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}
}  // namespace

// Parsing checks an output file and touches nothing: a file that exists keeps its bytes whatever
// happens after (the executable replaces it whole once it has the new contents), and a new one is
// not created until then.
TEST(Options, OutputFilesAreCheckedOnceTheCommandLineIsValidAndNotTouched) {
  const std::string path = temp_path("out.json");
  {
    std::ofstream old(path);
    old << "old results";
  }
  EXPECT_EQ(Bench().error({"--json", path, "--width", "0"}),
            "--width: 0 is below the least allowed, 1 (a whole number in [1, 4096])");
  EXPECT_EQ(contents(path), "old results");
  Bench b;
  EXPECT_EQ(b.parse({"--json", path}), Options::Outcome::run);
  EXPECT_EQ(b.json, path);
  EXPECT_EQ(contents(path), "old results");  // a run that fails now leaves it so
  std::filesystem::remove(path);
  Bench fresh;
  EXPECT_EQ(fresh.parse({"--json", path}), Options::Outcome::run);
  EXPECT_FALSE(std::filesystem::exists(path));
}

TEST(WriteBinaryFile, ReplacesTheFileWholeAndLeavesNoTemporaryFile) {
  const std::filesystem::path dir = std::filesystem::path(temp_path("replace.dir"));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "proof.vkp").string();
  write_binary_file(path, std::vector<uint8_t>{1, 2, 3});
  write_binary_file(path, std::vector<uint8_t>{4, 5});
  EXPECT_EQ(read_binary_file(path, 16), (std::vector<uint8_t>{4, 5}));
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir), std::filesystem::directory_iterator()), 1);
  // A file that cannot be replaced (its folder is gone) is an error naming it; /dev/null is written
  // in place, not replaced.
  try {
    write_binary_file((dir / "no-such-folder" / "p.vkp").string(), std::vector<uint8_t>{1});
    FAIL() << "wrote into a missing folder";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("no-such-folder/p.vkp"), std::string::npos) << e.what();
  }
  write_binary_file("/dev/null", std::vector<uint8_t>{1, 2});
  EXPECT_TRUE(std::filesystem::is_character_file("/dev/null"));
  EXPECT_EQ(Bench().error({"--json", "/dev/null"}), "");
  std::filesystem::remove_all(dir);
}

TEST(Options, UnwritableOutputNamesTheOptionAndThePath) {
  std::string e = Bench().error({"--json", "/nonexistent-dir/x.json"});
  EXPECT_EQ(e, "--json: cannot write '/nonexistent-dir/x.json': No such file or directory");
  std::string dir = std::filesystem::temp_directory_path().string();
  EXPECT_EQ(Bench().error({"--json", dir}).rfind("--json: cannot write '" + dir + "': ", 0), 0u);
}

// Two outputs naming one file are a usage error (issue 44: `vkstark prove --out X --vk-out X` lost
// the proof behind the vk file), however the paths are spelled; special files may be shared.
TEST(Options, TwoOutputsNamingOneFileAreRefused) {
  struct Prove {
    Options options{"prove", "Writes two files."};
    std::string out, vk_out;
    Prove() {
      options.output("--out", out, "the proof");
      options.output("--vk-out", vk_out, "the key");
    }
    std::string error(std::vector<std::string_view> args) { return usage_error(options, args); }
  };
  const std::string dir = std::filesystem::temp_directory_path().string();
  const std::string path = temp_path("both.vkp");
  EXPECT_EQ(Prove().error({"--out", path, "--vk-out", path}),
            "--out and --vk-out name the same file '" + path + "': each output needs its own");
  const std::string spelled = dir + "/./" + std::filesystem::path(path).filename().string();
  EXPECT_NE(Prove().error({"--out", path, "--vk-out", spelled}), "");
  EXPECT_EQ(Prove().error({"--out", path, "--vk-out", path + ".vk"}), "");
  EXPECT_EQ(Prove().error({"--out", "/dev/null", "--vk-out", "/dev/null"}), "");
  EXPECT_FALSE(std::filesystem::exists(path));
}

TEST(Options, PassthroughCollectsItsPrefixInOrder) {
  Bench b;
  EXPECT_EQ(b.parse({"--benchmark_filter=Fp", "--width", "3", "--benchmark_filter=Fp4", "--benchmark_list_tests"}),
            Options::Outcome::run);
  EXPECT_EQ(b.passed,
            (std::vector<std::string>{"--benchmark_filter=Fp", "--benchmark_filter=Fp4", "--benchmark_list_tests"}));
}

TEST(Options, DeclaringAnOptionTwiceIsAProgrammingError) {
  Bench b;
  uint32_t w = 0;
  EXPECT_THROW(b.options.number<uint32_t>("--width", "W", w, 1, {1, 2}, "again"), std::logic_error);
  EXPECT_THROW(b.options.number<uint32_t>("--other", "W", w, 5, {1, 2}, "default outside"), std::logic_error);
  bool f = false;
  EXPECT_THROW(b.options.flag("--help", f, "reserved"), std::logic_error);
}

TEST(OptionsDeathTest, UsageErrorExitsTwoWithTheMessageAndAHint) {
  const char* argv[] = {"bench", "--width", "-1"};
  EXPECT_EXIT(Bench().options.parse_or_exit(3, argv), testing::ExitedWithCode(2),
              "bench: --width: '-1' is not a whole number in \\[1, 4096\\]\nTry 'bench --help' for the options.");
}

TEST(OptionsDeathTest, HelpExitsZero) {
  const char* argv[] = {"bench", "--help"};
  EXPECT_EXIT(Bench().options.parse_or_exit(2, argv), testing::ExitedWithCode(0), "");
}

TEST(OptionsDeathTest, FailExitsTwo) {
  Bench b;
  EXPECT_EXIT(b.options.fail("--width and --log-height: too many cells"), testing::ExitedWithCode(2),
              "bench: --width and --log-height: too many cells\nTry 'bench --help'");
}

// A command with a file argument and an input file, as `vkstark verify FILE [--vk FILE]`.
struct Verify {
  Options options{"verify", "A test command."};
  std::string file, vk;
  Verify() {
    options.positional("FILE", file, "the proof file");
    options.input("--vk", vk, "a key file");
  }
  std::string error(std::vector<std::string_view> args) {
    try {
      (void)options.parse(args);
    } catch (const UsageError& e) {
      return e.what();
    }
    return "";
  }
};

TEST(Options, PositionalArgumentIsTakenInAnyPlace) {
  Verify a;
  EXPECT_EQ(a.error({"p.vkp"}), "");
  EXPECT_EQ(a.file, "p.vkp");
  EXPECT_EQ(a.vk, "");
  Verify b;
  EXPECT_EQ(b.error({"--vk", "k.vk", "p.vkp"}), "");
  EXPECT_EQ(b.file, "p.vkp");
  EXPECT_EQ(b.vk, "k.vk");
  Verify c;
  EXPECT_EQ(c.error({"p.vkp", "--vk=k.vk"}), "");
  EXPECT_EQ(c.file, "p.vkp");
  EXPECT_EQ(c.vk, "k.vk");
}

TEST(Options, PositionalArgumentIsRequiredAndSingle) {
  EXPECT_EQ(Verify().error({}), "missing FILE (the proof file)");
  EXPECT_EQ(Verify().error({"--vk", "k.vk"}), "missing FILE (the proof file)");
  EXPECT_EQ(Verify().error({"a.vkp", "b.vkp"}), "unexpected argument 'b.vkp'");
  EXPECT_EQ(Verify().error({""}), "unexpected argument ''");
  EXPECT_EQ(Verify().error({"--vk"}), "--vk: missing value (a file name)");
  EXPECT_EQ(Verify().error({"p.vkp", "--vk="}), "--vk: empty file name");
}

TEST(Options, InputFilesAreNotCreated) {
  const std::string path = temp_path("input.vk");
  std::filesystem::remove(path);
  Verify v;
  EXPECT_EQ(v.error({"p.vkp", "--vk", path}), "");
  EXPECT_FALSE(std::filesystem::exists(path));
}

TEST(Options, UsageShowsThePositionalArgumentFirst) {
  const std::string usage = Verify().options.usage();
  EXPECT_NE(usage.find("usage: verify FILE [--vk FILE] [--help]"), std::string::npos) << usage;
  EXPECT_NE(usage.find("\n  FILE       the proof file\n  --vk FILE  a key file\n"), std::string::npos) << usage;
}

// What cannot be a file this reads is refused at once, before a byte is read: a FIFO (opening one
// to read would wait for a writer forever), a device that never ends, a folder, a sparse file far
// larger than the cap (issue 44).
TEST(ReadBinaryFile, RefusesWhatIsNotARegularFileOrTooLargeWithoutReadingIt) {
  const std::string fifo = temp_path("read.fifo");
  std::filesystem::remove(fifo);
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto refused = [](const std::string& path, uint64_t cap, const std::string& why) {
    const auto start = std::chrono::steady_clock::now();
    try {
      (void)read_binary_file(path, cap);
      ADD_FAILURE() << path << " was read";
    } catch (const FileError& e) {
      EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
    }
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2)) << path;
  };
  refused(fifo, 1 << 20, "cannot read '" + fifo + "': a FIFO, not a regular file");
  refused("/dev/zero", uint64_t(1) << 30, "cannot read '/dev/zero': a character device, not a regular file");
  refused(std::filesystem::temp_directory_path().string(), 1 << 20, "a folder, not a regular file");
  const std::string sparse = temp_path("read.sparse");
  { std::ofstream f(sparse, std::ios::binary | std::ios::trunc); }
  std::filesystem::resize_file(sparse, uint64_t(2) << 30);  // 2 GiB of nothing on disk
  refused(sparse, uint64_t(1) << 30, "is larger than 1073741824 bytes (2147483648 bytes)");
  std::filesystem::remove(sparse);
  std::filesystem::remove(fifo);
}

TEST(ReadBinaryFile, ReadsTheWholeFileUpToTheCap) {
  const std::string path = temp_path("read.bin");
  const std::vector<uint8_t> bytes = {0, 1, 2, 255, 0, 7};
  write_binary_file(path, bytes);
  EXPECT_EQ(read_binary_file(path, 6), bytes);
  try {
    (void)read_binary_file(path, 5);
    FAIL() << "a file over the cap was read";
  } catch (const FileError& e) {
    EXPECT_NE(std::string(e.what()).find("is larger than 5 bytes"), std::string::npos) << e.what();
  }
  std::filesystem::remove(path);
  try {
    (void)read_binary_file(path, 6);
    FAIL() << "a missing file was read";
  } catch (const FileError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot read '" + path + "'"), std::string::npos) << e.what();
  }
}
