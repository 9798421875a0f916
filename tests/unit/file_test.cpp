// Writing files without losing what they held (runtime/file.hpp): a file is replaced whole or not at
// all; several files are replaced together, and a failure writing any of them leaves every one as
// it was, with no temporary file left beside them.
#include <gtest/gtest.h>

#include <unistd.h>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

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

}  // namespace
