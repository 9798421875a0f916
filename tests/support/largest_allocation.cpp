#include "tests/support/largest_allocation.hpp"

#include <atomic>
#include <cstdlib>
#include <new>

namespace {
std::atomic<size_t> g_largest{0};
}

namespace vkstark::testing {
void reset_largest_allocation() { g_largest = 0; }
size_t largest_allocation() { return g_largest.load(); }
}  // namespace vkstark::testing

// The nothrow forms too (std::stable_sort's buffer): each pair allocates and frees alike (ASan checks).
// (noinline: g++ 12 would otherwise see malloc and free through the inlined operators and warn of a
// mismatch.)
__attribute__((noinline)) void* operator new(std::size_t n) {
  size_t seen = g_largest.load(std::memory_order_relaxed);
  while (n > seen && !g_largest.compare_exchange_weak(seen, n, std::memory_order_relaxed)) {
  }
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
__attribute__((noinline)) void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  try {
    return ::operator new(n);
  } catch (const std::bad_alloc&) {
    return nullptr;
  }
}
__attribute__((noinline)) void operator delete(void* p) noexcept { std::free(p); }
__attribute__((noinline)) void operator delete(void* p, std::size_t) noexcept { std::free(p); }
__attribute__((noinline)) void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
