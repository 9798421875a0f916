// Specifies the on-disk SPIR-V cache of run-time GLSL (kernels/glsl/compiler.hpp, compile_glsl): a
// second compile of the same source loads from disk and gives the same words; a truncated, corrupt
// or foreign entry is compiled again and rewritten; VKSTARK_PIPELINE_CACHE=0 turns it off; the key
// follows the source. And the SHA-256 that keys it (runtime/detail/sha256.hpp), on FIPS 180-2's
// known answers.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include "kernels/glsl/compiler.hpp"
#include "runtime/detail/sha256.hpp"
#include "runtime/disk_cache.hpp"

using namespace vkstark;

namespace {

// Sets (or unsets) an environment variable for the scope of the object.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value)
      setenv(name, value, 1);
    else
      unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_)
      setenv(name_, old_->c_str(), 1);
    else
      unsetenv(name_);
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

// A cache directory of its own for each test.
class SpirvCache : public ::testing::Test {
 protected:
  std::filesystem::path root =
      std::filesystem::temp_directory_path() / ("vkstark-spirv-cache-test-" + std::to_string(::getpid()) + "-" +
                                                ::testing::UnitTest::GetInstance()->current_test_info()->name());
  ScopedEnv xdg{"XDG_CACHE_HOME", root.c_str()};
  ScopedEnv on{"VKSTARK_PIPELINE_CACHE", nullptr};

  void SetUp() override { std::filesystem::remove_all(root); }
  void TearDown() override { std::filesystem::remove_all(root); }

