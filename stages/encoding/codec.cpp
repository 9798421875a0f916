#include "stages/encoding/codec.hpp"

#include <fmt/format.h>

namespace vkstark {

std::string FieldName::str() const {
  switch (n_) {
    case 0:
      return pattern_;
    case 1:
      return fmt::format(fmt::runtime(pattern_), index_[0]);
    case 2:
      return fmt::format(fmt::runtime(pattern_), index_[0], index_[1]);
    default:
      return fmt::format(fmt::runtime(pattern_), index_[0], index_[1], index_[2]);
  }
}

void ByteWriter::usize(uint64_t v) {
  if (v > UINT32_MAX) throw InputError(fmt::format("proof encoding: length {} does not fit a u32", v));
  u32(static_cast<uint32_t>(v));
}

void ByteWriter::varint(uint64_t v) {
  uint8_t b[10];
  size_t n = 0;
  for (; v >= 0x80; v >>= 7) b[n++] = static_cast<uint8_t>(v | 0x80);
  b[n++] = static_cast<uint8_t>(v);
  out_.insert(out_.end(), b, b + n);
}

void ByteReader::fail(const FieldName& what, std::string_view problem, DecodeReject code) const {
  throw DecodeError(fmt::format("{}: {}", what.str(), problem), code);
}

void ByteReader::need(uint64_t n, const FieldName& what) const {
  if (remaining() < n) fail(what, fmt::format("{} bytes left, {} needed", remaining(), n), DecodeReject::Truncated);
}

void ByteReader::require(uint64_t n, uint64_t item_bytes, const FieldName& what) const {
  uint64_t total = 0;
  if (__builtin_mul_overflow(n, item_bytes, &total))
    fail(what, fmt::format("{} items of {} bytes: {} bytes left, more than 2^64 needed", n, item_bytes, remaining()),
         DecodeReject::Truncated);
  if (remaining() < total)
    fail(what, fmt::format("{} items of {} bytes: {} bytes left, {} needed", n, item_bytes, remaining(), total),
         DecodeReject::Truncated);
}

uint32_t ByteReader::u32(const FieldName& what) {
  need(4, what);
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= uint32_t(bytes_[pos_ + i]) << (8 * i);
  pos_ += 4;
  return v;
}

uint8_t ByteReader::u8(const FieldName& what) {
  need(1, what);
  return bytes_[pos_++];
}

std::span<const uint8_t> ByteReader::bytes(uint64_t n, const FieldName& what) {
  need(n, what);
  const auto out = bytes_.subspan(pos_, n);
  pos_ += n;
  return out;
}

Fp ByteReader::f(const FieldName& what) {
  const uint32_t v = u32(what);
  if (v >= Fp::P) fail(what, fmt::format("{} is not a field element (>= p)", v), DecodeReject::NotAFieldElement);
  return Fp::from_canonical_unchecked(v);
}

Fp4 ByteReader::ef(const FieldName& what) {
  need(16, what);
  Fp4 r;
  for (Fp& c : r.c) c = f(what);
  return r;
}

Digest ByteReader::digest(const FieldName& what) {
  need(32, what);
  Digest d;
  for (Fp& c : d) c = f(what);
  return d;
}

uint64_t ByteReader::count(const FieldName& what, uint64_t min_item_bytes) {
  const uint64_t n = usize(what);
  require(n, min_item_bytes, what);
  return n;
}

uint64_t ByteReader::expect(const FieldName& what, uint64_t want, uint64_t min_item_bytes) {
  const uint64_t got = usize(what);
  if (got != want) fail(what, fmt::format("{}, expected {}", got, want), DecodeReject::CountMismatch);
  require(got, min_item_bytes, what);
  return got;
}

void ByteReader::expect_end(const FieldName& what) const {
  if (remaining() != 0) fail(what, fmt::format("{} trailing bytes", remaining()), DecodeReject::TrailingBytes);
}

uint64_t ByteReader::varint(const FieldName& what, uint64_t max) {
  uint64_t v = 0;
  for (int i = 0; i < 10; ++i) {
    const uint8_t b = u8(what);
    // The tenth byte carries bit 63 only.
    if (i == 9 && b > 1) fail(what, "varint exceeds 64 bits", DecodeReject::NonCanonicalVarint);
    v |= uint64_t(b & 0x7f) << (7 * i);
    if ((b & 0x80) == 0) {
      if (i > 0 && b == 0) fail(what, "varint is not in its shortest form", DecodeReject::NonCanonicalVarint);
      if (v > max) fail(what, fmt::format("{} exceeds {}", v, max));
      return v;
    }
  }
  fail(what, "varint exceeds 64 bits", DecodeReject::NonCanonicalVarint);
}

int64_t ByteReader::zigzag(const FieldName& what) {
  const uint64_t z = varint(what);
  return static_cast<int64_t>((z >> 1) ^ (~(z & 1) + 1));
}

uint64_t ByteReader::varint_count(const FieldName& what, uint64_t min_item_bytes) {
  const uint64_t n = varint(what);
  require(n, min_item_bytes, what);
  return n;
}

}  // namespace vkstark
