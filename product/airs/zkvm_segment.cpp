#include "product/airs/zkvm_segment.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <map>
#include <random>

#include "runtime/error.hpp"

namespace vkstark {

namespace {

// Widths the chips cycle through (capped at the shape's max_width).
constexpr uint32_t kWidths[] = {1, 2, 3, 4, 5, 8, 12, 16, 24, 32, 48, 64, 100, 150, 200, 300};

// A chip of width >= 4: common main [is_real, counter, v...] (or [is_real, counter] with the values
// in a cached part), an optional preprocessed column p. Constraints: is_real is boolean; counter
// starts at 0 and counts rows; v_i = v_(i-1) v_(i-2) + v_(i-3) on real rows (degree 3); with p, v_0
// = v_1 where p = 1. Interactions: the counter to the range bus, and per send its pair of values
// to a memory bus, each with count is_real.
// Chips of width 1..3 are tiny: [x] boolean, [x, y] with y = x^2, [a, b, c] with c = a b.
class ChipAir final : public Air {
 public:
  struct Send {
    uint16_t bus;
    uint32_t a, b;  // value columns
  };
  ChipAir(uint32_t index, uint32_t width, bool cached, bool preprocessed, uint32_t log_height, std::vector<Send> sends)
      : index_(index),
        width_(width),
        cached_(cached),
        preprocessed_(preprocessed),
        log_height_(log_height),
        sends_(std::move(sends)) {}
  std::string name() const override { return fmt::format("chip{}_w{}", index_, width_); }
  uint32_t values() const { return width_ < 4 ? width_ : width_ - 2; }
  AirShape shape() const override {
    AirShape s;
    if (preprocessed_) s.preprocessed_width = 1;
    if (width_ < 4) {
      s.common_width = width_;
    } else if (cached_) {
      s.cached_widths = {values()};
      s.common_width = 2;
    } else {
      s.common_width = width_;
    }
    return s;
  }
  std::optional<TraceMatrix> preprocessed_trace() const override {
    if (!preprocessed_) return std::nullopt;
    TraceMatrix m(1, 1u << log_height_);
    for (uint32_t r = 0; r < m.height; ++r) m.at(r, 0) = r % 3 == 0 ? Fp::one() : Fp::zero();
    return m;
  }
  void eval(AirBuilder& b) const override {
    const Window main = b.main();
    if (width_ < 4) {
      if (width_ == 1) b.assert_bool(main.local(0));
      if (width_ == 2) b.assert_eq(main.local(1), main.local(0) * main.local(0));
      if (width_ == 3) b.assert_eq(main.local(2), main.local(0) * main.local(1));
      return;
    }
    const Expr is_real = main.local(0), counter = main.local(1);
    auto v = [&](uint32_t i) { return cached_ ? b.cached(0).local(i) : main.local(2 + i); };
    b.assert_bool(is_real);
    b.when_first_row().assert_zero(counter);
    b.when_transition().assert_eq(main.next(1), counter + Expr(1));
    for (uint32_t i = 3; i < values(); ++i) b.when(is_real).assert_eq(v(i), v(i - 1) * v(i - 2) + v(i - 3));
    if (preprocessed_) b.when(b.preprocessed().local(0)).assert_eq(v(0), v(1));
    b.send(0, {counter}, is_real);
    for (const Send& s : sends_) b.send(s.bus, {v(s.a), v(s.b)}, is_real);
  }
  uint32_t width() const { return width_; }
  bool cached() const { return cached_; }
  bool preprocessed() const { return preprocessed_; }
  uint32_t log_height() const { return log_height_; }
  const std::vector<Send>& sends() const { return sends_; }

 private:
  uint32_t index_, width_;
  bool cached_, preprocessed_;
  uint32_t log_height_;
  std::vector<Send> sends_;
};

// The table of one memory bus: [mult, a, b]; receives (a, b) with multiplicity mult. No constraints.
class TableAir final : public Air {
 public:
  explicit TableAir(uint16_t bus) : bus_(bus) {}
  std::string name() const override { return fmt::format("table_bus{}", bus_); }
  AirShape shape() const override { return {.common_width = 3}; }
  void eval(AirBuilder& b) const override {
    const Window m = b.main();
    b.receive(bus_, {m.local(1), m.local(2)}, m.local(0));
  }

 private:
  uint16_t bus_;
};

// The range table: preprocessed [r] = 0 .. 2^log_height - 1, main [mult]; receives r on bus 0.
class RangeAir final : public Air {
 public:
  explicit RangeAir(uint32_t log_height) : log_height_(log_height) {}
  std::string name() const override { return "range_table"; }
  AirShape shape() const override { return {.preprocessed_width = 1, .common_width = 1}; }
  std::optional<TraceMatrix> preprocessed_trace() const override {
    TraceMatrix m(1, 1u << log_height_);
    for (uint32_t r = 0; r < m.height; ++r) m.at(r, 0) = Fp::from_canonical(r);
    return m;
  }
  void eval(AirBuilder& b) const override { b.receive(0, {b.preprocessed().local(0)}, b.main().local(0)); }

