#include "kernels/hash/transcript.hpp"

#include <fmt/format.h>
#include <tbb/blocked_range.h>
#include <tbb/parallel_reduce.h>

#include <algorithm>
#include <limits>

#include "kernels/hash/poseidon2_batch.hpp"
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
  // Candidates are tested 16 at a time with the SIMD batch permutation; returns the first valid
  // one in [from, to) or NONE.
  constexpr uint32_t NONE = std::numeric_limits<uint32_t>::max();
  auto first_valid = [&](uint64_t from, uint64_t to, uint32_t stop_at) {
    constexpr uint64_t kBatch = 16;
    Poseidon2State states[kBatch];
    for (uint64_t w0 = from; w0 < to && w0 < stop_at; w0 += kBatch) {
      const uint64_t n = std::min(kBatch, to - w0);
      for (uint64_t i = 0; i < n; ++i) {
        states[i] = state_;
        states[i][lane] = Fp::from_canonical_unchecked(static_cast<uint32_t>(w0 + i));
      }
      poseidon2_permute_batch(std::span<Poseidon2State>(states, n));
      for (uint64_t i = 0; i < n; ++i)
        if ((states[i][SPONGE_RATE - 1].value() & mask) == 0) return static_cast<uint32_t>(w0 + i);
    }
    return NONE;
  };
  // Scan [0, p) in blocks; inside a block search in parallel for the minimum.
  // Blocks of an eighth of the expected search length: little work past the first witness.
  const uint64_t block = std::max<uint64_t>(uint64_t(1) << (bits > 3 ? bits - 3 : 0), 4096);
  for (uint64_t start = 0; start < Fp::P; start += block) {
    uint64_t end = std::min<uint64_t>(start + block, Fp::P);
    uint32_t found = tbb::parallel_reduce(
        tbb::blocked_range<uint64_t>(start, end, 1024), NONE,
        [&](const tbb::blocked_range<uint64_t>& r, uint32_t best) {
          uint32_t w = first_valid(r.begin(), r.end(), best);
          return std::min(w, best);
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
