#include "stages/air/air.hpp"

#include <fmt/format.h>

#include "runtime/error.hpp"

namespace vkstark {

namespace {
void check_cells_fit(const HostMemory& memory, size_t n) {
  if (memory.size() / sizeof(Fp) < n)
    throw InputError(fmt::format("trace values: {} cells do not fit {} bytes of host memory", n, memory.size()));
}
}  // namespace

TraceValues::TraceValues(std::shared_ptr<HostMemory> memory, size_t n) {
  if (!memory) throw InputError("trace values: no host memory given");
  check_cells_fit(*memory, n);
  count_ = n;
  memory_ = std::move(memory);
}

void TraceValues::resize(size_t n) {
  if (!memory_) {
    heap_.resize(n);
    return;
  }
  check_cells_fit(*memory_, n);
  count_ = n;
}

std::vector<uint32_t> AirShape::row_view_widths() const {
  std::vector<uint32_t> w;
  if (preprocessed_width > 0) w.push_back(preprocessed_width);
  w.insert(w.end(), cached_widths.begin(), cached_widths.end());
  w.push_back(common_width);
  return w;
}

Expr Window::at(uint32_t offset, uint32_t col) const {
  if (col >= width_) {
    const char* what = entry_ == EntryKind::Preprocessed ? "preprocessed" : "main part";
    throw InputError(fmt::format("AIR {}: {} {}: column {} is past the width {}", air_, what, part_, col, width_));
  }
  return Expr::variable({entry_, entry_ == EntryKind::Main ? part_ : 0, offset, col});
}

std::vector<Expr> Window::local_row() const {
  std::vector<Expr> r;
  for (uint32_t c = 0; c < width_; ++c) r.push_back(local(c));
  return r;
}
std::vector<Expr> Window::next_row() const {
  std::vector<Expr> r;
  for (uint32_t c = 0; c < width_; ++c) r.push_back(next(c));
  return r;
}

FilteredBuilder FilteredBuilder::when(const Expr& cond) const {
  std::vector<Expr> c = conds_;
  c.push_back(cond);
  return FilteredBuilder(b_, std::move(c));
}

void FilteredBuilder::assert_zero(const Expr& x) const {
  Expr y = x;
  for (auto it = conds_.rbegin(); it != conds_.rend(); ++it) y = *it * y;
  b_.assert_zero(y);
}

AirBuilder::AirBuilder(std::string air_name, AirShape shape) : name_(std::move(air_name)), shape_(std::move(shape)) {}

Window AirBuilder::preprocessed() const {
  if (shape_.preprocessed_width == 0)
    throw InputError(fmt::format("AIR {}: eval reads a preprocessed part it does not have", name_));
  return Window(EntryKind::Preprocessed, 0, shape_.preprocessed_width, name_);
}

Window AirBuilder::cached(uint32_t i) const {
  if (i >= shape_.num_cached())
    throw InputError(fmt::format("AIR {}: eval reads cached part {} of {}", name_, i, shape_.num_cached()));
  return Window(EntryKind::Main, i, shape_.cached_widths[i], name_);
}

Window AirBuilder::main() const { return Window(EntryKind::Main, shape_.num_cached(), shape_.common_width, name_); }

Expr AirBuilder::public_value(uint32_t i) const {
  if (i >= shape_.num_public_values)
    throw InputError(fmt::format("AIR {}: eval reads public value {} of {}", name_, i, shape_.num_public_values));
  return Expr::variable({EntryKind::Public, 0, 0, i});
}

void AirBuilder::assert_zero(const Expr& x) { constraints_.push_back(x); }

void AirBuilder::push_interaction(uint16_t bus, std::vector<Expr> message, Expr count, uint32_t count_weight) {
  interactions_.push_back({bus, std::move(message), std::move(count), count_weight});
}

std::string variable_problem(const Variable& v, const AirShape& s) {
  switch (v.entry) {
    case EntryKind::Challenge:
      return "challenge variables are not supported";
    case EntryKind::Public:
      if (v.part != 0 || v.offset != 0)
        return fmt::format("a public-value variable with part {} and row offset {} (public values have neither)",
                           v.part, v.offset);
      if (v.index >= s.num_public_values)
        return fmt::format("public value {} is past the {} public values", v.index, s.num_public_values);
      return {};
    case EntryKind::Preprocessed:
      if (v.part != 0)
        return fmt::format("a preprocessed variable with part {} (only main variables have one)", v.part);
      if (v.offset > 1) return fmt::format("row offset {}; only 0 (local) and 1 (next) exist", v.offset);
      if (s.preprocessed_width == 0) return "the AIR has no preprocessed part";
      if (v.index >= s.preprocessed_width)
        return fmt::format("column {} is past the preprocessed width {}", v.index, s.preprocessed_width);
      return {};
    case EntryKind::Main: {
      if (v.offset > 1) return fmt::format("row offset {}; only 0 (local) and 1 (next) exist", v.offset);
      const uint32_t m = s.num_cached();
      if (v.part > m)
        return fmt::format("main part {} does not exist (the AIR has {} cached parts, so the common main is part {})",
                           v.part, m, m);
      const uint32_t width = v.part == m ? s.common_width : s.cached_widths[v.part];
      if (v.index >= width)
        return fmt::format(
            "column {} is past the width {} of {}", v.index, width,
            v.part == m ? fmt::format("the common main (part {})", m) : fmt::format("cached part {}", v.part));
      return {};
    }
  }
  return "unknown entry kind";
}

SymbolicAir symbolic_air(const Air& air) {
  AirBuilder b(air.name(), air.shape());
  air.eval(b);
  SymbolicAir s{b.air_name(), b.shape(), b.constraints(), b.interactions(), air.column_names(), b.bus_names()};
  if (!s.column_names.empty()) {
    const std::vector<uint32_t> widths = s.shape.row_view_widths();
    if (s.column_names.size() != widths.size())
      throw InputError(
          fmt::format("AIR {}: column_names() names {} parts, the AIR has {} (preprocessed, cached, "
                      "common)",
                      s.name, s.column_names.size(), widths.size()));
    for (size_t p = 0; p < widths.size(); ++p)
      if (s.column_names[p].size() != widths[p])
        throw InputError(fmt::format("AIR {}: column_names() gives {} names for part {} of width {}", s.name,
                                     s.column_names[p].size(), p, widths[p]));
  }
  return s;
}

std::string variable_name(const SymbolicAir& air, const Variable& v) {
  if (air.column_names.empty() || (v.entry != EntryKind::Preprocessed && v.entry != EntryKind::Main))
    return to_string(v);
  const uint32_t pre = air.shape.preprocessed_width > 0 ? 1 : 0;
  const uint32_t part = v.entry == EntryKind::Preprocessed ? 0 : pre + v.part;
  if (part >= air.column_names.size() || v.index >= air.column_names[part].size()) return to_string(v);
  return air.column_names[part][v.index] + (v.offset == 0 ? "" : "'");
}

std::string expression_text(const SymbolicAir& air, const Expr& e, size_t max_chars) {
  if (air.column_names.empty()) return to_string(e, max_chars);
  return to_string(e, max_chars, [&](const Variable& v) { return variable_name(air, v); });
}

}  // namespace vkstark