  static std::string source(int variant = 0) {
    return "#version 460\n"
           "#extension GL_GOOGLE_include_directive : require\n"
           "#include \"fp.glsl\"\n"
           "layout(local_size_x = 1) in;\n"
           "layout(set = 0, binding = 0) buffer A { uint a_[]; };\n"
           "void main() { a_[0] = fp_mul(a_[1], " +
           std::to_string(variant) + "u); }\n";
  }
  static std::vector<char> read(const std::filesystem::path& f) {
    std::ifstream in(f, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  }
  static void write(const std::filesystem::path& f, const std::vector<char>& bytes) {
    std::ofstream out(f, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }
};

TEST_F(SpirvCache, ASecondCompileLoadsTheSameWordsFromDisk) {
  GlslCompileInfo first, second;
  const std::vector<uint32_t> compiled = compile_glsl(source(), "cached", &first);
  EXPECT_FALSE(first.from_cache);
  ASSERT_FALSE(first.cache_file.empty());
  EXPECT_EQ(first.cache_file.parent_path(), root / "vkstark" / "spirv");
  EXPECT_TRUE(std::filesystem::exists(first.cache_file));
  const std::vector<uint32_t> loaded = compile_glsl(source(), "cached", &second);
  EXPECT_TRUE(second.from_cache);
  EXPECT_EQ(second.cache_file, first.cache_file);
  EXPECT_EQ(loaded, compiled);
  // The same words as with the cache off.
  ScopedEnv off("VKSTARK_PIPELINE_CACHE", "0");
  EXPECT_EQ(compile_glsl(source(), "cached"), compiled);
  // No temporary files are left behind.
  size_t files = 0;
  for (const auto& e : std::filesystem::directory_iterator(first.cache_file.parent_path())) {
    ++files;
    EXPECT_EQ(e.path().extension(), ".spv") << e.path();
  }
  EXPECT_EQ(files, 1u);
}

TEST_F(SpirvCache, TheKeyFollowsTheSourceAndTheName) {
  GlslCompileInfo a, b, c;
  (void)compile_glsl(source(0), "k", &a);
  (void)compile_glsl(source(1), "k", &b);
  (void)compile_glsl(source(0), "other", &c);
  EXPECT_NE(a.cache_file, b.cache_file);
  EXPECT_NE(a.cache_file, c.cache_file);
  EXPECT_FALSE(b.from_cache);
  EXPECT_FALSE(c.from_cache);
}

TEST_F(SpirvCache, ABadEntryIsCompiledAgainAndRewritten) {
  GlslCompileInfo info;
  const std::vector<uint32_t> compiled = compile_glsl(source(), "bad", &info);
  const std::filesystem::path file = info.cache_file;
  const std::vector<char> good = read(file);
  // Another source's valid entry under this name.
  GlslCompileInfo other;
  (void)compile_glsl(source(7), "bad", &other);
  const std::vector<char> foreign = read(other.cache_file);
  std::vector<char> flipped_spirv = good, flipped_header = good, wrong_count = good;
  flipped_spirv[good.size() - 3] ^= 0x10;  // inside the last SPIR-V word: the stored hash catches it
  flipped_header[0] ^= 1;                  // the file magic
  wrong_count[18 * 4] += 1;                // the word count
  const std::vector<std::pair<std::string, std::vector<char>>> bad = {
      {"truncated", std::vector<char>(good.begin(), good.end() - 4)},
      {"cut in the header", std::vector<char>(good.begin(), good.begin() + 40)},
      {"empty", {}},
      {"a flipped SPIR-V bit", flipped_spirv},
      {"a flipped header bit", flipped_header},
      {"a wrong word count", wrong_count},
      {"another source's entry", foreign},
  };
  for (const auto& [what, bytes] : bad) {
    SCOPED_TRACE(what);
    write(file, bytes);
    GlslCompileInfo again, then;
    EXPECT_EQ(compile_glsl(source(), "bad", &again), compiled);
    EXPECT_FALSE(again.from_cache);
    EXPECT_EQ(read(file), good);  // rewritten
    (void)compile_glsl(source(), "bad", &then);
    EXPECT_TRUE(then.from_cache);
  }
}

TEST_F(SpirvCache, PipelineCacheZeroTurnsItOff) {
  ScopedEnv off("VKSTARK_PIPELINE_CACHE", "0");
  EXPECT_TRUE(disk_cache_dir().empty());
  GlslCompileInfo first, second;
  (void)compile_glsl(source(), "off", &first);
  (void)compile_glsl(source(), "off", &second);
  EXPECT_TRUE(first.cache_file.empty());
  EXPECT_FALSE(second.from_cache);
  EXPECT_FALSE(std::filesystem::exists(root));
}

TEST_F(SpirvCache, AnUnwritableDirectoryIsNotAnError) {
  write(root, {'x'});  // a file where the cache directory should be
  GlslCompileInfo first, second;
  EXPECT_FALSE(compile_glsl(source(), "unwritable", &first).empty());
  EXPECT_FALSE(compile_glsl(source(), "unwritable", &second).empty());
  EXPECT_FALSE(second.from_cache);
  std::filesystem::remove(root);
}

TEST_F(SpirvCache, SourceThatDoesNotCompileIsNotCached) {
  GlslCompileInfo info;
  EXPECT_THROW((void)compile_glsl("#version 460\nvoid main() { nope(); }\n", "broken", &info), GraphError);
  EXPECT_FALSE(std::filesystem::exists(root / "vkstark" / "spirv") &&
               !std::filesystem::is_empty(root / "vkstark" / "spirv"));
}

TEST(DiskCacheDir, IsXdgCacheHomeElseHomeDotCache) {
  ScopedEnv on("VKSTARK_PIPELINE_CACHE", nullptr);
  {
    ScopedEnv xdg("XDG_CACHE_HOME", "/x/cache");
    EXPECT_EQ(disk_cache_dir(), std::filesystem::path("/x/cache/vkstark"));
  }
  ScopedEnv xdg("XDG_CACHE_HOME", nullptr);
  ScopedEnv home("HOME", "/home/u");
  EXPECT_EQ(disk_cache_dir(), std::filesystem::path("/home/u/.cache/vkstark"));
  ScopedEnv no_home("HOME", nullptr);
  EXPECT_TRUE(disk_cache_dir().empty());
}

std::string sha256_hex(std::string_view s) {
  detail::Sha256 h;
  h.update(s);
  return detail::Sha256::hex(h.finish());
}

TEST(Sha256, MatchesTheKnownAnswers) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  // One million 'a', fed in uneven pieces across block boundaries.
  detail::Sha256 h;
  const std::string piece(997, 'a');
  size_t left = 1000000;
  while (left > 0) {
    const size_t n = std::min(left, piece.size());
    h.update(piece.data(), n);
    left -= n;
  }
  EXPECT_EQ(detail::Sha256::hex(h.finish()), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256, FieldsAreLengthPrefixed) {
  detail::Sha256 a, b;
  a.field("ab");
  a.field("c");
  b.field("a");
  b.field("bc");
  EXPECT_NE(a.finish(), b.finish());
}

}  // namespace
