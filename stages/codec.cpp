#include "stages/codec.hpp"

#include <fmt/format.h>

#include "runtime/error.hpp"

namespace vkstark {

void ByteWriter::u32(uint32_t v) {
  for (int i = 0; i < 4; ++i) out_.push_back(static_cast<uint8_t>(v >> (8 * i)));
}

void ByteWriter::usize(uint64_t v) {
  if (v > UINT32_MAX) throw InputError(fmt::format("proof encoding: length {} does not fit a u32", v));
  u32(static_cast<uint32_t>(v));
}

void ByteReader::need(size_t n, std::string_view what) const {
  if (bytes_.size() - pos_ < n)
    throw InputError(
        fmt::format("truncated proof: {} needs {} bytes at offset {}, {} left", what, n, pos_, bytes_.size() - pos_));
}

uint32_t ByteReader::u32(std::string_view what) {
  need(4, what);
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= uint32_t(bytes_[pos_ + i]) << (8 * i);
  pos_ += 4;
  return v;
}

uint8_t ByteReader::u8(std::string_view what) {
  need(1, what);
  return bytes_[pos_++];
}

Fp ByteReader::f(std::string_view what) {
  uint32_t v = u32(what);
  if (v >= Fp::P) throw InputError(fmt::format("malformed proof: {} holds {}, not a field element (>= p)", what, v));
  return Fp::from_canonical_unchecked(v);
}

Fp4 ByteReader::ef(std::string_view what) {
  Fp4 r;
  for (Fp& c : r.c) c = f(what);
  return r;
}

Digest ByteReader::digest(std::string_view what) {
  Digest d;
  for (Fp& c : d) c = f(what);
  return d;
}

uint64_t ByteReader::count(std::string_view what, uint64_t item_bytes) {
  uint64_t n = usize(what);
  if (item_bytes != 0 && n > remaining() / item_bytes)
    throw InputError(fmt::format("malformed proof: {} = {} items of {} bytes, only {} bytes left", what, n, item_bytes,
                                 remaining()));
  return n;
}

void ByteReader::expect(uint64_t got, uint64_t want, std::string_view what) const {
  if (got != want) throw InputError(fmt::format("malformed proof: {} is {}, expected {}", what, got, want));
}

}  // namespace vkstark
