// A proof part's regions in the device proof buffer (stages/encoding/layout.hpp), derived from its
// field list (stages/encoding/fields.hpp): reserving them, finding the device view of a field, and
// reading a downloaded buffer back into the part. Nothing here names a field; the field list does.
//
//   auto regions = PartRegions<WhirProof>::reserve(layout, [s = shape](auto& v, WhirProof& p) {
//     whir_fields(v, p, &s);
//   });
//   View<Fp4> evals = regions.view(layout, regions.proto().sumcheck_polys);   // after create_buffer
//   WhirProof proof = regions.decode(layout, downloaded_words);
//
// A field is named by the member of proto(), a part sized by the shape (its outer vectors have
// their lengths; lists and tables are empty there). view() of an outer vector of lists spans its
// lists' regions, which follow each other. Value type (copies share the prototype);
// thread-compatible.
#pragma once

#include <cstring>
#include <functional>
#include <memory>
#include <span>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "runtime/error.hpp"
#include "stages/encoding/fields.hpp"
#include "stages/encoding/layout.hpp"

namespace vkstark {

namespace detail {

template <class T>
struct FieldDeviceOf {
  using type = typename ProofElement<T>::Device;
};
template <class T>
struct FieldDeviceOf<std::vector<T>> {
  using type = typename FieldDeviceOf<T>::type;
};

struct RegionEntry {
  const void* field = nullptr;
  uint64_t word_offset = 0;
  uint64_t words = 0;
};

// Reserves a region for every value, list and table, in field order; sizes the outer vectors.
class RegionReserver {
 public:
  RegionReserver(ProofLayout& layout, std::vector<RegionEntry>& out) : layout_(layout), out_(out) {}
  template <class T>
  void value(const FieldName& name, T& x) {
    add<T>(name, &x, 1);
  }
  template <class F>
  uint64_t count(const FieldName& name, F, std::optional<uint64_t> expected, uint64_t) {
    if (!expected) throw GraphError(fmt::format("proof layout: {} needs the part's shape", name.str()));
    return *expected;
  }
  template <class T>
  void list(const FieldName& whole, const FieldName&, std::vector<T>& xs, uint64_t n) {
    add<T>(whole, &xs, n);
  }
  template <class T>
  void table(const FieldName& whole, const FieldName&, std::vector<std::vector<T>>& xs, uint64_t rows, uint64_t cols) {
    add<T>(whole, &xs, rows * cols);
  }
  template <class T>
  void outer(const FieldName&, std::vector<T>& xs, uint64_t n) {
    xs.clear();
    xs.resize(n);
  }
  void require(bool ok, const FieldName& name, const std::string& problem) {
    if (!ok) throw InputError(fmt::format("proof layout: {}: {}", name.str(), problem));
  }

 private:
  template <class T>
  void add(const FieldName& name, const void* field, uint64_t n) {
    using P = ProofElement<T>;
    const ProofRegion<typename P::Device> r = layout_.add<typename P::Device>(name.str(), n * P::n);
    out_.push_back({field, r.word_offset, r.count * (sizeof(typename P::Device) / 4)});
  }
  ProofLayout& layout_;
  std::vector<RegionEntry>& out_;
};

// Fills a part from downloaded words, region by region in the order RegionReserver made them.
class RegionReader {
 public:
  RegionReader(std::span<const uint32_t> words, const std::vector<RegionEntry>& entries)
      : words_(words), entries_(entries) {}
  template <class T>
  void value(const FieldName&, T& x) {
    copy(&x, 1);
  }
  template <class F>
  uint64_t count(const FieldName&, F, std::optional<uint64_t> expected, uint64_t) {
    return expected.value_or(0);
  }
  template <class T>
  void list(const FieldName&, const FieldName&, std::vector<T>& xs, uint64_t n) {
    xs.resize(n);
    copy(xs.data(), n);
  }
  template <class T>
  void table(const FieldName&, const FieldName&, std::vector<std::vector<T>>& xs, uint64_t rows, uint64_t cols) {
    const RegionEntry& e = next();
    xs.assign(rows, std::vector<T>(cols));
    for (uint64_t q = 0; q < rows; ++q)
      std::memcpy(static_cast<void*>(xs[q].data()), words_.data() + e.word_offset + q * cols * (sizeof(T) / 4),
                  cols * sizeof(T));
  }
  template <class T>
  void outer(const FieldName&, std::vector<T>& xs, uint64_t n) {
    xs.clear();
    xs.resize(n);
  }
  void require(bool, const FieldName&, const std::string&) {}

