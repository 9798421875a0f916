#include "product/detail/field_file.hpp"

#include <fmt/format.h>

#include <tbb/parallel_for.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>

#include "runtime/error.hpp"
#include "runtime/file.hpp"
#include "stages/encoding/codec.hpp"

namespace vkstark::detail {

std::string name_problem(std::string_view name, size_t max_bytes) {
  if (name.empty() || name.size() > max_bytes)
    return fmt::format("AIR name length {} (expected 1 to {})", name.size(), max_bytes);
  for (size_t i = 0; i < name.size(); ++i)
    if (name[i] < 0x20 || name[i] > 0x7e) return fmt::format("AIR name byte {} is not printable ASCII", i);
  return "";
}

void CheckedReader::fail(std::string_view what) const { throw DecodeError(fmt::format("{}: {}", prefix_, what)); }

void CheckedReader::need(uint64_t n, std::string_view field) const {
  if (remaining() < n) fail(fmt::format("truncated in the {} ({} bytes left, {} needed)", field, remaining(), n));
}

uint32_t CheckedReader::u32(std::string_view field) {
  need(4, field);
  const uint32_t v = le32(bytes_.data() + pos_);
  pos_ += 4;
  return v;
}

std::span<const uint8_t> CheckedReader::bytes(uint64_t n, std::string_view field) {
  need(n, field);
  const std::span<const uint8_t> out = bytes_.subspan(pos_, n);
  pos_ += n;
  return out;
}

std::string CheckedReader::name(std::string_view field, uint32_t max_bytes) {
  const uint32_t len = u32(fmt::format("{} length", field));
  if (len > max_bytes) fail(fmt::format("{} length {} > {}", field, len, max_bytes));
  const auto bytes = this->bytes(padded4(len), field);
  std::string name(bytes.begin(), bytes.begin() + len);
  if (std::string p = name_problem(name, max_bytes); !p.empty()) fail(p);
  for (uint32_t i = len; i < bytes.size(); ++i)
    if (bytes[i] != 0) fail(fmt::format("{} padding byte {} is {}, not 0", field, i - len, bytes[i]));
  return name;
}

Fp CheckedReader::canonical(std::string_view field) {
  const uint32_t v = u32(field);
  if (v >= Fp::P) fail(fmt::format("{}: {} is not a canonical BabyBear element", field, v));
  return Fp::from_canonical_unchecked(v);
}

std::optional<uint64_t> convert_canonical(const uint8_t* bytes, Fp* values, uint64_t cells) {
  constexpr uint64_t kPiece = uint64_t(1) << 20;
  std::atomic<uint64_t> first_bad{UINT64_MAX};
  tbb::parallel_for(uint64_t{0}, (cells + kPiece - 1) / kPiece, [&](uint64_t piece) {
    const uint64_t end = std::min(cells, (piece + 1) * kPiece);
    for (uint64_t i = piece * kPiece; i < end; ++i) {
      const uint32_t v = le32(bytes + 4 * i);
      if (v >= Fp::P) {
        uint64_t seen = first_bad.load();
        while (i < seen && !first_bad.compare_exchange_weak(seen, i)) {
        }
        return;
      }
      values[i] = Fp::from_canonical_unchecked(v);
    }
  });
  const uint64_t i = first_bad.load();
  if (i == UINT64_MAX) return std::nullopt;
  return i;
}

PositionalFile::PositionalFile(const std::string& path, std::string what) : path_(path), what_(std::move(what)) {
  const OpenedFile file = open_regular_file(path);  // a FIFO is refused, not waited on
  if (file.fd < 0) throw InputError(fmt::format("cannot read the {} '{}': {}", what_, path, file.error));
  fd_ = file.fd;
  size_ = file.size;
}

PositionalFile::~PositionalFile() { ::close(fd_); }

bool PositionalFile::read_at(void* p, uint64_t n, uint64_t at) const {
  auto* out = static_cast<uint8_t*>(p);
  while (n > 0) {
    const ssize_t got = ::pread(fd_, out, std::min<uint64_t>(n, uint64_t(1) << 30), off_t(at));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) throw InputError(fmt::format("cannot read the {} '{}': {}", what_, path_, std::strerror(errno)));
    if (got == 0) return false;
    out += got;
    at += uint64_t(got);
    n -= uint64_t(got);
  }
  return true;
}

}  // namespace vkstark::detail
