// Byte codec primitives of protocol.md 12.2: u32 little-endian, usize as u32, F canonical u32 (the
// reader rejects values >= p), EF as 4 F, Digest as 8 F. The reader never reads past the end and
// never allocates more than the remaining bytes can hold; errors are InputError naming the field.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "kernels/field/fp4.hpp"
#include "kernels/hash/hash.hpp"

namespace vkstark {

class ByteWriter {
 public:
  explicit ByteWriter(std::vector<uint8_t>& out) : out_(out) {}
  void u32(uint32_t v);
  void usize(uint64_t v);  // as u32; InputError if it does not fit
  void u8(uint8_t v) { out_.push_back(v); }
  void f(Fp v) { u32(v.value()); }
  void ef(const Fp4& v) {
    for (Fp c : v.c) f(c);
  }
  void digest(const Digest& d) {
    for (Fp c : d) f(c);
  }

 private:
  std::vector<uint8_t>& out_;
};

class ByteReader {
 public:
  ByteReader(std::span<const uint8_t> bytes, size_t& pos) : bytes_(bytes), pos_(pos) {}
  uint32_t u32(std::string_view what);
  uint64_t usize(std::string_view what) { return u32(what); }
  uint8_t u8(std::string_view what);
  Fp f(std::string_view what);
  Fp4 ef(std::string_view what);
  Digest digest(std::string_view what);
  // A count of items of `item_bytes` each that must still fit in the input.
  uint64_t count(std::string_view what, uint64_t item_bytes);
  // Requires an exact value (a count the verifier derives from the parameters).
  void expect(uint64_t got, uint64_t want, std::string_view what) const;
  size_t remaining() const { return bytes_.size() - pos_; }

 private:
  void need(size_t n, std::string_view what) const;
  std::span<const uint8_t> bytes_;
  size_t& pos_;
};

}  // namespace vkstark
