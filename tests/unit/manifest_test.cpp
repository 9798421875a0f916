// The batch manifest and trace folders (product/batch/manifest.hpp): a manifest with every key,
// comments, blank lines and CRLF line ends parses to its jobs with the defaults applied and relative
// paths taken from its folder; every malformed line (an unknown or repeated key, a bad or
// out-of-range number, a missing or misplaced field, a bad or repeated name, a repeated out, a NUL
// byte, a long line) is refused with an InputError naming the source, the line and the field; a
// folder of trace files gives one job per *.vkt file in name order.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <string>

#include "product/batch/manifest.hpp"
#include "product/trace_file.hpp"
#include "runtime/error.hpp"
#include "stages/common/params.hpp"

using namespace vkstark;
using namespace vkstark::batch;
using ::testing::HasSubstr;

namespace fs = std::filesystem;

namespace {

Job defaults() {
  Job d;
  d.params = "test";
  d.log_stacked = 14;
  return d;
}

std::vector<Job> parse(std::string_view text, std::string_view folder = "") {
  return parse_manifest(text, "jobs.txt", folder, defaults());
}

// The InputError message of parsing `text` ("" when it parses).
std::string error_of(std::string_view text) {
  try {
    (void)parse(text);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

// A fresh folder under the temporary directory, removed with its files at the end of the test.
class TempFolder {
 public:
  TempFolder() {
    static std::atomic<int> counter{0};
    path_ = fs::temp_directory_path() / fmt::format("vkstark-manifest-test-{}-{}-{}", ::getpid(), counter++,
                                                    ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempFolder() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TempFolder(const TempFolder&) = delete;
  TempFolder& operator=(const TempFolder&) = delete;
  const fs::path& path() const { return path_; }
  void write(const std::string& name, std::string_view text) const {
    std::ofstream out(path_ / name, std::ios::binary);
    out << text;
  }

 private:
  fs::path path_;
};

}  // namespace

TEST(Manifest, ParsesEveryKeyWithCommentsBlankLinesAndCrlf) {
  const std::string text =
      "# name      what to prove                              where the proof goes\r\n"
      "\r\n"
      "keccak-1\tair=keccakf permutations=1024 seed=7   out=proofs/keccak-1.vkp  # a comment\r\n"
      "   \t  \r\n"
      "fib-small   air=fibonacci rows=1024 params=secure log_stacked_height=20 out=proofs/fib-small.vkp\r\n"
      "user_7.a    trace=traces/user-7.vkt out=/abs/user-7.vkp\n"
      "  # indented comment\n"
      "last air=keccakf permutations=65536 seed=4294967295 out=x.vkp\n"
      "data-1 vk=keys/k.vk input=inputs/in-1.vki out=proofs/data-1.vkp\n"
      "range air=interactions rows=16 out=r.vkp";  // no final line end
  const std::vector<Job> jobs = parse(text, "batch");
  ASSERT_EQ(jobs.size(), 6u);

  Job k = defaults();
  k.line = 3;
  k.name = "keccak-1";
  k.air = "keccakf";
  k.size = 1024;
  k.seed = 7;
  k.out = (fs::path("batch") / "proofs/keccak-1.vkp").string();
  EXPECT_EQ(jobs[0], k);

  Job f = defaults();
  f.line = 5;
  f.name = "fib-small";
  f.air = "fibonacci";
  f.size = 1024;
  f.params = "secure";
  f.log_stacked = 20;
  f.out = (fs::path("batch") / "proofs/fib-small.vkp").string();
  EXPECT_EQ(jobs[1], f);

  Job t = defaults();
  t.line = 6;
  t.name = "user_7.a";
  t.trace_file = (fs::path("batch") / "traces/user-7.vkt").string();
  t.out = "/abs/user-7.vkp";
  EXPECT_EQ(jobs[2], t);

  EXPECT_EQ(jobs[3].line, 8u);
  EXPECT_EQ(jobs[3].size, 65536u);
  EXPECT_EQ(jobs[3].seed, 4294967295u);

  Job d = defaults();
  d.line = 9;
  d.name = "data-1";
  d.vk_file = (fs::path("batch") / "keys/k.vk").string();
  d.input_file = (fs::path("batch") / "inputs/in-1.vki").string();
  d.out = (fs::path("batch") / "proofs/data-1.vkp").string();
  EXPECT_EQ(jobs[4], d);
  EXPECT_EQ(jobs[5].air, "interactions");
  EXPECT_EQ(jobs[5].size, 16u);
}

TEST(Manifest, AppliesTheDefaults) {
  const std::vector<Job> jobs = parse("a air=keccakf permutations=3 out=a.vkp\n");
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(jobs[0].params, "test");
  EXPECT_EQ(jobs[0].log_stacked, 14u);
  EXPECT_EQ(jobs[0].seed, Job{}.seed);
  EXPECT_EQ(jobs[0].trace_file, "");
}

TEST(Manifest, KeepsPathsAsWrittenWithoutAFolderAndAbsolutePathsAlways) {
  const std::vector<Job> kept = parse("a trace=t/a.vkt out=p/a.vkp\n");
  EXPECT_EQ(kept[0].trace_file, "t/a.vkt");
  EXPECT_EQ(kept[0].out, "p/a.vkp");
  const std::vector<Job> joined = parse("a trace=t/a.vkt out=/p/a.vkp\n", "/data/batch");
  EXPECT_EQ(joined[0].trace_file, "/data/batch/t/a.vkt");
  EXPECT_EQ(joined[0].out, "/p/a.vkp");
}

TEST(Manifest, RejectsUnknownKeysNamingTheLineAndTheKey) {
  EXPECT_EQ(error_of("a air=keccakf permutations=1 out=a\nb air=keccakf permutations=1 out=b\n"
                     "c air=keccakf seeds=1 out=c\n"),
            "jobs.txt line 3: unknown key 'seeds' (expected air, permutations, rows, seed, trace, vk, input, "
            "params, log_stacked_height, out)");
  EXPECT_THAT(error_of("a air=keccakf permutations=1 out=a 1024\n"), HasSubstr("line 1: '1024' is not key=value"));
}

TEST(Manifest, RejectsRepeatedAndEmptyKeys) {
  EXPECT_THAT(error_of("a air=keccakf permutations=1 permutations=2 out=a\n"),
              HasSubstr("jobs.txt line 1: permutations= given twice"));
  EXPECT_THAT(error_of("a air=keccakf permutations= out=a\n"),
              HasSubstr("jobs.txt line 1: permutations= has no value"));
}

TEST(Manifest, RejectsBadNumbers) {
  for (const char* bad :
       {"0", "65537", "-1", "+1", "0x10", "1e3", "12abc", "4294967297", "99999999999999999999", " "}) {
    SCOPED_TRACE(bad);
    EXPECT_THAT(error_of(fmt::format("\na air=keccakf permutations={} out=a\n", bad)),
                HasSubstr("jobs.txt line 2: permutations="));
  }
  EXPECT_THAT(error_of("a air=keccakf permutations=4294967297 out=a\n"),
              HasSubstr("jobs.txt line 1: permutations=4294967297: not a whole number in [1, 65536]"));
  EXPECT_THAT(error_of("a air=keccakf permutations=1 seed=4294967296 out=a\n"),
              HasSubstr("jobs.txt line 1: seed=4294967296: not a whole number in [0, 4294967295]"));
  EXPECT_THAT(error_of("a air=keccakf permutations=1 seed=-1 out=a\n"), HasSubstr("line 1: seed=-1"));
  for (const char* bad : {"1000", "2", "0", "33554432", "+1024", "0x400"}) {
    SCOPED_TRACE(bad);
    EXPECT_THAT(error_of(fmt::format("\n\n\na air=fibonacci rows={} out=a\n", bad)),
                HasSubstr(fmt::format("jobs.txt line 4: rows={}: not a power of two in [4, 16777216]", bad)));
  }
  EXPECT_EQ(parse("a air=fibonacci rows=4 out=a\nb air=fibonacci rows=16777216 out=b\n").size(), 2u);
  EXPECT_THAT(
      error_of("a air=fibonacci rows=64 log_stacked_height=7 out=a\n"),
      HasSubstr(fmt::format("line 1: log_stacked_height=7: not a whole number in [8, {}]", kMaxLogStackedHeight)));
  EXPECT_THAT(error_of(fmt::format("a air=fibonacci rows=64 log_stacked_height={} out=a\n", kMaxLogStackedHeight + 1)),
              HasSubstr("line 1: log_stacked_height="));
  EXPECT_EQ(
      parse(fmt::format("a air=fibonacci rows=64 log_stacked_height={} out=a\n", kMaxLogStackedHeight))[0].log_stacked,
      kMaxLogStackedHeight);
}

TEST(Manifest, RejectsBadChoices) {
  EXPECT_THAT(error_of("a air=sha256 out=a\n"),
              HasSubstr("line 1: air=sha256: expected keccakf, fibonacci or interactions"));
  EXPECT_THAT(error_of("a air=fibonacci rows=64 params=fast out=a\n"),
              HasSubstr("line 1: params=fast: expected secure or test"));
}

TEST(Manifest, RejectsMissingAndMisplacedFields) {
  EXPECT_EQ(error_of("# jobs\na air=keccakf permutations=1 trace=t.vkt out=a\n"),
            "jobs.txt line 2: air=keccakf and trace= both given");
  EXPECT_EQ(error_of("x\n"), "jobs.txt line 1: no air=, trace= or vk= with input=");  // a name alone
  EXPECT_EQ(error_of("\na air=keccakf permutations=1\n"), "jobs.txt line 2: no out=");
  EXPECT_EQ(error_of("a out=a\n"), "jobs.txt line 1: no air=, trace= or vk= with input=");
  EXPECT_EQ(error_of("a air=keccakf out=a\n"), "jobs.txt line 1: air=keccakf needs permutations=");
  EXPECT_EQ(error_of("a air=fibonacci out=a\n"), "jobs.txt line 1: air=fibonacci needs rows=");
  EXPECT_EQ(error_of("\na air=fibonacci rows=64 permutations=1 out=a\n"),
            "jobs.txt line 2: permutations= is for air=keccakf");
  EXPECT_EQ(error_of("a air=fibonacci rows=64 seed=1 out=a\n"), "jobs.txt line 1: seed= is for air=keccakf");
  EXPECT_EQ(error_of("a air=keccakf permutations=1 rows=64 out=a\n"),
            "jobs.txt line 1: rows= is for air=fibonacci or air=interactions");
  EXPECT_EQ(error_of("a trace=t.vkt permutations=1 out=a\n"), "jobs.txt line 1: permutations= is for air=keccakf");
  // AIRs given as data: vk= and input= together, alone, without params.
  EXPECT_EQ(error_of("a vk=k.vk out=a\n"), "jobs.txt line 1: vk= needs input= (the proving input)");
  EXPECT_EQ(error_of("a input=i.vki out=a\n"), "jobs.txt line 1: input= needs vk=");
  EXPECT_EQ(error_of("a trace=t.vkt vk=k.vk input=i.vki out=a\n"), "jobs.txt line 1: trace= and vk= both given");
  EXPECT_EQ(error_of("a air=fibonacci rows=64 input=i.vki out=a\n"),
            "jobs.txt line 1: air=fibonacci and input= both given");
  EXPECT_EQ(error_of("a vk=k.vk input=i.vki params=test out=a\n"),
            "jobs.txt line 1: params= does not apply with vk= (the verifying key fixes the params)");
  EXPECT_EQ(error_of("a vk=k.vk input=i.vki log_stacked_height=12 out=a\n"),
            "jobs.txt line 1: log_stacked_height= does not apply with vk= (the verifying key fixes the params)");
  EXPECT_EQ(error_of("a vk=k.vk input=i.vki rows=64 out=a\n"),
            "jobs.txt line 1: rows= is for air=fibonacci or air=interactions");
  EXPECT_EQ(error_of("a air=interactions out=a\n"), "jobs.txt line 1: air=interactions needs rows=");
}

TEST(Manifest, RejectsBadAndRepeatedNames) {
  const std::string ok = "a air=keccakf permutations=1 out=a\n";
  EXPECT_EQ(error_of(ok + "b air=keccakf permutations=1 out=b\n\n\n\n" + "a air=keccakf permutations=1 out=c\n"),
            "jobs.txt line 6: the name 'a' is used on line 1 too");
  EXPECT_THAT(error_of("a/b air=keccakf permutations=1 out=a\n"),
              HasSubstr("line 1: the name 'a/b' is not [A-Za-z0-9._-]{1,64}"));
  EXPECT_THAT(error_of(std::string(65, 'n') + " air=keccakf permutations=1 out=a\n"), HasSubstr("line 1: the name"));
  EXPECT_EQ(parse(std::string(64, 'n') + " air=keccakf permutations=1 out=a\n")[0].name, std::string(64, 'n'));
  EXPECT_THAT(error_of("air=keccakf permutations=1 out=a\n"), HasSubstr("line 1: the line starts with 'air=keccakf'"));
}

TEST(Manifest, RejectsRepeatedOuts) {
  EXPECT_EQ(error_of("a air=keccakf permutations=1 out=x.vkp\n\n\n\nb air=fibonacci rows=4 out=x.vkp\n"),
            "jobs.txt line 5: out=x.vkp is the out of line 1 too");
  // The same file written another way.
  EXPECT_THAT(error_of("a air=keccakf permutations=1 out=p/x.vkp\nb air=fibonacci rows=4 out=p/./x.vkp\n"),
              HasSubstr("jobs.txt line 2: out=p/./x.vkp is the out of line 1 too"));
}

TEST(Manifest, RejectsNulBytesControlCharactersAndLongLines) {
  using namespace std::string_literals;
  EXPECT_THAT(error_of("a air=keccakf permutations=1 out=a\nb air=keccakf\0 permutations=1 out=b\n"s),
              HasSubstr("jobs.txt line 2: a NUL byte"));
  EXPECT_THAT(error_of("# \0 in a comment\n"s), HasSubstr("jobs.txt line 1: a NUL byte"));
  EXPECT_THAT(error_of("a air=keccakf permutations=1\r out=a\n"), HasSubstr("jobs.txt line 1: control character 0x0d"));
  const std::string longest = "a air=keccakf permutations=1 out=" + std::string(4096 - 33, 'x');
  ASSERT_EQ(longest.size(), 4096u);
  EXPECT_EQ(parse(longest + "\r\n").size(), 1u);
  EXPECT_THAT(error_of("\n" + longest + "x\n"), HasSubstr("jobs.txt line 2: 4097 bytes, at most 4096"));
}

TEST(Manifest, RejectsAManifestWithoutJobs) {
  EXPECT_EQ(error_of(""), "jobs.txt: no jobs");
  EXPECT_EQ(error_of("# only comments\n\n   \r\n"), "jobs.txt: no jobs");
}

TEST(Manifest, ReadsAFileRelativeToItsFolder) {
  TempFolder dir;
  dir.write("jobs.txt", "a trace=t/a.vkt out=a.vkp\nb air=fibonacci rows=8 out=/abs/b.vkp\n");
  const std::string path = (dir.path() / "jobs.txt").string();
  const std::vector<Job> jobs = read_manifest(path, defaults());
  ASSERT_EQ(jobs.size(), 2u);
  EXPECT_EQ(jobs[0].trace_file, (dir.path() / "t/a.vkt").string());
  EXPECT_EQ(jobs[0].out, (dir.path() / "a.vkp").string());
  EXPECT_EQ(jobs[1].out, "/abs/b.vkp");

  dir.write("bad.txt", "a air=keccakf permutations=1 out=a\nb nope=1\n");
  const std::string bad = (dir.path() / "bad.txt").string();
  try {
    (void)read_manifest(bad, defaults());
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr(bad + " line 2: unknown key 'nope'"));
  }
}

TEST(Manifest, RefusesAnUnreadableOrOversizedFileNamingThePath) {
  TempFolder dir;
  const std::string missing = (dir.path() / "missing.txt").string();
  EXPECT_THROW(
      {
        try {
          (void)read_manifest(missing, defaults());
        } catch (const InputError& e) {
          EXPECT_THAT(e.what(), HasSubstr(missing));
          throw;
        }
      },
      InputError);
  EXPECT_THROW((void)read_manifest(dir.path().string(), defaults()), InputError);

  const fs::path big = dir.path() / "big.txt";
  {
    std::ofstream out(big, std::ios::binary);
    out << "a air=keccakf permutations=1 out=a\n";
  }
  fs::resize_file(big, kMaxManifestBytes + 1);  // a sparse file: no 64 MiB written
  try {
    (void)read_manifest(big.string(), defaults());
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr(big.string()));
    EXPECT_THAT(e.what(), HasSubstr("larger than"));
  }
}

TEST(TraceFolder, GivesOneJobPerTraceFileInNameOrder) {
  TempFolder dir;
  dir.write("b.vkt", "");
  dir.write("a.vkt", "");
  dir.write("c.vkt.bak", "");
  dir.write("notes.txt", "");
  const std::vector<Job> jobs = trace_folder_jobs(dir.path().string(), "/proofs", defaults());
  ASSERT_EQ(jobs.size(), 2u);
  Job a = defaults();
  a.name = "a";
  a.trace_file = (dir.path() / "a.vkt").string();
  a.out = "/proofs/a.vkp";
  EXPECT_EQ(jobs[0], a);
  EXPECT_EQ(jobs[0].line, 0u);
  EXPECT_EQ(jobs[1].name, "b");
  EXPECT_EQ(jobs[1].out, "/proofs/b.vkp");
}

// A *.vkt entry that is no regular file (a folder, a FIFO, a dangling link) is a job all the same,
// which fails when its trace is read, naming what it is: none is dropped from the batch (issue 44).
TEST(TraceFolder, EveryTraceEntryIsAJobEvenWhereItIsNoRegularFile) {
  TempFolder dir;
  dir.write("a.vkt", "");
  fs::create_directories(dir.path() / "b.vkt");
  ASSERT_EQ(::mkfifo((dir.path() / "c.vkt").c_str(), 0600), 0);
  fs::create_symlink(dir.path() / "nowhere", dir.path() / "d.vkt");
  const std::vector<Job> jobs = trace_folder_jobs(dir.path().string(), "/proofs", defaults());
  ASSERT_EQ(jobs.size(), 4u);
  EXPECT_EQ(jobs[1].name, "b");
  EXPECT_EQ(jobs[2].name, "c");
  EXPECT_EQ(jobs[3].name, "d");
  for (const auto& [job, why] : {std::pair<size_t, std::string>{1, "a folder, not a regular file"},
                                 {2, "a FIFO, not a regular file"},
                                 {3, "No such file or directory"}}) {
    try {
      (void)read_trace_file(jobs[job].trace_file);
      ADD_FAILURE() << jobs[job].trace_file << " was read";
    } catch (const InputError& e) {
      EXPECT_THAT(e.what(), HasSubstr(why));
    }
  }
}

TEST(TraceFolder, RefusesAFileWhoseStemIsNoName) {
  TempFolder dir;
  dir.write("a.vkt", "");
  dir.write("bad name.vkt", "");
  try {
    (void)trace_folder_jobs(dir.path().string(), "out", defaults());
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr((dir.path() / "bad name.vkt").string()));
  }
}

TEST(TraceFolder, RefusesAFolderWithoutTraceFilesOrThatCannotBeRead) {
  TempFolder dir;
  dir.write("notes.txt", "");
  EXPECT_THROW((void)trace_folder_jobs(dir.path().string(), "out", defaults()), InputError);
  EXPECT_THROW((void)trace_folder_jobs((dir.path() / "missing").string(), "out", defaults()), InputError);
}
