// A program outside the vkstark tree, built against the installed package: declares its own AIR,
// proves it on the executor named by argv[1] (cpu or vulkan) and verifies the proof; a proof with
// one byte changed must be rejected. Exit status 0 only when both hold.
//
//   downstream cpu|vulkan
//
// The statement: starting from x = x0 with a counter i = 0, the step x <- x * x + i reaches y after
// `kRows` rows.
#include <fmt/format.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "executors/executors.hpp"
#include "stages/air/air.hpp"
#include "stages/air/keygen.hpp"
#include "stages/prover.hpp"
#include "stages/verifier.hpp"

using namespace vkstark;

namespace {

constexpr uint32_t kRows = 64;

// Columns (i, x); public values [x0, y]. Degree 3: x * x under the transition filter.
class SquareCounter final : public Air {
 public:
  std::string name() const override { return "downstream_square_counter"; }
  AirShape shape() const override { return {.common_width = 2, .num_public_values = 2}; }
  void eval(AirBuilder& b) const override {
    const Window m = b.main();
    const Expr i = m.local(0), x = m.local(1);
    b.when_first_row().assert_zero(i);
    b.when_first_row().assert_eq(x, b.public_value(0));
    b.when_transition().assert_eq(m.next(0), i + Expr(1));
    b.when_transition().assert_eq(m.next(1), x * x + i);
    b.when_last_row().assert_eq(x, b.public_value(1));
  }
};

AirWithTraces square_counter_trace(std::shared_ptr<const Air> air, Fp x0) {
  AirWithTraces t;
  t.air = std::move(air);
  t.common = TraceMatrix(2, kRows);
  Fp x = x0;
  for (uint32_t r = 0; r < kRows; ++r) {
    const Fp i = Fp::from_canonical(r);
    t.common.at(r, 0) = i;
    t.common.at(r, 1) = x;
    x = x * x + i;
  }
  t.public_values = {x0, t.common.at(kRows - 1, 1)};
  return t;
}

}  // namespace

int main(int argc, char** argv) try {
  if (argc != 2) {
    fmt::print(stderr, "usage: downstream cpu|vulkan\n");
    return 2;
  }
  auto exec = make_executor(argv[1]);
  const std::vector<std::shared_ptr<const Air>> airs{std::make_shared<SquareCounter>()};
  const ProvingKey pk = keygen(airs, test_system_params_small(2, 8, 3), *exec);

  const std::vector<std::optional<AirWithTraces>> traces{square_counter_trace(airs[0], Fp::from_canonical(3))};
  StarkProver prover(pk, *exec);
  std::vector<uint8_t> bytes = encode(prover.prove(traces));

  const VerifyResult verdict = verify_bytes(pk.vk, bytes);
  bytes[bytes.size() / 2] ^= 1;
  const VerifyResult tampered = verify_bytes(pk.vk, bytes);
  fmt::print("downstream: {} rows on {} ({}): y = {}, proof {} bytes: {}; one byte changed: {}\n", kRows, exec->name(),
             exec->device_name(), traces[0]->public_values[1].value(), bytes.size(),
             verdict.ok ? "verified" : "REJECTED: " + verdict.reason,
             tampered.ok ? "ACCEPTED" : "rejected (" + tampered.reason + ")");
  return verdict.ok && !tampered.ok ? 0 : 1;
} catch (const std::exception& e) {
  fmt::print(stderr, "downstream: {}\n", e.what());
  return 1;
}
