#include "runtime/file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

namespace vkstark {

namespace {
// A file that is no regular file (/dev/null, a pipe): written in place, never renamed over.
bool special(const std::filesystem::path& path) {
  std::error_code ec;
  const std::filesystem::file_status st = std::filesystem::status(path, ec);
  return std::filesystem::exists(st) && !std::filesystem::is_regular_file(st) && !std::filesystem::is_directory(st);
}

// Writes `bytes` to `file` (created or truncated); errors name `path`, the file the caller means.
void write_whole(const std::filesystem::path& file, const std::filesystem::path& path, std::string_view bytes) {
  std::FILE* f = std::fopen(file.c_str(), "wb");
  if (f == nullptr) throw std::runtime_error(fmt::format("cannot write '{}': {}", path.string(), std::strerror(errno)));
  const bool written = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  const int write_errno = errno;
  if (std::fclose(f) != 0 || !written)
    throw std::runtime_error(fmt::format("cannot write {} bytes to '{}': {}", bytes.size(), path.string(),
                                         std::strerror(written ? errno : write_errno)));
}
}  // namespace

void replace_files(std::span<const std::pair<std::filesystem::path, std::string_view>> files) {
  static std::atomic<uint64_t> counter{0};
  std::vector<std::filesystem::path> tmps(files.size());
  auto remove_tmps = [&] {
    std::error_code ignored;
    for (const auto& t : tmps)
      if (!t.empty()) std::filesystem::remove(t, ignored);
  };
  try {
    for (size_t i = 0; i < files.size(); ++i) {
      const auto& [path, bytes] = files[i];
      if (special(path)) continue;
      std::filesystem::path tmp = path;
      tmp += fmt::format(".{}.{}.tmp", ::getpid(), counter.fetch_add(1));
      tmps[i] = tmp;
      write_whole(tmp, path, bytes);
    }
  } catch (...) {
    remove_tmps();
    throw;
  }
  try {
    for (size_t i = 0; i < files.size(); ++i)
      if (tmps[i].empty()) write_whole(files[i].first, files[i].first, files[i].second);
  } catch (...) {
    remove_tmps();
    throw;
  }
  for (size_t i = 0; i < files.size(); ++i) {
    const auto& path = files[i].first;
    if (tmps[i].empty()) continue;
    std::error_code ec;
    std::filesystem::rename(tmps[i], path, ec);
    if (ec) {
      remove_tmps();
      throw std::runtime_error(fmt::format("cannot write '{}': {}", path.string(), ec.message()));
    }
    tmps[i].clear();
  }
}

void replace_file(const std::filesystem::path& path, std::string_view bytes) {
  const std::pair<std::filesystem::path, std::string_view> one[] = {{path, bytes}};
  replace_files(one);
}

std::string unwritable_reason(const std::filesystem::path& path) {
  std::error_code ec;
  const std::filesystem::file_status st = std::filesystem::status(path, ec);
  if (std::filesystem::is_directory(st)) return std::strerror(EISDIR);
  if (special(path)) return ::access(path.c_str(), W_OK) == 0 ? std::string() : std::strerror(errno);
  // replace_file creates a file in the folder and renames it over the path.
  const std::filesystem::path dir = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  if (::access(dir.c_str(), W_OK | X_OK) != 0) return std::strerror(errno);
  return {};
}

OpenedFile open_regular_file(const std::filesystem::path& path) {
  OpenedFile out;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    out.error = std::strerror(errno);
    return out;
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    out.error = std::strerror(errno);
    ::close(fd);
    return out;
  }
  if (!S_ISREG(st.st_mode)) {
    const char* kind = S_ISFIFO(st.st_mode)   ? "a FIFO"
                       : S_ISDIR(st.st_mode)  ? "a folder"
                       : S_ISCHR(st.st_mode)  ? "a character device"
                       : S_ISBLK(st.st_mode)  ? "a block device"
                       : S_ISSOCK(st.st_mode) ? "a socket"
                                              : "not a file";
    out.error = fmt::format("{}, not a regular file", kind);
    ::close(fd);
    return out;
  }
  // Reads of a regular file ignore O_NONBLOCK; cleared all the same.
  if (const int flags = ::fcntl(fd, F_GETFL); flags >= 0) (void)::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  out.fd = fd;
  out.size = uint64_t(st.st_size);
  return out;
}

}  // namespace vkstark
