#include "runtime/file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <vector>

#include "runtime/fault.hpp"

namespace vkstark {

namespace {

namespace fs = std::filesystem;

// A file that is no regular file (/dev/null, a pipe): written in place, never renamed over.
bool special(const fs::path& path) {
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  return fs::exists(st) && !fs::is_regular_file(st) && !fs::is_directory(st);
}

// Writes `bytes` to `file` (created or truncated), and with `sync` to the disk before returning;
// errors name `path`, the file the caller means.
void write_whole(const fs::path& file, const fs::path& path, std::string_view bytes, bool sync) {
  const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) throw WriteError(fmt::format("cannot write '{}': {}", path.string(), std::strerror(errno)), errno);
  // VKSTARK_FAULT=disk_full:after=N: the files after the first N this process writes find the disk full.
  static std::atomic<uint64_t> writes{0};
  const uint64_t write = writes.fetch_add(1) + 1;
  if (const auto after = fault_value("disk_full", "after"); after && write > *after) {
    ::close(fd);
    throw WriteError(fmt::format("cannot write {} bytes to '{}': {} (injected: VKSTARK_FAULT)", bytes.size(),
                                 path.string(), std::strerror(ENOSPC)),
                     ENOSPC);
  }
  size_t done = 0;
  int error = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      error = n < 0 ? errno : ENOSPC;
      break;
    }
    done += size_t(n);
  }
  if (error == 0 && sync && ::fsync(fd) != 0 && errno != EINVAL) error = errno;  // EINVAL: a pipe
  if (::close(fd) != 0 && error == 0) error = errno;
  if (error != 0)
    throw WriteError(
        fmt::format("cannot write {} bytes to '{}': {}", bytes.size(), path.string(), std::strerror(error)), error);
}

// The folder a path is written in.
fs::path folder_of(const fs::path& path) { return path.has_parent_path() ? path.parent_path() : fs::path("."); }

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool ends_with(std::string_view s, std::string_view e) {
  return s.size() >= e.size() && s.substr(s.size() - e.size()) == e;
}

// Our temporary files and journals: hidden, and marked so that nothing else is taken for one.
constexpr std::string_view kTmpMark = ".vkstark-", kTmpEnd = ".tmp", kJournalEnd = ".journal";
constexpr std::string_view kJournalMagic = "vkstark output set 1";

std::atomic<uint64_t> name_counter{0};
fs::path temporary_for(const fs::path& path, std::string_view what) {
  return folder_of(path) /
         fmt::format(".{}{}{}-{}{}", path.filename().string(), kTmpMark, ::getpid(), name_counter.fetch_add(1), what);
}

// Exclusive locks (flock) on folders, so that writers of one folder (threads or processes) take
// turns: a set of outputs is then never mixed with another writer's, and whatever temporary file or
// journal a lock holder finds is a dead writer's. Taken in one order (sorted), so that writers of
// overlapping folders never wait on each other in a cycle; more may be tried without waiting.
class FolderLocks {
 public:
  // Each folder with a file to be written in it (named in the error when the folder cannot be
  // opened: "cannot write 'a/b.vkp': No such file or directory").
  explicit FolderLocks(std::vector<std::pair<fs::path, fs::path>> folders) {
    std::sort(folders.begin(), folders.end());
    for (size_t i = 0; i < folders.size(); ++i) {
      if (i > 0 && folders[i].first == folders[i - 1].first) continue;
      if (!add(folders[i].first, true)) {
        release();  // no destructor runs for a constructor that throws
        throw WriteError(fmt::format("cannot write '{}': {}", folders[i].second.string(), error_), errno_);
      }
    }
  }
  ~FolderLocks() { release(); }
  FolderLocks(const FolderLocks&) = delete;
  FolderLocks& operator=(const FolderLocks&) = delete;
  bool holds(const fs::path& folder) const {
    return std::any_of(held_.begin(), held_.end(), [&](const auto& h) { return h.first == folder; });
  }
  // A lock more, only if no one holds it now.
  bool try_add(const fs::path& folder) { return holds(folder) || add(folder, false); }
  const std::vector<std::pair<fs::path, int>>& held() const { return held_; }