 private:
  const RegionEntry& next() {
    if (i_ >= entries_.size()) throw GraphError("proof regions: the field list walked more fields than it reserved");
    return entries_[i_++];
  }
  template <class T>
  void copy(T* dst, uint64_t n) {
    const RegionEntry& e = next();
    static_assert(std::is_trivially_copyable_v<T> && sizeof(T) % 4 == 0);
    if (e.words != n * (sizeof(T) / 4)) throw GraphError("proof regions: a region does not match its field");
    if (n) std::memcpy(static_cast<void*>(dst), words_.data() + e.word_offset, n * sizeof(T));
  }
  std::span<const uint32_t> words_;
  const std::vector<RegionEntry>& entries_;
  size_t i_ = 0;
};

}  // namespace detail

template <class Part>
class PartRegions {
 public:
  PartRegions() = default;

  // Reserves the part's regions in `layout` (before its create_buffer). `walk(v, part)` calls the
  // part's field list with its shape.
  template <class Walk>
  static PartRegions reserve(ProofLayout& layout, Walk walk) {
    PartRegions r;
    r.proto_ = std::make_shared<Part>();
    detail::RegionReserver v(layout, r.entries_);
    walk(v, *r.proto_);
    for (size_t i = 0; i < r.entries_.size(); ++i) r.index_[r.entries_[i].field] = i;
    r.read_ = [walk](detail::RegionReader& reader, Part& p) mutable { walk(reader, p); };
    return r;
  }

  const Part& proto() const { return *proto_; }

  // The device view of a field of proto() (a value, list or table; or an outer vector of them,
  // whose regions follow each other). GraphError for a field that is not the prototype's.
  template <class T>
  View<typename detail::FieldDeviceOf<T>::type> view(const ProofLayout& layout, const T& field) const {
    using D = typename detail::FieldDeviceOf<T>::type;
    std::vector<const detail::RegionEntry*> regions;
    collect(field, regions);
    if (regions.empty()) throw GraphError("proof regions: not a field of this part's prototype (or an empty one)");
    const uint64_t offset = regions[0]->word_offset;
    uint64_t words = 0;
    for (const detail::RegionEntry* e : regions) {
      if (e->word_offset != offset + words)
        throw GraphError("proof regions: the regions of these fields do not follow each other");
      words = e->word_offset + e->words - offset;
    }
    const ProofRegion<D> region{offset, words / (sizeof(D) / 4)};
    return layout.view(region);
  }

  // The part held by the downloaded proof words.
  Part decode(std::span<const uint32_t> words) const {
    Part p;
    detail::RegionReader reader(words, entries_);
    read_(reader, p);
    return p;
  }

 private:
  // The regions of a field, or of the fields an outer vector holds (at any depth), in order.
  template <class T>
  void collect(const T& field, std::vector<const detail::RegionEntry*>& out) const {
    if (auto it = index_.find(&field); it != index_.end()) {
      out.push_back(&entries_[it->second]);
      return;
    }
    if constexpr (requires {
                    field.size();
                    field.begin();
                  }) {
      if (field.empty()) throw GraphError("proof regions: not a field of this part's prototype (or an empty one)");
      for (const auto& x : field) collect(x, out);
    } else {
      throw GraphError("proof regions: not a field of this part's prototype");
    }
  }

  std::shared_ptr<Part> proto_;
  std::vector<detail::RegionEntry> entries_;
  std::unordered_map<const void*, size_t> index_;
  std::function<void(detail::RegionReader&, Part&)> read_;
};

}  // namespace vkstark
