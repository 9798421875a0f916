// Byte codec primitives of protocol.md 12.2: u32 little-endian, usize as u32, F canonical u32 (the
// reader rejects values >= p), EF as 4 F, Digest as 8 F. Also the postcard primitives of the
// verifying-key encoding (protocol.md 4.6): LEB128 varints and zig-zag signed varints.
//
// Hostile input (protocol.md 12.2): the reader never reads past the end, and a decoder asks it
// (require / count) whether n items still fit in the bytes left, the product computed without
// overflow, before it allocates room for them; so no input can make a decoder allocate more than a
// small multiple of its own size. Errors are DecodeError naming the field of the proof.
// Value types; a ByteReader borrows the bytes it reads, which must outlive it. Thread-compatible.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "kernels/field/fp4.hpp"
#include "kernels/hash/hash.hpp"
#include "runtime/error.hpp"
#include "stages/common/verify_result.hpp"

namespace vkstark {

// Malformed proof or verifying-key bytes: truncated, a count that does not fit the bytes left or
// the params' shape, a value >= p, a non-canonical encoding, trailing bytes. The message starts
// with the field's name; the code says which of these it is (a verifier's rejection code for bytes
// that do not decode).
class DecodeError : public InputError {
 public:
  explicit DecodeError(const std::string& what, DecodeReject code = DecodeReject::InvalidValue)
      : InputError(what), code_(code) {}
  DecodeReject code() const { return code_; }

 private:
  DecodeReject code_;
};

// The name of a proof field for an error message: a fmt pattern with up to three indices, e.g.
// {"WHIR proof: round {} query {} Merkle path", i, q}. Formatted only when an error is raised, so
// naming each field read costs nothing.
class FieldName {
 public:
  template <class... Index>
  requires(sizeof...(Index) <= 3)
      FieldName(const char* pattern, Index... index)  // NOLINT: implicit from a literal on purpose
      : pattern_(pattern), index_{uint64_t(index)...}, n_(sizeof...(Index)) {}
  std::string str() const;
  // The same name with one more index (for the element or row of a list; beyond three indices the
  // index is dropped). The pattern should have a {} for it; an unused index is ignored.
  FieldName append(uint64_t i) const {
    FieldName f = *this;
    if (f.n_ < 3) f.index_[f.n_++] = i;
    return f;
  }

 private:
  const char* pattern_;
  std::array<uint64_t, 3> index_{};
  uint8_t n_;
};

class ByteWriter {
 public:
  explicit ByteWriter(std::vector<uint8_t>& out) : out_(out) {}
  void u32(uint32_t v) {  // little-endian, inline: a proof is mostly u32s
    const size_t at = out_.size();
    out_.resize(at + 4);
    uint8_t* o = out_.data() + at;
    o[0] = uint8_t(v);
    o[1] = uint8_t(v >> 8);
    o[2] = uint8_t(v >> 16);
    o[3] = uint8_t(v >> 24);
  }
  void usize(uint64_t v);  // as u32; InputError if it does not fit
  void u8(uint8_t v) { out_.push_back(v); }
  void f(Fp v) { u32(v.value()); }
  // n field elements read from `data` (objects made of Fp only: Fp, Fp4, Digest), as f() each,
  // with one resize: a proof's bulk (opened rows, paths).
  void fields(const void* data, size_t n) {
    static_assert(sizeof(Fp) == 4 && std::is_trivially_copyable_v<Fp>);
    const size_t at = out_.size();
    out_.resize(at + 4 * n);
    uint8_t* o = out_.data() + at;
    const auto* in = static_cast<const unsigned char*>(data);
    for (size_t i = 0; i < n; ++i, o += 4) {
      Fp x;
      std::memcpy(static_cast<void*>(&x), in + i * sizeof(Fp), sizeof(Fp));
      const uint32_t v = x.value();
      o[0] = uint8_t(v);
      o[1] = uint8_t(v >> 8);
      o[2] = uint8_t(v >> 16);
      o[3] = uint8_t(v >> 24);
    }
  }
  void ef(const Fp4& v) {
    for (Fp c : v.c) f(c);
  }
  void digest(const Digest& d) {
    for (Fp c : d) f(c);
  }
  // Postcard: unsigned LEB128 (7 bits a byte, least significant first, high bit = more follow).
  void varint(uint64_t v);
  // Postcard isize: zig-zag ((v << 1) ^ (v >> 63)), then varint.
  void zigzag(int64_t v) { varint((static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63)); }

 private:
  std::vector<uint8_t>& out_;
};

class ByteReader {
 public:
  explicit ByteReader(std::span<const uint8_t> bytes) : bytes_(bytes) {}

  uint32_t u32(const FieldName& what);
  uint64_t usize(const FieldName& what) { return u32(what); }
  uint8_t u8(const FieldName& what);
  // The next n bytes as they are (a view into the input).
  std::span<const uint8_t> bytes(uint64_t n, const FieldName& what);
  Fp f(const FieldName& what);  // rejects a value >= p
  Fp4 ef(const FieldName& what);
  Digest digest(const FieldName& what);

  // Requires n items of item_bytes each to fit in the bytes left. Call it before allocating room
  // for n items: "<what>: N bytes left, M needed".
  void require(uint64_t n, uint64_t item_bytes, const FieldName& what) const;
  // Reads a usize count n and require()s n items of at least min_item_bytes each.
  uint64_t count(const FieldName& what, uint64_t min_item_bytes);
  // Reads a usize that must equal `want` (a count the verifier knows from the params), then
  // require()s want items of at least min_item_bytes each.
  uint64_t expect(const FieldName& what, uint64_t want, uint64_t min_item_bytes = 0);
  // Requires the input to end here (one canonical encoding: no trailing bytes).
  void expect_end(const FieldName& what) const;

  // Postcard varint <= max. Only the canonical encoding is accepted (at most 10 bytes, no
  // redundant final zero group), so a value has one encoding and re-encoding gives the same bytes.
  uint64_t varint(const FieldName& what, uint64_t max = UINT64_MAX);
  int64_t zigzag(const FieldName& what);
  // A varint count n, require()d as n items of at least min_item_bytes each.
  uint64_t varint_count(const FieldName& what, uint64_t min_item_bytes);

  // DecodeError "<what>: <problem>"; a value outside its range unless the code says otherwise.
  [[noreturn]] void fail(const FieldName& what, std::string_view problem,
                         DecodeReject code = DecodeReject::InvalidValue) const;
  size_t pos() const { return pos_; }
  size_t remaining() const { return bytes_.size() - pos_; }

 private:
  void need(uint64_t n, const FieldName& what) const;
  std::span<const uint8_t> bytes_;
  size_t pos_ = 0;
};

}  // namespace vkstark
