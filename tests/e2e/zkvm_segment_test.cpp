// A zkVM-shaped segment in one proof (product/airs/zkvm_segment.hpp): over a hundred AIRs of heights
// 2^0 .. 2^max and widths 1 .. 300, nine buses with sends and receives between AIRs, preprocessed
// and cached parts, absent AIRs. It proves and verifies on every executor with the same bytes, also
// when built for small allocations and bindings.
#include <gtest/gtest.h>

#include "product/airs/zkvm_segment.hpp"
#include "stages/air/debug_check.hpp"
#include "stages/air/eval.hpp"
#include "stages/prover.hpp"
#include "stages/verifier.hpp"
#include "tests/parity/executor_fixture.hpp"

using namespace vkstark;
using namespace vkstark::testing;

namespace {

std::vector<uint8_t> prove(Executor& exec, const ZkvmSegment& seg, const SystemParams& params,
                           const MemoryLimits& limits = {}) {
  const ProvingKey pk = keygen(seg.airs, params, exec);
  StarkProver prover(pk, exec, {.limits = limits});
  const std::vector<uint8_t> bytes = encode(prover.prove(seg.traces));
  const VerifyResult v = verify_bytes(pk.vk, bytes);
  EXPECT_TRUE(v.ok) << v.reason;
  return bytes;
}

ZkvmSegmentShape small_shape() {
  ZkvmSegmentShape s;
  s.chips = 100;
  s.max_log_height = 6;
  s.max_width = 300;
  s.seed = 5;
  return s;
}

}  // namespace

TEST(ZkvmSegment, TheFixtureHasTheShapeOfASegmentAndHoldsItsConstraints) {
  const ZkvmSegment seg = zkvm_segment(small_shape());
  EXPECT_GE(seg.airs.size(), 100u);
  EXPECT_LT(seg.present(), seg.airs.size());  // some absent
  uint32_t min_w = ~0u, max_w = 0, min_h = ~0u, max_h = 0, pre = 0, cached = 0;
  for (const auto& t : seg.traces) {
    if (!t) continue;
    const AirShape s = t->air->shape();
    const uint32_t w = s.common_width + (s.cached_widths.empty() ? 0 : s.cached_widths[0]);
    min_w = std::min(min_w, w);
    max_w = std::max(max_w, w);
    min_h = std::min(min_h, t->common.height);
    max_h = std::max(max_h, t->common.height);
    pre += s.preprocessed_width > 0;
    cached += !s.cached_widths.empty();
    const DebugReport r = debug_check(std::span<const AirWithTraces>(&*t, 1));  // alone: its buses do not balance
    EXPECT_TRUE(r.constraint_failures.empty()) << r.message();
  }
  EXPECT_EQ(min_w, 1u);
  EXPECT_EQ(max_w, 300u);
  EXPECT_EQ(min_h, 1u);
  EXPECT_EQ(max_h, 64u);
  EXPECT_GE(pre, 2u);
  EXPECT_GE(cached, 2u);
}

class ZkvmSegmentProof : public ExecutorTest {};
VKSTARK_INSTANTIATE_FOR_EXECUTORS(ZkvmSegmentProof);

TEST_P(ZkvmSegmentProof, VerifiesWithTheSameBytesOnEveryExecutorAndSplit) {
  const ZkvmSegment seg = zkvm_segment(small_shape());
  const SystemParams params = app_params_with_100_bits_security(12);
  const std::vector<uint8_t> bytes = prove(exec(), seg, params);
  if (GetParam() != "cpu") {
    EXPECT_EQ(bytes, prove(executor("cpu"), seg, params)) << "bytes differ from the CPU's";
  }
  // Built for allocations of 4 MiB and bindings of 512 KiB: the same proof.
  EXPECT_EQ(prove(exec(), seg, params, {.max_allocation_bytes = 4u << 20, .max_binding_bytes = 512u << 10}), bytes);
}
