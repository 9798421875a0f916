// libFuzzer target: prove-batch's hostile inputs, trace files and manifests (fuzz/checks.hpp).
#include "fuzz/checks.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return vkstark::fuzz::run_fuzz_input(vkstark::fuzz::check_batch_input, data, size);
}
