// The largest single allocation (operator new) since the last reset, so that a decoder test can
// check that a lying header allocates nothing of the size it claims. Linking
// support/largest_allocation.cpp replaces the test executable's global operator new and delete.
#pragma once

#include <cstddef>

namespace vkstark::testing {

void reset_largest_allocation();
size_t largest_allocation();

}  // namespace vkstark::testing
