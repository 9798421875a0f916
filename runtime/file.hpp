// Writing files without losing what they held: a file is replaced whole or not at all, and a path
// is checked for writing without being touched (architecture.md, "Errors": no command loses a
// user's file). Thread-safe.
#pragma once

#include <filesystem>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace vkstark {

// A file that could not be written: the message names it and the reason; error() is the errno
// (ENOSPC for a full disk), 0 where there is none.
class WriteError : public std::runtime_error {
 public:
  WriteError(const std::string& what, int error) : std::runtime_error(what), error_(error) {}
  [[nodiscard]] int error() const { return error_; }

 private:
  int error_;
};

// Writes `bytes` (any bytes; a string_view of them) to `path` so that it holds either what it held before or all of
// `bytes`: into a temporary file beside it (".<name>.vkstark-<pid>-<n>.tmp"), then renamed over it.
// std::runtime_error naming the path and the system's reason when that fails; the temporary file is
// removed and `path` is untouched. The folder must exist. WriteError when a write fails.
void replace_file(const std::filesystem::path& path, std::string_view bytes);

// Several files replaced as one set, all or none, even across a kill (docs/decisions.md, "Outputs
// written as a set"):
// - every temporary file is written to the disk first (a failure removes them all and leaves every
//   path as it was), then the special files (a pipe, /dev/null) in place;
// - then a journal naming them is put in place (".vkstark-<pid>-<n>.journal", a copy in each folder
//   of the set): once every copy is there, the set is committed;
// - then each temporary file is renamed over its path, and the journal removed.
// Writers of a folder take turns (flock on the folder, by threads and processes alike), so that two
// commands writing the same paths leave one command's set, never a mix. Whoever writes in a folder
// next finishes a set whose writer was killed after its journal (the renames left), rolls back one
// killed before every copy of it was in place, and removes the temporary files of writers killed
// before it; a folder this process left unchanged is not looked at
// again. std::runtime_error names the path.
void replace_files(std::span<const std::pair<std::filesystem::path, std::string_view>> files);

// Why `path` could not be written by replace_file, without writing anything: "" when it could, else
// the system's reason ("No such file or directory" for a missing folder, "Is a directory", "Permission
// denied").
[[nodiscard]] std::string unwritable_reason(const std::filesystem::path& path);

// A file opened for reading only where it is a regular file, and never blocking on the way: a FIFO
// is opened non-blocking (opening one to read otherwise waits for a writer), then refused like a
// folder or a device. `fd` (the caller closes it) and `size`, or fd -1 and `error`: the system's
// reason, or what the file is instead ("a FIFO, not a regular file").
struct OpenedFile {
  int fd = -1;
  uint64_t size = 0;
  std::string error;
};
[[nodiscard]] OpenedFile open_regular_file(const std::filesystem::path& path);

// The whole of the regular file at `path` (open_regular_file: never waiting on a FIFO), or `error`
// naming the path and why not: it cannot be opened or read; it is larger than `max_bytes` (refused
// before a byte is read); or, where `starts` is given, its first bytes are none of them ("'x' is not
// a vkstark proof file: it starts with 7f 45 4c 46 ..."; `what` names the kind), read before the
// rest, so that what cannot be such a file costs one small read.
struct ReadFile {
  std::vector<uint8_t> bytes;
  std::string error;
};
[[nodiscard]] ReadFile read_whole_file(const std::filesystem::path& path, uint64_t max_bytes,
                                       std::span<const std::string_view> starts = {},
                                       std::string_view what = "file this reads");

}  // namespace vkstark
