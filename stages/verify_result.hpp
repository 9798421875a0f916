// The verifiers' result: accepted, or rejected with a reason naming what failed (architecture.md,
// "Verifier": a result value, not an exception).
#pragma once

#include <string>
#include <utility>

namespace vkstark {

struct VerifyResult {
  bool ok = true;
  std::string reason;  // empty when ok
  static VerifyResult accept() { return {}; }
  static VerifyResult reject(std::string why) { return {false, std::move(why)}; }
  explicit operator bool() const { return ok; }
};

}  // namespace vkstark
