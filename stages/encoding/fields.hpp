// One field list per proof part (style.md item 13): a part's fields are written down once, as a
// function template walking them in encoding order,
//
//   template <class V> void whir_fields(V& v, WhirProof& p, const WhirShape* s) {
//     v.value("WHIR proof: mu_pow_witness", p.mu_pow_witness);
//     const uint64_t n = v.count("WHIR proof: whir_sumcheck_polys length", [&] { return p.sumcheck_polys.size(); },
//                                want(s, [&] { return s->sumcheck_rounds(); }), 32);
//     v.list("WHIR proof: whir_sumcheck_polys", "WHIR proof: whir_sumcheck_polys[{}]", p.sumcheck_polys, n);
//     ...
//   }
//
// and every visitor derives one thing from it: ProofEncoder (bytes, protocol.md 12.2), ProofDecoder
// (bounded decoding of hostile bytes, with or without the shape the params give), ProofShapeCheck
// (the verifier's shape check of a decoded or hand-made part), and in stages/encoding/regions.hpp the
// part's regions in the device proof buffer and the reading of a downloaded buffer. A part's
// struct, its regions, its codec and its shape check cannot drift apart.
//
// Field operations (each visitor defines all of them):
//   value(name, x)                      one element
//   count(name, actual, expected, min)  a usize in the encoding that sizes what follows: encoders
//                                       write actual(), decoders read it (== *expected when the
//                                       shape is known; then min bytes per item must be left)
//   list(whole, each, xs, n)            n elements, no length (each: element name, index appended)
//   table(whole, each, xs, rows, cols)  rows x cols elements, row by row (each: row name)
//   outer(name, xs, n)                  a vector of n sub-parts, walked by the caller (n from a count
//                                       whose min bytes per item bound it)
//   require(ok, name, problem)          a rule of the encoding (decoders reject, encoders throw)
// Elements are Fp, Fp4, Digest, std::array<Fp4, N> and GkrLayerClaims-like structs of Fp4
// (ProofElement below).
//
// Header only; the visitors are value types used on one thread.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/field/fp4.hpp"
#include "kernels/hash/hash.hpp"
#include "stages/encoding/codec.hpp"

