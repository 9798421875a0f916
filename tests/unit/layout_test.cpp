// Specifies the stacked layout of protocol.md 6.1 with the reference's examples.
#include <gtest/gtest.h>

#include "runtime/error.hpp"
#include "stages/pcs/layout.hpp"

using namespace vkstark;

namespace {
// Column-major stacked matrix built from the layout, for small examples. Columns given top-down.
std::vector<std::vector<uint32_t>> stack(const std::vector<std::vector<std::vector<uint32_t>>>& mats, uint32_t l,
                                         uint32_t n) {
  std::vector<MatrixShape> shapes;
  for (const auto& m : mats) {
    uint32_t h = static_cast<uint32_t>(m[0].size()), lh = 0;
    while ((1u << lh) < h) ++lh;
    shapes.push_back({static_cast<uint32_t>(m.size()), lh});
  }
  StackedLayout layout(shapes, l, n);
  std::vector<std::vector<uint32_t>> out(layout.stacked_width(), std::vector<uint32_t>(layout.stacked_height(), 0));
  for (const StackedSlice& s : layout.slices()) {
    const auto& col = mats[s.matrix][s.column];
    uint64_t stride = s.log_height >= l ? 1 : uint64_t(1) << (l - s.log_height);
    for (size_t i = 0; i < col.size(); ++i) out[s.stacked_col][s.row_start + i * stride] = col[i];
  }
  return out;
}
using M = std::vector<std::vector<uint32_t>>;
}  // namespace

TEST(StackedLayout, ReferenceExampleWithoutSkip) {
  auto got = stack({{{1, 2, 3, 4}}, {{5, 6}}, {{7}}}, 0, 2);
  EXPECT_EQ(got, (M{{1, 2, 3, 4}, {5, 6, 7, 0}}));
}

TEST(StackedLayout, ReferenceExampleStridesShortColumns) {
  EXPECT_EQ(stack({{{1, 2, 3, 4}}, {{5, 6}}, {{7}}}, 2, 0), (M{{1, 2, 3, 4}, {5, 0, 6, 0}, {7, 0, 0, 0}}));
  EXPECT_EQ(stack({{{1, 2, 3, 4}}, {{5, 6}}, {{7}}}, 3, 0),
            (M{{1, 0, 2, 0, 3, 0, 4, 0}, {5, 0, 0, 0, 6, 0, 0, 0}, {7, 0, 0, 0, 0, 0, 0, 0}}));
}

TEST(StackedLayout, KeccakfShape) {
  StackedLayout layout({{2633, 15}}, 4, 17);
  EXPECT_EQ(layout.stacked_width(), 42u);
  EXPECT_EQ(layout.slices()[64].stacked_col, 1u);
  EXPECT_EQ(layout.slices()[64].row_start, 0u);
  EXPECT_EQ(layout.slices()[2632].stacked_col, 41u);
  EXPECT_EQ(layout.slices()[2632].row_start, 8u << 15);
}

TEST(StackedLayout, MatricesAreContiguousFromTheirGlobalStart) {
  StackedLayout layout({{3, 5}, {70, 3}, {5, 1}, {0, 1}}, 2, 4);
  for (const StackedSlice& s : layout.slices()) {
    uint64_t global = uint64_t(s.stacked_col) * layout.stacked_height() + s.row_start;
    EXPECT_EQ(global, layout.global_start(s.matrix) + s.column * layout.slice_length(s.log_height));
  }
}

TEST(StackedLayout, RejectsTooTallAndUnsortedMatrices) {
  EXPECT_THROW(StackedLayout({{1, 7}}, 2, 4), InputError);
  EXPECT_THROW(StackedLayout({{1, 3}, {1, 4}}, 2, 4), InputError);
}
