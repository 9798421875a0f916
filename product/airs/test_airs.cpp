#include "product/airs/test_airs.hpp"

#include <algorithm>
#include <bit>
#include <random>
#include <utility>

#include <fmt/format.h>

#include "product/airs/fibonacci.hpp"
#include "product/airs/keccak.hpp"
#include "product/airs/shipped.hpp"
#include "runtime/error.hpp"

namespace vkstark {

namespace {

void check_height(const std::string& air, const char* what, size_t height) {
  if (height == 0 || !std::has_single_bit(height) || height > (size_t(1) << 31))
    throw InputError(fmt::format("AIR {}: {} has {} rows, not a power of two up to 2^31", air, what, height));
}

TraceMatrix column(std::span<const Fp> values) {
  TraceMatrix t(1, static_cast<uint32_t>(values.size()));
  std::copy(values.begin(), values.end(), t.values.begin());
  return t;
}

TraceMatrix selector_column(const std::vector<bool>& sels) {
  std::vector<Fp> v(sels.size());
  for (size_t i = 0; i < sels.size(); ++i) v[i] = sels[i] ? Fp::one() : Fp::zero();
  return column(v);
}

}  // namespace

// ---------------------------------------------------------------------------------------------------
// DummyInteractionAir

DummyInteractionAir::DummyInteractionAir(uint32_t field_width, bool is_send, uint16_t bus, bool cached)
    : field_width_(field_width), is_send_(is_send), bus_(bus), cached_(cached) {
  if (field_width == 0) throw InputError(fmt::format("AIR {}: field width 0 (a message needs a field)", name()));
}

std::string DummyInteractionAir::name() const {
  return fmt::format("dummy_interaction_{}{}", is_send_ ? "send" : "receive", cached_ ? "_cached" : "");
}

AirShape DummyInteractionAir::shape() const {
  if (cached_) return {.cached_widths = {field_width_}, .common_width = 1};
  return {.common_width = 1 + field_width_};
}

void DummyInteractionAir::eval(AirBuilder& b) const {
  const Window common = b.main();
  const Expr count = common.local(0);
  std::vector<Expr> fields;
  for (uint32_t i = 0; i < field_width_; ++i) fields.push_back(cached_ ? b.cached(0).local(i) : common.local(1 + i));
  // count_weight 0 and a receive count of the product -1 * count (not a negation node): the
  // reference's expressions, which the DAG keeps.
  b.push_interaction(bus_, std::move(fields), is_send_ ? count : Expr(-1) * count, 0);
}

AirWithTraces dummy_interaction_trace(std::shared_ptr<const DummyInteractionAir> air, std::span<const uint32_t> count,
                                      std::span<const std::vector<uint32_t>> fields) {
  const std::string name = air->name();
  const uint32_t w = air->field_width();
  if (count.size() != fields.size())
    throw InputError(fmt::format("AIR {}: {} counts but {} field rows", name, count.size(), fields.size()));
  if (count.empty()) throw InputError(fmt::format("AIR {}: no rows", name));
  for (size_t r = 0; r < fields.size(); ++r)
    if (fields[r].size() != w)
      throw InputError(
          fmt::format("AIR {}: field row {} has {} values, the AIR has field width {}", name, r, fields[r].size(), w));
  const size_t height = std::bit_ceil(count.size());  // zero rows pad: count 0 adds nothing to the bus
  check_height(name, "the trace", height);
  const uint32_t h = static_cast<uint32_t>(height);
  TraceMatrix field_part(w, h), count_part(1, h);
  for (uint32_t r = 0; r < count.size(); ++r) {
    count_part.at(r, 0) = Fp::from_canonical(count[r]);
    for (uint32_t i = 0; i < w; ++i) field_part.at(r, i) = Fp::from_canonical(fields[r][i]);
  }
  AirWithTraces out;
  out.air = air;
  if (air->cached()) {
    out.cached.push_back(std::move(field_part));
    out.common = std::move(count_part);
  } else {
    out.common = TraceMatrix(1 + w, h);
    for (uint32_t r = 0; r < h; ++r) {
      out.common.at(r, 0) = count_part.at(r, 0);
      for (uint32_t i = 0; i < w; ++i) out.common.at(r, 1 + i) = field_part.at(r, i);
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------
// FibonacciSelectorAir

FibonacciSelectorAir::FibonacciSelectorAir(std::vector<bool> sels, bool lookups)
    : sels_(std::move(sels)), lookups_(lookups) {
  check_height(name(), "the preprocessed selector column", sels_.size());
}

std::optional<TraceMatrix> FibonacciSelectorAir::preprocessed_trace() const { return selector_column(sels_); }

void FibonacciSelectorAir::eval(AirBuilder& b) const {
  const Window m = b.main();
  const Expr sel = b.preprocessed().local(0);
  const Expr left = m.local(0), right = m.local(1);
  b.when_first_row().assert_eq(left, b.public_value(0));
  b.when_first_row().assert_eq(right, b.public_value(1));
  // next = sel ? (right, left + right) : (left, right); when_ne(sel, 1) filters by sel - 1.
  b.when_transition().when(sel).assert_eq(right, m.next(0));
  b.when_transition().when(sel - Expr(1)).assert_eq(left, m.next(0));
  b.when_transition().when(sel).assert_eq(left + right, m.next(1));
  b.when_transition().when(sel - Expr(1)).assert_eq(right, m.next(1));
  b.when_last_row().assert_eq(right, b.public_value(2));
  if (lookups_) b.push_interaction(0, {left + right}, -sel, 0);
}

AirWithTraces fibonacci_selector_trace(std::shared_ptr<const FibonacciSelectorAir> air, Fp a, Fp b) {
  const std::vector<bool>& sels = air->sels();
  const uint32_t h = static_cast<uint32_t>(sels.size());
  TraceMatrix t(2, h);
  t.at(0, 0) = a;
  t.at(0, 1) = b;
  for (uint32_t r = 1; r < h; ++r) {
    const Fp l = t.at(r - 1, 0), rt = t.at(r - 1, 1);
    t.at(r, 0) = sels[r - 1] ? rt : l;
    t.at(r, 1) = sels[r - 1] ? l + rt : rt;
  }
  std::vector<Fp> pvs{a, b, t.at(h - 1, 1)};
  return {air, {}, std::move(t), std::move(pvs)};
}

// ---------------------------------------------------------------------------------------------------
// PreprocessedCachedAir

PreprocessedCachedAir::PreprocessedCachedAir(std::vector<bool> sels, uint32_t num_cached_parts)
    : sels_(std::move(sels)), num_cached_parts_(num_cached_parts) {
  if (num_cached_parts == 0) throw InputError(fmt::format("AIR {}: needs at least one cached part", name()));
  check_height(name(), "the preprocessed selector column", sels_.size());
}

AirShape PreprocessedCachedAir::shape() const {
  return {.preprocessed_width = 1, .cached_widths = std::vector<uint32_t>(num_cached_parts_, 1), .common_width = 1};
}

std::optional<TraceMatrix> PreprocessedCachedAir::preprocessed_trace() const { return selector_column(sels_); }

void PreprocessedCachedAir::eval(AirBuilder& b) const {
  const Window pre = b.preprocessed(), common = b.main();
  const Expr sel = pre.local(0), sel_next = pre.next(0);
  b.assert_zero(sel * (sel - Expr(1)));
  b.when_first_row().assert_zero(common.local(0));
  b.when_transition().assert_one(common.next(0) - common.local(0));
  Expr prev_local = common.local(0), prev_next = common.next(0);
  for (uint32_t j = 0; j < num_cached_parts_; ++j) {
    const Window part = b.cached(j);
    b.assert_eq(prev_local + sel, part.local(0));
    b.when_transition().assert_eq(prev_next + sel_next, part.next(0));
    prev_local = part.local(0);
    prev_next = part.next(0);
  }
}

AirWithTraces preprocessed_cached_trace(std::shared_ptr<const PreprocessedCachedAir> air) {
  const std::vector<bool>& sels = air->sels();
  const uint32_t h = static_cast<uint32_t>(sels.size());
  AirWithTraces out;
  out.air = air;
  out.common = TraceMatrix(1, h);
  for (uint32_t r = 0; r < h; ++r) out.common.at(r, 0) = Fp::from_canonical(r);
  for (uint32_t j = 0; j < air->num_cached_parts(); ++j) {
    TraceMatrix part(1, h);
    for (uint32_t r = 0; r < h; ++r)
      part.at(r, 0) = Fp::from_canonical(r) + (sels[r] ? Fp::from_canonical(j + 1) : Fp::zero());
    out.cached.push_back(std::move(part));
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------
// SelfInteractionAir

SelfInteractionAir::SelfInteractionAir(uint32_t width, uint16_t bus) : width_(width), bus_(bus) {
  if (width == 0) throw InputError("AIR self_interaction: width 0");
}

std::string SelfInteractionAir::name() const { return fmt::format("self_interaction_w{}", width_); }

void SelfInteractionAir::eval(AirBuilder& b) const {
  const Window m = b.main();
  std::vector<Expr> local = m.local_row(), next = m.next_row();
  Expr sum;  // 0 + local[0] + ... (left fold from 0, as the reference)
  for (const Expr& v : local) sum = sum + v;
  // The reference's "next sum" folds the local row too, so both sums are this one tree.
  b.push_interaction(bus_, local, Expr(1), 1);
  b.push_interaction(bus_, next, Expr(-1), 1);
  b.push_interaction(bus_, local, sum, 1);
  b.push_interaction(bus_, next, -sum, 1);
  b.push_interaction(bus_, local, local[0], 1);
  b.push_interaction(bus_, next, -next[0], 1);
  std::reverse(local.begin(), local.end());
  std::reverse(next.begin(), next.end());
  b.push_interaction(bus_, local, sum, 1);
  b.push_interaction(bus_, next, -sum, 1);
}

AirWithTraces self_interaction_trace(std::shared_ptr<const SelfInteractionAir> air, uint32_t log_height) {
  if (log_height > 31) throw InputError(fmt::format("AIR {}: log height {} is past 31", air->name(), log_height));
  const uint32_t w = air->width(), h = uint32_t(1) << log_height;
  AirWithTraces out;
  out.air = air;
  out.common = TraceMatrix(w, h);
  for (uint32_t r = 0; r < h; ++r)
    for (uint32_t i = 0; i < w; ++i) out.common.at(r, i) = Fp::from_canonical(uint32_t((uint64_t(r) + i) % w));
  return out;
}

// ---------------------------------------------------------------------------------------------------
// Fixtures

std::vector<AirWithTraces> fib_fixture(Fp a, Fp b, uint32_t height) {
  FibonacciTrace t = fibonacci_trace(a, b, height);
  return {{shipped_airs("fibonacci")[0], {}, std::move(t.main), std::move(t.public_values)}};
}

namespace {

// The (count, field) rows of the reference's InteractionsFixture11 and CachedFixture11: a sender of
// 4 rows and a receiver of 8, balanced on bus 0.
std::vector<AirWithTraces> fixture_11(bool cached) {
  const std::vector<uint32_t> send_count{0, 3, 7, 546}, recv_count{1, 3, 4, 2, 0, 545, 1, 0};
  const std::vector<std::vector<uint32_t>> send_fields{{1}, {5}, {4}, {889}},
      recv_fields{{5}, {4}, {4}, {5}, {123}, {889}, {889}, {456}};
  return {dummy_interaction_trace(std::make_shared<DummyInteractionAir>(1, true, 0, cached), send_count, send_fields),
          dummy_interaction_trace(std::make_shared<DummyInteractionAir>(1, false, 0, cached), recv_count, recv_fields)};
}

}  // namespace

std::vector<AirWithTraces> interactions_fixture_11() { return fixture_11(false); }
std::vector<AirWithTraces> cached_fixture_11() { return fixture_11(true); }

std::vector<AirWithTraces> preprocessed_fib_fixture(Fp a, Fp b, std::vector<bool> sels) {
  return {fibonacci_selector_trace(std::make_shared<FibonacciSelectorAir>(std::move(sels)), a, b)};
}

std::vector<AirWithTraces> preprocessed_and_cached_fixture(std::vector<bool> sels, uint32_t num_cached_parts) {
  return {preprocessed_cached_trace(std::make_shared<PreprocessedCachedAir>(std::move(sels), num_cached_parts))};
}

std::vector<AirWithTraces> self_interaction_fixture(std::span<const uint32_t> widths, uint32_t log_height,
                                                    uint16_t bus) {
  std::vector<AirWithTraces> out;
  for (uint32_t w : widths)
    out.push_back(self_interaction_trace(std::make_shared<SelfInteractionAir>(w, bus), log_height));
  return out;
}

std::vector<AirWithTraces> mixture_fixture_standard(uint32_t log_height) {
  if (log_height > 31) throw InputError(fmt::format("mixture fixture: log height {} is past 31", log_height));
  const uint32_t height = uint32_t(1) << log_height;
  std::vector<bool> sels(height);
  for (uint32_t i = 0; i < height; ++i) sels[i] = i % 2 == 0;
  const std::vector<uint32_t> widths{4, 7, 8, 8, 10, 100};
  std::vector<AirWithTraces> out;
  auto append = [&](std::vector<AirWithTraces> airs) {
    for (AirWithTraces& a : airs) out.push_back(std::move(a));
  };
  append(fib_fixture(Fp::from_canonical(8), Fp::from_canonical(8), height));
  append(interactions_fixture_11());
  append(cached_fixture_11());
  append(preprocessed_fib_fixture(Fp::from_canonical(7), Fp::from_canonical(3), std::move(sels)));
  append(self_interaction_fixture(widths, log_height, 5));
  return out;
}

std::vector<AirWithTraces> keccak_fixture(size_t permutations, uint64_t seed, TraceMatrix&& storage) {
  std::mt19937_64 rng(seed);
  std::vector<std::array<uint64_t, 25>> inputs(permutations);
  for (auto& in : inputs)
    for (uint64_t& x : in) x = rng();
  // Not `return {AirWithTraces{...}}`: an initializer list copies its elements (the whole trace).
  std::vector<AirWithTraces> out;
  out.push_back(AirWithTraces{shipped_airs("keccakf")[0], {}, keccak_trace(inputs, std::move(storage)), {}});
  return out;
}

}  // namespace vkstark