namespace vkstark {

// How an element of a proof field is stored: `n` values of a device element type `Device` (Fp,
// Fp4 or Digest), in memory exactly as in the struct (so a device region is copied into it).
template <class T>
struct ProofElement {
  using Device = T;
  static constexpr uint64_t n = 1;
};
template <size_t N>
struct ProofElement<std::array<Fp4, N>> {
  using Device = Fp4;
  static constexpr uint64_t n = N;
};
// A struct made of Fp4 members only (GkrLayerClaims) declares `using ProofDevice = Fp4;`.
template <class T>
requires requires { typename T::ProofDevice; }
struct ProofElement<T> {
  using Device = typename T::ProofDevice;
  static constexpr uint64_t n = sizeof(T) / sizeof(Device);
};

template <class T>
inline constexpr uint64_t kProofElementBytes = ProofElement<T>::n * sizeof(typename ProofElement<T>::Device);

namespace detail {
template <class D>
void put_device(ByteWriter& w, const D& x) {
  if constexpr (std::is_same_v<D, Fp>)
    w.f(x);
  else if constexpr (std::is_same_v<D, Fp4>)
    w.ef(x);
  else
    w.digest(x);
}
template <class D>
D get_device(ByteReader& r, const FieldName& what) {
  if constexpr (std::is_same_v<D, Fp>)
    return r.f(what);
  else if constexpr (std::is_same_v<D, Fp4>)
    return r.ef(what);
  else
    return r.digest(what);
}
template <class T>
void put_element(ByteWriter& w, const T& x) {
  using P = ProofElement<T>;
  static_assert(sizeof(T) == P::n * sizeof(typename P::Device) && std::is_trivially_copyable_v<T>);
  typename P::Device d[P::n];
  std::memcpy(static_cast<void*>(d), &x, sizeof(T));
  for (const auto& e : d) put_device(w, e);
}
template <class T>
T get_element(ByteReader& r, const FieldName& what) {
  using P = ProofElement<T>;
  typename P::Device d[P::n];
  for (auto& e : d) e = get_device<typename P::Device>(r, what);
  T x;
  std::memcpy(static_cast<void*>(&x), d, sizeof(T));
  return x;
}
}  // namespace detail

// Sub-part i of an outer vector, for a field list's loop. Only a shape check walks a part whose
// vector may be shorter than its count (and then it has failed already and reads nothing): there
// it gets an empty sub-part instead of an access past the end.
template <class T>
T& proof_item(std::vector<T>& xs, uint64_t i) {
  if (i < xs.size()) return xs[i];
  static thread_local T empty;
  empty = T{};
  return empty;
}

// An expected count when the shape is known: want(shape, [&] { return shape->rounds(); }).
template <class Shape, class F>
std::optional<uint64_t> want(const Shape* shape, F f) {
  return shape ? std::optional<uint64_t>(uint64_t(f())) : std::nullopt;
}

// Bytes of a part (the struct must be consistent with itself: InputError naming the field where a
// list does not have the length its count says).
class ProofEncoder {
 public:
  explicit ProofEncoder(std::vector<uint8_t>& out) : w_(out) {}
  template <class T>
  void value(const FieldName&, const T& x) {
    detail::put_element(w_, x);
  }
  template <class F>
  uint64_t count(const FieldName&, F actual, std::optional<uint64_t>, uint64_t) {
    const uint64_t n = actual();
    w_.usize(n);
    return n;
  }
  template <class T>
  void list(const FieldName& whole, const FieldName&, const std::vector<T>& xs, uint64_t n) {
    if (xs.size() != n)
      throw InputError(fmt::format("proof encoding: {} has {} entries, {} expected", whole.str(), xs.size(), n));
    static_assert(kProofElementBytes<T> == sizeof(T) && sizeof(T) % sizeof(Fp) == 0);
    w_.fields(xs.data(), xs.size() * (sizeof(T) / sizeof(Fp)));  // put_element's bytes, all at once
  }
  template <class T>
  void table(const FieldName& whole, const FieldName& each, const std::vector<std::vector<T>>& xs, uint64_t rows,
             uint64_t cols) {
    if (xs.size() != rows)
      throw InputError(fmt::format("proof encoding: {} has {} rows, {} expected", whole.str(), xs.size(), rows));
    for (const auto& row : xs) list(whole, each, row, cols);
  }
  template <class T>
  void outer(const FieldName& name, const std::vector<T>& xs, uint64_t n) {
    if (xs.size() != n)
      throw InputError(fmt::format("proof encoding: {} has {} entries, {} expected", name.str(), xs.size(), n));
  }
  void require(bool ok, const FieldName& name, const std::string& problem) {
    if (!ok) throw InputError(fmt::format("proof encoding: {}: {}", name.str(), problem));
  }

 private:
  ByteWriter w_;
};

// The size of a part's bytes, as ProofEncoder would write them (so that the encoder's buffer is
// allocated once).
class ProofSizer {
 public:
  uint64_t bytes() const { return bytes_; }
  template <class T>
  void value(const FieldName&, const T&) {
    bytes_ += kProofElementBytes<T>;
  }
  template <class F>
  uint64_t count(const FieldName&, F actual, std::optional<uint64_t>, uint64_t) {
    bytes_ += 4;  // a usize
    return actual();
  }
  template <class T>
  void list(const FieldName&, const FieldName&, const std::vector<T>& xs, uint64_t) {
    bytes_ += xs.size() * kProofElementBytes<T>;
  }
  template <class T>
  void table(const FieldName& whole, const FieldName& each, const std::vector<std::vector<T>>& xs, uint64_t,
             uint64_t cols) {
    for (const auto& row : xs) list(whole, each, row, cols);
  }
  template <class T>
  void outer(const FieldName&, const std::vector<T>&, uint64_t) {}
  void require(bool, const FieldName&, const std::string&) {}

