#include "kernels/hash/transcript.hpp"

#include <fmt/format.h>
#include <tbb/blocked_range.h>
#include <tbb/parallel_reduce.h>

#include <algorithm>
#include <limits>

#include "runtime/error.hpp"

namespace vkstark {

namespace {
void check_bits(uint32_t bits, const char* op) {
  if (bits > DuplexSponge::MAX_SAMPLE_BITS)
    throw InputError(fmt::format("{}({}): at most {} bits can be drawn from one BabyBear sample (2^bits must be < p)",
                                 op, bits, DuplexSponge::MAX_SAMPLE_BITS));
}
}  // namespace

uint32_t DuplexSponge::sample_bits(uint32_t bits) {
  check_bits(bits, "sample_bits");
  return sample().value() & ((1u << bits) - 1);
}

bool DuplexSponge::check_witness(uint32_t bits, Fp w) {
  check_bits(bits, "check_witness");
  if (bits == 0) return true;
  observe(w);
  return sample_bits(bits) == 0;
}

Fp DuplexSponge::grind(uint32_t bits) {
  check_bits(bits, "grind");
  if (bits == 0) return Fp::zero();
  // Whatever absorb_idx is, observe(w) + sample() costs exactly one permutation of the state with
  // lane absorb_idx overwritten by w, and the sample is lane 7 of the result.
  const uint32_t mask = (1u << bits) - 1;
  const uint32_t lane = absorb_idx_;
  auto ok = [&](uint32_t w) {
    Poseidon2State s = state_;
    s[lane] = Fp::from_canonical_unchecked(w);
    poseidon2_permute(s);
    return (s[SPONGE_RATE - 1].value() & mask) == 0;
  };
  // Scan [0, p) in blocks; inside a block search in parallel for the minimum.
  const uint64_t block = std::max<uint64_t>(uint64_t(1) << std::min<uint32_t>(bits + 2, 22), 4096);
  constexpr uint32_t NONE = std::numeric_limits<uint32_t>::max();
  for (uint64_t start = 0; start < Fp::P; start += block) {
    uint64_t end = std::min<uint64_t>(start + block, Fp::P);
    uint32_t found = tbb::parallel_reduce(
        tbb::blocked_range<uint64_t>(start, end, 1024), NONE,
        [&](const tbb::blocked_range<uint64_t>& r, uint32_t best) {
          for (uint64_t w = r.begin(); w < r.end() && w < best; ++w)
            if (ok(static_cast<uint32_t>(w))) return static_cast<uint32_t>(w);
          return best;
        },
        [](uint32_t a, uint32_t b) { return std::min(a, b); });
    if (found != NONE) {
      Fp w = Fp::from_canonical_unchecked(found);
      check_witness(bits, w);  // true by construction; advances this transcript
      return w;
    }
  }
  throw ArithmeticError(fmt::format("grind({}): no witness in [0, p)", bits));
}

DuplexSponge DuplexSponge::from_state(const Poseidon2State& state, uint32_t absorb_idx, uint32_t sample_idx) {
  if (absorb_idx >= SPONGE_RATE || sample_idx > SPONGE_RATE)
    throw InputError(
        fmt::format("transcript state: absorb_idx {} must be < 8 and sample_idx {} <= 8", absorb_idx, sample_idx));
  DuplexSponge t;
  t.state_ = state;
  t.absorb_idx_ = absorb_idx;
  t.sample_idx_ = sample_idx;
  return t;
}

}  // namespace vkstark
