// Known-answer values of protocol.md 16.2 (field, extension, Poseidon2, sponge, PoW), canonical
// integers. Used by the self-check, the unit tests and the device parity tests, so each value is
// written once. Immutable data; thread-safe.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace vkstark::kat {

// Perm([0, 1, ..., 15]).
inline constexpr std::array<uint32_t, 16> PERM_IOTA = {
    1906786279, 1737026427, 1959749225, 700325316,  1638050605, 1021608788, 1726691001, 1761127344,
    1552405120, 417318995,  36799261,   1215172152, 614923223,  1300746575, 957311597,  304856115};
// Perm([0] * 16).
inline constexpr std::array<uint32_t, 16> PERM_ZERO = {
    1168947398, 128782440, 747404447,  883925857, 360581875,  1704698758, 1878363991, 1054281681,
    682225194,  705839125, 1218819873, 41544645,  1095344608, 174996601,  1678438226, 11259290};
inline constexpr std::array<uint32_t, 8> HASH_SLICE_1 = {1380709490, 1568141733, 1163275192, 1977277973,
                                                         128327085,  765730249,  966740217,  365525466};
inline constexpr std::array<uint32_t, 8> HASH_SLICE_1_TO_8 = {766127264,  1750513607, 1038115664, 1351438670,
                                                              1338302971, 1958881547, 1778633879, 1495371656};
inline constexpr std::array<uint32_t, 8> HASH_SLICE_1_TO_9 = {610210315, 1049152689, 1983597912, 1642023152,
                                                              478432732, 1380464985, 1787471669, 1639353530};
inline constexpr std::array<uint32_t, 8> HASH_SLICE_0_TO_15 = {568621648, 260560799, 1787535874, 764831861,
                                                               341748543, 546488453, 1028837269, 1917944385};
// Fresh sponge, 4 samples (= one sample_ext).
inline constexpr std::array<uint32_t, 4> SPONGE_FRESH_4 = {1054281681, 1878363991, 1704698758, 360581875};
// Observe 1, 2, 3 then 10 samples.
inline constexpr std::array<uint32_t, 10> SPONGE_123_10 = {280581499, 191588556,  87974953,   1359599118, 1963590313,
                                                           507627198, 1171456729, 1853296131, 1658780640, 818898399};
// Observe 0..7 (8 values) then 2 samples.
inline constexpr std::array<uint32_t, 2> SPONGE_0_TO_7_2 = {1170329282, 502434224};
// Fresh sponge: smallest 8-bit PoW witness, and the next sample afterwards.
inline constexpr uint32_t POW8_WITNESS = 164;
inline constexpr uint32_t POW8_NEXT_SAMPLE = 1037025133;
// EF: (1,2,3,4) * (5,6,7,8) and (1,2,3,4)^-1.
inline constexpr std::array<uint32_t, 4> EF_PRODUCT = {676, 588, 386, 60};
inline constexpr std::array<uint32_t, 4> EF_INVERSE = {1587469345, 920666518, 1160282443, 647153706};

// One named check: what the implementation computed next to what the spec says.
struct Check {
  std::string name;
  std::vector<uint32_t> expected;
  std::vector<uint32_t> computed;
  bool ok() const { return expected == computed; }
};

// Every value above computed with the host field and hash code (kernels/field, kernels/hash).
std::vector<Check> host_checks();

}  // namespace vkstark::kat
