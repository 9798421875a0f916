// What the readers of vkstark's field-element files share (trace files, proving inputs): checked
// little-endian reads that name the field a file ends in, names that stay one line of text, values
// read straight into given memory (pread) and turned from canonical words into field elements in
// place. Internal to product/; thread-safe (a PositionalFile's reads are independent preads).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "kernels/field/fp.hpp"

namespace vkstark::detail {

// "" when `name` is 1 to max_bytes bytes of printable ASCII, else what is wrong with it (so that an
// error message quoting a hostile name stays one line of text).
std::string name_problem(std::string_view name, size_t max_bytes);

inline uint32_t padded4(uint32_t n) { return (n + 3) & ~3u; }

inline uint32_t le32(const uint8_t* p) {
  return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}

// Reads little-endian words and byte runs, each checked first: a short input throws DecodeError
// "<prefix>: truncated in the <field> (N bytes left, M needed)"; fail() throws "<prefix>: <what>".
class CheckedReader {
 public:
  CheckedReader(std::span<const uint8_t> bytes, std::string prefix) : bytes_(bytes), prefix_(std::move(prefix)) {}
  [[noreturn]] void fail(std::string_view what) const;
  void need(uint64_t n, std::string_view field) const;
  uint32_t u32(std::string_view field);
  std::span<const uint8_t> bytes(uint64_t n, std::string_view field);
  // A name of at most max_bytes printable bytes: u32 length, the bytes, zero bytes to a multiple of 4.
  std::string name(std::string_view field, uint32_t max_bytes);
  // A canonical field element (a u32 below p).
  Fp canonical(std::string_view field);
  uint64_t remaining() const { return bytes_.size() - pos_; }
  uint64_t pos() const { return pos_; }

 private:
  std::span<const uint8_t> bytes_;
  uint64_t pos_ = 0;
  std::string prefix_;
};

// Canonical little-endian words at `bytes` into field elements at `values` (may be the same
// memory), in parallel; the index of the first word that is not below p, or nullopt.
std::optional<uint64_t> convert_canonical(const uint8_t* bytes, Fp* values, uint64_t cells);

// A regular file read at offsets. InputError "cannot read the <what> '<path>': <reason>" when it
// cannot be opened, is not a regular file, or a read fails.
class PositionalFile {
 public:
  PositionalFile(const std::string& path, std::string what);
  ~PositionalFile();
  PositionalFile(const PositionalFile&) = delete;
  PositionalFile& operator=(const PositionalFile&) = delete;
  uint64_t size() const { return size_; }
  // All of [at, at + n) into p; false at an early end of the file.
  bool read_at(void* p, uint64_t n, uint64_t at) const;

 private:
  int fd_ = -1;
  uint64_t size_ = 0;
  std::string path_, what_;
};

}  // namespace vkstark::detail
