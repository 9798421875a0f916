// libFuzzer target: SPIR-V words through the readers of run-time kernels' SPIR-V (fuzz/checks.hpp).
#include "fuzz/checks.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return vkstark::fuzz::run_fuzz_input(vkstark::fuzz::check_spirv_input, data, size);
}
