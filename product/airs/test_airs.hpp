// The small test AIRs of protocol.md 15.2 and their fixtures (the reference's
// crates/stark-backend/src/test_utils, stark-backend v2.0.1), with the reference's constraint and
// interaction expressions in its order, so keygen, the DAG and the proofs can be compared:
//
//   DummyInteractionAir     pure interactions: (count, fields) sent or received on one bus
//   FibonacciSelectorAir    Fibonacci steps switched by a preprocessed selector column
//   PreprocessedCachedAir   a preprocessed column, k cached parts and the common main, rotations on all
//   SelfInteractionAir      8 interactions of a row and the next row on one bus, no constraints
//
// A fixture is a list of AIRs with their traces (AirWithTraces), as the reference's
// TestFixture::airs() and generate_proving_ctx() give them.
//
// The AIRs are immutable values; thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "stages/air/air.hpp"
#include "stages/air/input.hpp"

namespace vkstark {

// Columns (count, fields...): sends `fields` with multiplicity count, or receives them (count
// -1 * count), on one bus, with count_weight 0 as the reference's DummyInteractionAir. With
// `cached`, the fields are a cached main part of width field_width and the common main holds count.
class DummyInteractionAir final : public Air {
 public:
  DummyInteractionAir(uint32_t field_width, bool is_send, uint16_t bus, bool cached = false);
  std::string name() const override;
  AirShape shape() const override;
  void eval(AirBuilder& b) const override;
  uint32_t field_width() const { return field_width_; }
  bool cached() const { return cached_; }

 private:
  uint32_t field_width_;
  bool is_send_;
  uint16_t bus_;
  bool cached_;
};

// Rows (count[i], fields[i]) padded with zero rows to the next power of two.
AirWithTraces dummy_interaction_trace(std::shared_ptr<const DummyInteractionAir> air, std::span<const uint32_t> count,
                                      std::span<const std::vector<uint32_t>> fields);

// Columns (left, right), preprocessed `sel`, public values [a, b, x]: row i+1 is a Fibonacci step
// of row i where sel[i] = 1 and a copy where sel[i] = 0. With `lookups`, it also sends
// left + right with count -sel on bus 0 (the reference's add_key_with_lookups).
class FibonacciSelectorAir final : public Air {
 public:
  explicit FibonacciSelectorAir(std::vector<bool> sels, bool lookups = false);  // sels: a power of two
  std::string name() const override { return "fibonacci_selector"; }
  AirShape shape() const override { return {.preprocessed_width = 1, .common_width = 2, .num_public_values = 3}; }
  void eval(AirBuilder& b) const override;
  std::optional<TraceMatrix> preprocessed_trace() const override;
  const std::vector<bool>& sels() const { return sels_; }

 private:
  std::vector<bool> sels_;
  bool lookups_;
};

AirWithTraces fibonacci_selector_trace(std::shared_ptr<const FibonacciSelectorAir> air, Fp a, Fp b);

// Preprocessed sel (boolean), common main c (c = 0 on the first row, +1 per row) and k cached
// parts of width 1, each the previous part (the common main first) plus sel, on the local and the
// next row.
class PreprocessedCachedAir final : public Air {
 public:
  PreprocessedCachedAir(std::vector<bool> sels, uint32_t num_cached_parts);  // sels: a power of two
  std::string name() const override { return "preprocessed_cached"; }
  AirShape shape() const override;
  void eval(AirBuilder& b) const override;
  std::optional<TraceMatrix> preprocessed_trace() const override;
  const std::vector<bool>& sels() const { return sels_; }
  uint32_t num_cached_parts() const { return num_cached_parts_; }

 private:
  std::vector<bool> sels_;
  uint32_t num_cached_parts_;
};

// common[i] = i, cached_j[i] = i + (j + 1) sel[i].
AirWithTraces preprocessed_cached_trace(std::shared_ptr<const PreprocessedCachedAir> air);

// Width w, no constraints; 8 interactions on one bus with messages alternately the local and the
// next row (the last pair reversed) and counts 1, -1, S, -S, local[0], -next[0], S, -S, where S is
// the sum of the local row for all four (the reference computes its "next sum" over the local row).
class SelfInteractionAir final : public Air {
 public:
  SelfInteractionAir(uint32_t width, uint16_t bus);
  std::string name() const override;
  AirShape shape() const override { return {.common_width = width_}; }
  void eval(AirBuilder& b) const override;
  uint32_t width() const { return width_; }

 private:
  uint32_t width_;
  uint16_t bus_;
};

// Row r is ((r + i) mod w)_i: every row a permutation of 0..w-1, so the interactions balance.
AirWithTraces self_interaction_trace(std::shared_ptr<const SelfInteractionAir> air, uint32_t log_height);

// The reference's fixtures.
std::vector<AirWithTraces> fib_fixture(Fp a, Fp b, uint32_t height);  // FibonacciAir
std::vector<AirWithTraces> interactions_fixture_11();                 // sender 4 rows, receiver 8, bus 0
std::vector<AirWithTraces> cached_fixture_11();                       // the same with the fields cached
std::vector<AirWithTraces> preprocessed_fib_fixture(Fp a, Fp b, std::vector<bool> sels);
std::vector<AirWithTraces> preprocessed_and_cached_fixture(std::vector<bool> sels, uint32_t num_cached_parts);
std::vector<AirWithTraces> self_interaction_fixture(std::span<const uint32_t> widths, uint32_t log_height,
                                                    uint16_t bus);
// MixtureFixture::standard: Fib(8, 8, 2^log_height), InteractionsFixture11, CachedFixture11,
// PreprocessedFib(7, 3, sels alternating 1, 0, ...), SelfInteraction(widths 4, 7, 8, 8, 10, 100, bus 5),
// in this order (12 AIRs).
std::vector<AirWithTraces> mixture_fixture_standard(uint32_t log_height);
// The Keccak-f AIR (product/airs/keccak.hpp) over `permutations` random inputs (seeded): the keccakf
// example's workload at 1024 permutations (2^15 rows).
// `storage`: memory for the trace (see keccak_trace).
std::vector<AirWithTraces> keccak_fixture(size_t permutations, uint64_t seed, TraceMatrix&& storage = {});

}  // namespace vkstark