 private:
  void release() {
    for (const auto& [f, fd] : held_) ::close(fd);
    held_.clear();
  }
  bool add(const fs::path& folder, bool wait) {
    const int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
      errno_ = errno;
      error_ = std::strerror(errno);
      return false;
    }
    int r;
    while ((r = ::flock(fd, LOCK_EX | (wait ? 0 : LOCK_NB))) != 0 && errno == EINTR) {
    }
    // A file system without flock (ENOLCK, EOPNOTSUPP: some network ones) is written without it.
    if (r != 0 && (errno == EWOULDBLOCK || !wait)) {
      ::close(fd);
      return false;
    }
    held_.emplace_back(folder, fd);
    return true;
  }
  std::vector<std::pair<fs::path, int>> held_;
  std::string error_;
  int errno_ = 0;
};

// The folder made canonical, for locks and the record of folders known clean.
fs::path canonical_folder(const fs::path& path) {
  std::error_code ec;
  fs::path f = fs::weakly_canonical(fs::absolute(folder_of(path), ec), ec);
  return ec ? fs::absolute(folder_of(path)) : f;
}

// A folder's modification time, as this process last left it: a folder that no one else has
// changed since needs no new look for a dead writer's leftovers.
std::optional<std::pair<int64_t, int64_t>> folder_time(const fs::path& folder) {
  struct stat st {};
  if (::stat(folder.c_str(), &st) != 0) return std::nullopt;
  return std::pair<int64_t, int64_t>(st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
}
std::mutex clean_mutex;
std::map<fs::path, std::pair<int64_t, int64_t>> clean_folders;

// A journal's pairs (temporary file, the path it replaces), absolute; nullopt for what is no
// journal of ours.
// Whether `tmp` is the name temporary_for gives a temporary file of `path`:
// "<folder of path>/.<name>.vkstark-<digits>-<digits>.tmp".
bool temporary_of(const fs::path& tmp, const fs::path& path) {
  if (tmp.parent_path() != path.parent_path()) return false;
  const std::string name = tmp.filename().string();
  std::string head = ".";
  head += path.filename().string();
  head += kTmpMark;
  if (!starts_with(name, head) || !ends_with(name, kTmpEnd)) return false;
  const std::string_view mid = std::string_view(name).substr(head.size(), name.size() - head.size() - kTmpEnd.size());
  const size_t dash = mid.find('-');
  auto digits = [](std::string_view d) {
    return !d.empty() && std::all_of(d.begin(), d.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  return dash != std::string_view::npos && digits(mid.substr(0, dash)) && digits(mid.substr(dash + 1));
}

// A journal's pairs (temporary file, the path it replaces), absolute; nullopt for what is no
// journal of ours. Hostile input (anyone who may write in the folder may leave one): read only as a
// regular file of at most 1 MiB, and a pair is taken only where its temporary file is one this code
// names for its path, beside it, so that finishing a journal renames nothing but our temporary files.
std::optional<std::vector<std::pair<fs::path, fs::path>>> read_journal(const fs::path& journal) {
  const std::string_view starts[] = {kJournalMagic};
  const ReadFile file = read_whole_file(journal, uint64_t(1) << 20, starts, "journal");
  if (!file.error.empty()) return std::nullopt;
  const std::string text(file.bytes.begin(), file.bytes.end());
  std::vector<std::string> fields;
  size_t at = 0;
  while (at < text.size()) {
    const size_t nul = text.find('\0', at);
    if (nul == std::string::npos) return std::nullopt;
    fields.push_back(text.substr(at, nul - at));
    at = nul + 1;
  }
  if (fields.size() < 2 || fields.front() != kJournalMagic || fields.back() != "end" || fields.size() % 2 != 0)
    return std::nullopt;
  std::vector<std::pair<fs::path, fs::path>> pairs;
  for (size_t i = 1; i + 1 < fields.size(); i += 2) {
    const fs::path tmp(fields[i]), path(fields[i + 1]);
    if (!tmp.is_absolute() || !path.is_absolute() || !temporary_of(tmp, path)) return std::nullopt;
    pairs.emplace_back(tmp, path);
  }
  return pairs;
}

// Under the folder's lock: a dead writer's set of outputs finished (its journal says every file was
// written: each temporary file still there is renamed over its path), then its temporary files
// removed. A journal naming a folder another writer holds now is left for later, with its files.
void clean_folder(const fs::path& folder, FolderLocks& locks) {
  {
    std::lock_guard lock(clean_mutex);
    const auto it = clean_folders.find(folder);
    if (it != clean_folders.end() && folder_time(folder) == it->second) return;
  }
  std::vector<fs::path> journals, tmps;
  std::error_code ec;
  for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (!starts_with(name, ".") || name.find(kTmpMark) == std::string::npos) continue;
    if (ends_with(name, kJournalEnd) && starts_with(name, kTmpMark)) journals.push_back(it->path());
    if (ends_with(name, kTmpEnd)) tmps.push_back(it->path());
  }
  std::set<fs::path> keep;
  for (const fs::path& journal : journals) {
    const auto pairs = read_journal(journal);
    std::error_code ignored;
    if (!pairs) {
      fs::remove(journal, ignored);
      continue;
    }
    // A set over several folders has a copy of its journal in each; it was committed only once
    // every copy was in place (its renames come after). Else it is rolled back: a writer of another
    // of its folders may already have removed a temporary file there.
    bool held = true;
    std::set<fs::path> copies;
    for (const auto& [tmp, path] : *pairs) {
      held = held && locks.try_add(canonical_folder(path));
      copies.insert(path.parent_path() / journal.filename());
    }
    if (!held) {
      for (const auto& [tmp, path] : *pairs) keep.insert(tmp);
      continue;
    }
    const bool committed = std::all_of(copies.begin(), copies.end(), [](const fs::path& c) {
      std::error_code e;
      return fs::exists(c, e);
    });
    for (const auto& [tmp, path] : *pairs)
      if (fs::exists(tmp, ignored)) committed ? fs::rename(tmp, path, ignored) : (void)fs::remove(tmp, ignored);
    for (const fs::path& c : copies) fs::remove(c, ignored);
    fs::remove(journal, ignored);
  }
  for (const fs::path& tmp : tmps) {
    std::error_code ignored;
    if (!keep.contains(tmp)) fs::remove(tmp, ignored);
  }
}

// Remembers the folders as this process leaves them (under their locks).
void mark_clean(const FolderLocks& locks) {
  std::lock_guard lock(clean_mutex);
  for (const auto& [folder, fd] : locks.held())
    if (auto t = folder_time(folder)) clean_folders[folder] = *t;
}

// Each file written (VKSTARK_FAULT=exit_after_writes:files=N stops the process after the Nth).
std::atomic<uint64_t> files_written{0};

void sync_folder(const fs::path& folder) {
  const int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  (void)::fsync(fd);
  ::close(fd);
}

}  // namespace

void replace_files(std::span<const std::pair<std::filesystem::path, std::string_view>> files) {
  std::vector<std::pair<fs::path, fs::path>> folders;
  for (const auto& [path, bytes] : files)
    if (!special(path)) folders.emplace_back(canonical_folder(path), path);
  FolderLocks locks(folders);
  for (const auto& [folder, fd] : std::vector(locks.held())) clean_folder(folder, locks);

  // The set: every temporary file written (to the disk, where there is more than one), then a
  // journal naming them (written whole, then renamed into place: from then on the set is committed),
  // then each renamed over its path, then the journal removed. A process killed before the journal
  // leaves only temporary files, which the next writer of the folder removes; killed after, the next
  // writer finishes the renames. Writers of a folder take turns (FolderLocks).
  size_t regular = 0;
  for (const auto& [path, bytes] : files) regular += !special(path);
  const bool journaled = regular > 1;
  std::vector<fs::path> tmps(files.size());
  std::vector<fs::path> journals;  // a copy in each folder of the set
  auto remove_tmps = [&] {
    std::error_code ignored;
    for (const auto& t : tmps)
      if (!t.empty()) fs::remove(t, ignored);
  };
  auto remove_journals = [&] {
    std::error_code ignored;
    for (const auto& j : journals) fs::remove(j, ignored);
  };
  try {
    for (size_t i = 0; i < files.size(); ++i) {
      const auto& [path, bytes] = files[i];
      if (special(path)) continue;
      tmps[i] = temporary_for(path, kTmpEnd);
      write_whole(tmps[i], path, bytes, journaled);
    }
    for (size_t i = 0; i < files.size(); ++i)
      if (tmps[i].empty()) write_whole(files[i].first, files[i].first, files[i].second, false);
    if (journaled) {
      std::string text(kJournalMagic);
      text += '\0';
      for (size_t i = 0; i < files.size(); ++i) {
        if (tmps[i].empty()) continue;
        text += fs::absolute(tmps[i]).string() + '\0' + fs::absolute(files[i].first).string() + '\0';
      }
      text += std::string("end") + '\0';
      // One copy per folder, so that a writer of any of them finds it (clean_folder: the set is
      // committed once every copy is in place).
      const std::string name = fmt::format("{}{}-{}{}", kTmpMark, ::getpid(), name_counter.fetch_add(1), kJournalEnd);
      for (size_t i = 0; i < files.size(); ++i) {
        const fs::path journal = folder_of(files[i].first) / name;
        if (tmps[i].empty() || std::find(journals.begin(), journals.end(), journal) != journals.end()) continue;
        const fs::path journal_tmp = temporary_for(journal, kTmpEnd);
        tmps.push_back(journal_tmp);
        write_whole(journal_tmp, journal, text, true);
        std::error_code ec;
        fs::rename(journal_tmp, journal, ec);
        if (ec) throw std::runtime_error(fmt::format("cannot write '{}': {}", journal.string(), ec.message()));
        tmps.back().clear();
        journals.push_back(journal);
        sync_folder(folder_of(journal));
        if (fault_injected("exit_in_write", "journals", journals.size())) std::_Exit(kFaultExitStatus);
      }
    }
  } catch (...) {
    remove_tmps();
    remove_journals();
    throw;
  }
  uint64_t renamed = 0;
  for (size_t i = 0; i < files.size(); ++i) {
    const auto& path = files[i].first;
    if (tmps[i].empty()) continue;
    std::error_code ec;
    fs::rename(tmps[i], path, ec);
    if (ec) {
      // Only the first rename can fail here in practice (the folder and the files were written);
      // the journal stays for what was renamed before, so that the next writer finishes the set.
      if (renamed == 0) {
        remove_tmps();
        remove_journals();
      }
      throw std::runtime_error(fmt::format("cannot write '{}': {}", path.string(), ec.message()));
    }
    tmps[i].clear();
    ++renamed;
    if (journaled && fault_injected("exit_in_write", "renamed", renamed)) std::_Exit(kFaultExitStatus);
  }
  remove_journals();
  mark_clean(locks);
  const uint64_t written = files_written.fetch_add(files.size()) + files.size();
  if (fault_kind_injected("exit_after_writes"))
    for (uint64_t n = written - files.size() + 1; n <= written; ++n)
      if (fault_injected("exit_after_writes", "files", n)) std::_Exit(kFaultExitStatus);
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

ReadFile read_whole_file(const std::filesystem::path& path, uint64_t max_bytes,
                         std::span<const std::string_view> starts, std::string_view what) {
  ReadFile out;
  const OpenedFile file = open_regular_file(path);
  if (file.fd < 0) {
    out.error = fmt::format("cannot read '{}': {}", path.string(), file.error);
    return out;
  }
  if (file.size > max_bytes) {
    ::close(file.fd);
    out.error = fmt::format("'{}' is larger than {} bytes ({} bytes): not a file this reads", path.string(), max_bytes,
                            file.size);
    return out;
  }
  out.bytes.resize(file.size);
  size_t first = out.bytes.size();  // read first: enough for the longest start
  if (!starts.empty()) {
    first = 0;
    for (std::string_view s : starts) first = std::max(first, s.size());
    first = std::min<size_t>(first, out.bytes.size());
  }
  uint64_t got = 0;
  auto read_to = [&](uint64_t end) {
    while (got < end) {
      const ssize_t n = ::read(file.fd, out.bytes.data() + got, end - got);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        out.error = fmt::format("cannot read '{}': {}", path.string(), std::strerror(errno));
        return false;
      }
      if (n == 0) break;  // it shrank meanwhile
      got += uint64_t(n);
    }
    return true;
  };
  bool ok = read_to(first);
  if (ok && !starts.empty()) {
    const bool known = std::any_of(starts.begin(), starts.end(), [&](std::string_view s) {
      return got >= s.size() && std::equal(s.begin(), s.end(), out.bytes.begin());
    });
    if (!known) {
      std::string head;
      for (uint64_t i = 0; i < std::min<uint64_t>(got, 8); ++i) head += fmt::format(" {:02x}", out.bytes[i]);
      out.error = got == 0 ? fmt::format("'{}' is not a {}: it is empty", path.string(), what)
                           : fmt::format("'{}' is not a {}: it starts with{}{}", path.string(), what, head,
                                         got > 8 ? " ..." : "");
      ok = false;
    }
  }
  if (ok) ok = read_to(out.bytes.size());
  ::close(file.fd);
  if (!ok) {
    out.bytes.clear();
    return out;
  }
  out.bytes.resize(got);
  return out;
}

}  // namespace vkstark
