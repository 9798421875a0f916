// Writing files without losing what they held (runtime/file.hpp): a file is replaced whole or not at
// all; several files are replaced together, and a failure writing any of them leaves every one as
// it was, with no temporary file left beside them.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "runtime/error.hpp"
#include "runtime/fault.hpp"
#include "runtime/file.hpp"

using namespace vkstark;
namespace fs = std::filesystem;

namespace {

std::string read(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

class FileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("vkstark_file_test_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  size_t entries() const { return size_t(std::distance(fs::directory_iterator(dir_), fs::directory_iterator())); }
  fs::path dir_;
};

TEST_F(FileTest, ReplaceFileWritesWholeAndLeavesNoTemporary) {
  const fs::path p = dir_ / "a.bin";
  replace_file(p, "first");
  EXPECT_EQ(read(p), "first");
  replace_file(p, std::string(100000, 'x'));
  EXPECT_EQ(read(p), std::string(100000, 'x'));
  EXPECT_EQ(entries(), 1u);
  EXPECT_THROW(replace_file(dir_ / "missing" / "b.bin", "x"), std::runtime_error);
  EXPECT_EQ(entries(), 1u);
}

TEST_F(FileTest, SeveralFilesAreReplacedTogether) {
  const fs::path a = dir_ / "a.vkp", b = dir_ / "b.json";
  replace_file(a, "old a");
  replace_file(b, "old b");
  const std::pair<fs::path, std::string_view> both[] = {{a, "new a"}, {b, "new b"}};
  replace_files(both);
  EXPECT_EQ(read(a), "new a");
  EXPECT_EQ(read(b), "new b");
  EXPECT_EQ(entries(), 2u);
}

TEST_F(FileTest, AFailureWritingOneKeepsEveryFile) {
  const fs::path a = dir_ / "a.vkp";
  replace_file(a, "the user's file");
  // The second cannot be written (its folder is missing): the first keeps its bytes.
  const std::pair<fs::path, std::string_view> missing_folder[] = {{a, "new a"}, {dir_ / "no" / "b.json", "b"}};
  EXPECT_THROW(replace_files(missing_folder), std::runtime_error);
  EXPECT_EQ(read(a), "the user's file");
  EXPECT_EQ(entries(), 1u);
  // A special file that fails to take the bytes (/dev/full: writable, always full) does the same.
  if (fs::exists("/dev/full")) {
    const std::pair<fs::path, std::string_view> full[] = {{a, "new a"}, {"/dev/full", "b"}};
    EXPECT_THROW(replace_files(full), std::runtime_error);
    EXPECT_EQ(read(a), "the user's file");
    EXPECT_EQ(entries(), 1u);
  }
}

TEST_F(FileTest, UnwritableReasonNamesWhy) {
  EXPECT_EQ(unwritable_reason(dir_ / "ok.bin"), "");
  EXPECT_NE(unwritable_reason(dir_ / "no" / "x.bin"), "");
  EXPECT_NE(unwritable_reason(dir_), "");  // a folder
  EXPECT_EQ(unwritable_reason("/dev/null"), "");
}

// Runs `body` in a child process with VKSTARK_FAULT set; its exit status.
template <typename F>
int in_child(const char* fault, F body) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::setenv("VKSTARK_FAULT", fault, 1);
    body();
    std::_Exit(0);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

size_t count_named(const fs::path& dir, std::string_view end) {
  size_t n = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    n += name.size() >= end.size() && name.compare(name.size() - end.size(), end.size(), end) == 0;
  }
  return n;
}

TEST_F(FileTest, ASetKilledBetweenItsRenamesIsFinishedByTheNextWriter) {
  const fs::path a = dir_ / "proof.vkp", b = dir_ / "key.vk";
  replace_file(a, "old a");
  replace_file(b, "old b");
  // Killed after the first rename: the proof is new, the key old, and the journal says so.
  const int status = in_child("exit_in_write:renamed=1", [&] {
    const std::pair<fs::path, std::string_view> both[] = {{a, "new a"}, {b, "new b"}};
    replace_files(both);
  });
  ASSERT_EQ(status, 137);
  EXPECT_EQ(read(a), "new a");
  EXPECT_EQ(read(b), "old b");
  EXPECT_EQ(count_named(dir_, ".journal"), 1u);
  EXPECT_EQ(count_named(dir_, ".tmp"), 1u);
  // The next writer of the folder (any file) finishes the set first.
  replace_file(dir_ / "other.txt", "x");
  EXPECT_EQ(read(a), "new a");
  EXPECT_EQ(read(b), "new b");
  EXPECT_EQ(entries(), 3u);  // no journal, no temporary file
}

TEST_F(FileTest, TemporaryFilesOfAKilledWriterAreRemovedByTheNextWriter) {
  const fs::path a = dir_ / "proof.vkp";
  replace_file(a, "old a");
  // A writer killed before its journal leaves temporary files (made here as it would) and no change.
  std::ofstream(dir_ / ".proof.vkp.vkstark-99999-1.tmp") << "half";
  std::ofstream(dir_ / ".key.vk.vkstark-99999-2.tmp") << "half";
  std::ofstream(dir_ / "user.tmp") << "not ours";  // a user's file, kept
  replace_file(a, "new a");
  EXPECT_EQ(read(a), "new a");
  EXPECT_EQ(read(dir_ / "user.tmp"), "not ours");
  EXPECT_EQ(entries(), 2u);
}

TEST_F(FileTest, ConcurrentWritersOfOneSetLeaveOneWritersSet) {
  // Two writers (a process and a thread here: flock serves both) replace the same two files with
  // sets of their own, many times: each pair left is one writer's.
  const fs::path a = dir_ / "proof.vkp", b = dir_ / "key.vk";
  auto writer = [&](char who) {
    for (int i = 0; i < 200; ++i) {
      const std::string pa = fmt::format("{} proof {}", who, i), pb = fmt::format("{} key {}", who, i);
      const std::pair<fs::path, std::string_view> both[] = {{a, pa}, {b, pb}};
      replace_files(both);
      // Read as a writer would write: holding the folder (a shared lock waits for writers).
      const int fd = ::open(dir_.c_str(), O_RDONLY | O_DIRECTORY);
      ::flock(fd, LOCK_SH);
      const std::string ra = read(a), rb = read(b);
      ::close(fd);
      if (ra.substr(0, 1) != rb.substr(0, 1) || ra.substr(ra.find(' ', 2)) != rb.substr(rb.find(' ', 2))) std::_Exit(3);
    }
  };
  const pid_t pid = ::fork();
  if (pid == 0) {
    writer('P');
    std::_Exit(0);
  }
  std::thread t([&] { writer('T'); });
  writer('M');
  t.join();
  int status = 0;
  ::waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  EXPECT_EQ(entries(), 2u);
}

TEST(Fault, InjectedFaultsAreParsedAndAMalformedOneIsAnError) {
  ::setenv("VKSTARK_FAULT", "oom:job=5,invalid_proof:job=2:attempts=2", 1);
  EXPECT_TRUE(fault_injected("oom", "job", 5));
  EXPECT_FALSE(fault_injected("oom", "job", 5, 2));  // the first attempt only
  EXPECT_FALSE(fault_injected("oom", "job", 4));
  EXPECT_TRUE(fault_injected("invalid_proof", "job", 2, 2));
  EXPECT_FALSE(fault_injected("device_lost", "job", 5));
  EXPECT_TRUE(fault_kind_injected("oom"));
  for (const char* bad : {"oom:job", "oom:job=x", "melt:job=1", "oom:=3"}) {
    ::setenv("VKSTARK_FAULT", bad, 1);
    EXPECT_THROW((void)fault_kind_injected("oom"), InputError) << bad;
  }
  ::unsetenv("VKSTARK_FAULT");
  EXPECT_FALSE(fault_kind_injected("oom"));
}

TEST_F(FileTest, WhatDoesNotStartAsTheFileIsRefusedAfterItsFirstBytes) {
  const fs::path p = dir_ / "big.bin";
  { std::ofstream f(p, std::ios::binary); }
  fs::resize_file(p, uint64_t(900) << 20);  // 900 MiB of zeros, sparse: under the cap, not a proof
  const std::string_view starts[] = {"vkstark-proof"};
  ReadFile r = read_whole_file(p, uint64_t(1) << 30, starts, "vkstark proof file");
  EXPECT_TRUE(r.bytes.empty());
  EXPECT_EQ(r.error, "'" + p.string() + "' is not a vkstark proof file: it starts with 00 00 00 00 00 00 00 00 ...");
  replace_file(p, "");
  EXPECT_EQ(read_whole_file(p, 100, starts, "vkstark proof file").error,
            "'" + p.string() + "' is not a vkstark proof file: it is empty");
  replace_file(p, "vkstark-proof and the rest");
  r = read_whole_file(p, 100, starts, "vkstark proof file");
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(std::string(r.bytes.begin(), r.bytes.end()), "vkstark-proof and the rest");
  replace_file(p, "vkstark");  // shorter than the start
  EXPECT_NE(read_whole_file(p, 100, starts, "vkstark proof file").error, "");
}

TEST_F(FileTest, AHostileJournalRenamesNothingButOurTemporaryFiles) {
  // Anyone who may write in a folder may leave a journal there: it must not make the next writer
  // rename a file of the user's (a key, say) over another, nor wait on a FIFO.
  const fs::path victim = dir_ / "keep" / "id.key", other = dir_ / "keep" / "other.key";
  fs::create_directories(victim.parent_path());
  replace_file(victim, "secret");
  replace_file(other, "other");
  auto journal = [](const std::vector<std::pair<fs::path, fs::path>>& pairs) {
    std::string text = "vkstark output set 1";
    text += '\0';
    for (const auto& [t, p] : pairs) text += t.string() + '\0' + p.string() + '\0';
    return text + "end" + '\0';
  };
  const fs::path out = dir_ / "out";
  fs::create_directories(out);
  std::ofstream(out / ".vkstark-1-1.journal", std::ios::binary) << journal({{victim, other}});
  std::ofstream(out / ".vkstark-1-2.journal", std::ios::binary)
      << journal({{dir_ / "keep" / ".other.key.vkstark-1-x.tmp", other}});
  ASSERT_EQ(::mkfifo((out / ".vkstark-1-3.journal").c_str(), 0600), 0);
  replace_file(out / "proof.vkp", "p");
  EXPECT_EQ(read(victim), "secret");
  EXPECT_EQ(read(other), "other");
  EXPECT_EQ(size_t(std::distance(fs::directory_iterator(out), fs::directory_iterator())), 1u);  // journals removed
}

TEST_F(FileTest, ASetOverTwoFoldersIsFinishedOrRolledBackFromEitherFolder) {
  const fs::path a = dir_ / "proofs" / "p.vkp", b = dir_ / "keys" / "k.vk";
  fs::create_directories(a.parent_path());
  fs::create_directories(b.parent_path());
  auto reset = [&] {
    replace_file(a, "old a");
    replace_file(b, "old b");
  };
  auto write_set = [&] {
    const std::pair<fs::path, std::string_view> both[] = {{a, "new a"}, {b, "new b"}};
    replace_files(both);
  };
  // Killed after the first rename: committed. A writer of the keys' folder alone finishes it.
  reset();
  ASSERT_EQ(in_child("exit_in_write:renamed=1", write_set), 137);
  replace_file(b.parent_path() / "other.txt", "x");
  EXPECT_EQ(read(a), "new a");
  EXPECT_EQ(read(b), "new b");
  EXPECT_EQ(count_named(a.parent_path(), ".journal") + count_named(b.parent_path(), ".journal"), 0u);
  EXPECT_EQ(count_named(a.parent_path(), ".tmp") + count_named(b.parent_path(), ".tmp"), 0u);
  // Killed with one copy of its journal in place: not committed. A writer of the other folder
  // removes that folder's temporary file first; then the set is rolled back, not half finished.
  reset();
  ASSERT_EQ(in_child("exit_in_write:journals=1", write_set), 137);
  const fs::path with_copy = count_named(a.parent_path(), ".journal") ? a.parent_path() : b.parent_path();
  const fs::path without = with_copy == a.parent_path() ? b.parent_path() : a.parent_path();
  replace_file(without / "other.txt", "x");
  replace_file(with_copy / "other.txt", "x");
  EXPECT_EQ(read(a), "old a");
  EXPECT_EQ(read(b), "old b");
  EXPECT_EQ(count_named(a.parent_path(), ".journal") + count_named(b.parent_path(), ".journal"), 0u);
  EXPECT_EQ(count_named(a.parent_path(), ".tmp") + count_named(b.parent_path(), ".tmp"), 0u);
}

}  // namespace