 private:
  uint64_t bytes_ = 0;
};

// Reads a part from bytes. Every count is checked against the bytes left before anything is
// allocated for it (and against the shape when one is given); DecodeError naming the field.
class ProofDecoder {
 public:
  explicit ProofDecoder(ByteReader& r) : r_(r) {}
  template <class T>
  void value(const FieldName& name, T& x) {
    x = detail::get_element<T>(r_, name);
  }
  template <class F>
  uint64_t count(const FieldName& name, F, std::optional<uint64_t> expected, uint64_t min_item_bytes) {
    return expected ? r_.expect(name, *expected, min_item_bytes) : r_.count(name, min_item_bytes);
  }
  template <class T>
  void list(const FieldName& whole, const FieldName& each, std::vector<T>& xs, uint64_t n) {
    r_.require(n, kProofElementBytes<T>, whole);
    xs.clear();
    xs.reserve(n);
    for (uint64_t i = 0; i < n; ++i) xs.push_back(detail::get_element<T>(r_, each.append(i)));
  }
  template <class T>
  void table(const FieldName& whole, const FieldName& each, std::vector<std::vector<T>>& xs, uint64_t rows,
             uint64_t cols) {
    uint64_t row_bytes = 0;
    if (__builtin_mul_overflow(cols, kProofElementBytes<T>, &row_bytes))
      r_.fail(whole, fmt::format("rows of {} elements: more than 2^64 bytes", cols), DecodeReject::Truncated);
    // Every row of our encodings has a byte at least; a zero-width table must not allocate rows for free.
    r_.require(rows, std::max<uint64_t>(row_bytes, 1), whole);
    xs.clear();
    xs.reserve(rows);
    for (uint64_t q = 0; q < rows; ++q) {
      std::vector<T> row;
      row.reserve(cols);
      const FieldName name = each.append(q);
      for (uint64_t i = 0; i < cols; ++i) row.push_back(detail::get_element<T>(r_, name));
      xs.push_back(std::move(row));
    }
  }
  template <class T>
  void outer(const FieldName& name, std::vector<T>& xs, uint64_t n) {
    // n comes from a count() that required its items' bytes (every field list does so): n empty
    // sub-parts cost no more than those bytes. The sub-parts' own reads check the bytes.
    (void)name;
    xs.clear();
    xs.resize(n);
  }
  void require(bool ok, const FieldName& name, const std::string& problem) {
    if (!ok) r_.fail(name, problem);
  }

 private:
  ByteReader& r_;
};

// The first way a part's sizes differ from its shape ("" when none): what a verifier checks
// before it reads any value. Stops at the first problem.
class ProofShapeCheck {
 public:
  const std::string& problem() const { return problem_; }
  bool ok() const { return problem_.empty(); }

  template <class T>
  void value(const FieldName&, const T&) {}
  template <class F>
  uint64_t count(const FieldName& name, F actual, std::optional<uint64_t> expected, uint64_t) {
    if (!ok()) return expected.value_or(0);
    const uint64_t n = actual();
    if (expected && n != *expected) fail(name, fmt::format("{}, expected {}", n, *expected));
    return expected.value_or(n);
  }
  template <class T>
  void list(const FieldName& whole, const FieldName&, const std::vector<T>& xs, uint64_t n) {
    if (ok() && xs.size() != n) fail(whole, fmt::format("{} entries, expected {}", xs.size(), n));
  }
  template <class T>
  void table(const FieldName& whole, const FieldName& each, const std::vector<std::vector<T>>& xs, uint64_t rows,
             uint64_t cols) {
    if (!ok()) return;
    if (xs.size() != rows) return fail(whole, fmt::format("{} rows, expected {}", xs.size(), rows));
    for (uint64_t q = 0; q < rows && ok(); ++q)
      if (xs[q].size() != cols) fail(each.append(q), fmt::format("{} entries, expected {}", xs[q].size(), cols));
  }
  // Sub-parts past the end of a short vector are not walked: the caller's loop runs to n, so a
  // size problem stops the check here and the loop's later operations see !ok().
  template <class T>
  void outer(const FieldName& name, const std::vector<T>& xs, uint64_t n) {
    if (ok() && xs.size() != n) fail(name, fmt::format("{} entries, expected {}", xs.size(), n));
  }
  void require(bool cond, const FieldName& name, const std::string& problem) {
    if (ok() && !cond) fail(name, problem);
  }

 private:
  void fail(const FieldName& name, const std::string& what) { problem_ = fmt::format("{}: {}", name.str(), what); }
  std::string problem_;
};

}  // namespace vkstark
