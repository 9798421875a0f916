// The proof layout (architecture.md, "The prover is one static graph"): every part of a proof has
// an offset in one device buffer, computed while the graph is built; kernels write their parts in
// place and the host downloads the buffer once at the end and decodes it. Offsets are in 32-bit
// words; each region is aligned to its element size so typed views of it are exact.
// Thread-compatible.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "runtime/graph.hpp"

namespace vkstark {

template <DeviceElement T>
struct ProofRegion {
  uint64_t word_offset = 0;
  uint64_t count = 0;  // elements of T
};

class ProofLayout {
 public:
  struct Entry {
    std::string name;
    uint64_t word_offset;
    uint64_t words;
  };

  // Reserves `count` elements of T. Call before buffer(); GraphError after.
  template <DeviceElement T>
  [[nodiscard]] ProofRegion<T> add(std::string name, uint64_t count) {
    constexpr uint64_t w = sizeof(T) / 4;
    uint64_t offset = reserve(std::move(name), w, count * w);
    return {offset, count};
  }

  // Creates the Output buffer holding the whole proof (once).
  Buffer<uint32_t> create_buffer(Graph& g, std::string name = "proof");
  Buffer<uint32_t> buffer() const { return buffer_; }

  // The device view of a region (after create_buffer).
  template <DeviceElement T>
  [[nodiscard]] View<T> view(const ProofRegion<T>& r) const {
    return buffer_.slice(r.word_offset, r.count * (sizeof(T) / 4)).template bitcast<T>();
  }
  // The host copy of a region, from the downloaded words.
  template <DeviceElement T>
  [[nodiscard]] std::span<const T> read(std::span<const uint32_t> words, const ProofRegion<T>& r) const {
    return {reinterpret_cast<const T*>(words.data() + r.word_offset), r.count};
  }

  uint64_t total_words() const { return total_; }
  const std::vector<Entry>& entries() const { return entries_; }

 private:
  uint64_t reserve(std::string name, uint64_t align_words, uint64_t words);
  std::vector<Entry> entries_;
  uint64_t total_ = 0;
  Buffer<uint32_t> buffer_;
};

}  // namespace vkstark
