#include "stages/encoding/layout.hpp"

#include <fmt/format.h>

namespace vkstark {

uint64_t ProofLayout::reserve(std::string name, uint64_t align_words, uint64_t words) {
  if (buffer_.valid())
    throw GraphError(fmt::format("proof region '{}' added after the proof buffer was created", name));
  uint64_t offset = (total_ + align_words - 1) / align_words * align_words;
  entries_.push_back({std::move(name), offset, words});
  total_ = offset + words;
  return offset;
}

Buffer<uint32_t> ProofLayout::create_buffer(Graph& g, std::string name) {
  if (buffer_.valid()) throw GraphError("the proof buffer exists already");
  // Whole multiples of the largest element (a Digest, 8 words) so that every typed view of the
  // buffer divides it.
  buffer_ = g.output<uint32_t>(std::move(name), std::max<uint64_t>((total_ + 7) / 8 * 8, 8));
  return buffer_;
}

}  // namespace vkstark