 private:
  uint32_t log_height_;
};

}  // namespace

uint64_t ZkvmSegment::cells() const {
  uint64_t n = 0;
  for (const auto& t : traces) {
    if (!t) continue;
    n += uint64_t(t->common.width) * t->common.height;
    for (const TraceMatrix& c : t->cached) n += uint64_t(c.width) * c.height;
  }
  return n;
}

uint64_t ZkvmSegment::present() const {
  return uint64_t(std::count_if(traces.begin(), traces.end(), [](const auto& t) { return t.has_value(); }));
}

ZkvmSegment zkvm_segment(const ZkvmSegmentShape& shape) {
  if (shape.chips == 0) throw InputError("zkvm segment: no chip");
  if (shape.max_log_height > 24) throw InputError("zkvm segment: heights above 2^24");
  if (shape.memory_buses == 0 || shape.memory_buses > 1000) throw InputError("zkvm segment: 1 .. 1000 memory buses");
  ZkvmSegment seg;
  std::vector<std::shared_ptr<const ChipAir>> chips;
  for (uint32_t i = 0; i < shape.chips; ++i) {
    const uint32_t width = std::min(kWidths[i % std::size(kWidths)], std::max(shape.max_width, 1u));
    const uint32_t log_h = (i * 7) % (shape.max_log_height + 1);  // spread, not sorted by index
    std::vector<ChipAir::Send> sends;
    if (width >= 8) {
      sends.push_back({uint16_t(1 + i % shape.memory_buses), 0, 1});
      if (width >= 24) sends.push_back({uint16_t(1 + (i + 3) % shape.memory_buses), 2, width - 3});
    }
    const bool cached = width >= 8 && i % 5 == 2, pre = width >= 4 && i % 7 == 3;
    chips.push_back(std::make_shared<ChipAir>(i, width, cached, pre, log_h, std::move(sends)));
    seg.airs.push_back(chips.back());
  }
  for (uint32_t b = 1; b <= shape.memory_buses; ++b) seg.airs.push_back(std::make_shared<TableAir>(uint16_t(b)));
  seg.airs.push_back(std::make_shared<RangeAir>(shape.max_log_height));

  std::mt19937_64 rng(shape.seed);
  auto random = [&] { return Fp::reduce(rng()); };
  std::vector<std::map<std::pair<uint32_t, uint32_t>, uint64_t>> sent(shape.memory_buses + 1);
  std::vector<uint64_t> range(size_t(1) << shape.max_log_height, 0);
  for (uint32_t i = 0; i < shape.chips; ++i) {
    const ChipAir& c = *chips[i];
    if (shape.absent_every > 0 && i % shape.absent_every == shape.absent_every - 1) {
      seg.traces.emplace_back();
      continue;
    }
    const uint32_t h = 1u << c.log_height(), w = c.width();
    AirWithTraces t;  // filled below, checked by the prover
    t.air = chips[i];
    t.common = TraceMatrix(c.shape().common_width, h);
    if (w < 4) {
      for (uint32_t r = 0; r < h; ++r) {
        const Fp x = w == 1 ? Fp::from_canonical(rng() & 1) : random(), y = random();
        t.common.at(r, 0) = x;
        if (w == 2) t.common.at(r, 1) = x * x;
        if (w == 3) {
          t.common.at(r, 1) = y;
          t.common.at(r, 2) = x * y;
        }
      }
      seg.traces.emplace_back(std::move(t));
      continue;
    }
    TraceMatrix values(c.values(), h);
    const uint32_t real = std::max<uint32_t>(1, h - h / 4);
    for (uint32_t r = 0; r < h; ++r) {
      const bool is_real = r < real;
      t.common.at(r, 0) = is_real ? Fp::one() : Fp::zero();
      t.common.at(r, 1) = Fp::from_canonical(r);
      if (!is_real) continue;  // padding rows: zero values
      for (uint32_t k = 0; k < 3 && k < c.values(); ++k) values.at(r, k) = random();
      if (c.preprocessed() && r % 3 == 0) values.at(r, 1) = values.at(r, 0);
      for (uint32_t k = 3; k < c.values(); ++k)
        values.at(r, k) = values.at(r, k - 1) * values.at(r, k - 2) + values.at(r, k - 3);
      ++range[r];
      for (const ChipAir::Send& s : c.sends()) ++sent[s.bus][{values.at(r, s.a).value(), values.at(r, s.b).value()}];
    }
    if (c.cached()) {
      t.cached.push_back(std::move(values));
    } else {
      for (uint32_t k = 0; k < c.values(); ++k)
        for (uint32_t r = 0; r < h; ++r) t.common.at(r, 2 + k) = values.at(r, k);
    }
    seg.traces.emplace_back(std::move(t));
  }
  for (uint32_t b = 1; b <= shape.memory_buses; ++b) {
    const uint32_t h = std::bit_ceil(std::max<uint32_t>(1, uint32_t(sent[b].size())));
    AirWithTraces t{seg.airs[shape.chips + b - 1], {}, TraceMatrix(3, h), {}};
    uint32_t r = 0;
    for (const auto& [msg, mult] : sent[b]) {
      t.common.at(r, 0) = Fp::from_canonical(uint32_t(mult));
      t.common.at(r, 1) = Fp::from_canonical(msg.first);
      t.common.at(r, 2) = Fp::from_canonical(msg.second);
      ++r;
    }
    seg.traces.emplace_back(std::move(t));
  }
  AirWithTraces t{seg.airs.back(), {}, TraceMatrix(1, uint32_t(range.size())), {}};
  for (uint32_t r = 0; r < range.size(); ++r) t.common.at(r, 0) = Fp::from_canonical(uint32_t(range[r]));
  seg.traces.emplace_back(std::move(t));
  return seg;
}

}  // namespace vkstark
