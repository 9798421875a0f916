// libFuzzer target: verifying keys taken as AIRs given as data (fuzz/checks.hpp, check_vk_air_input).
#include "fuzz/checks.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return vkstark::fuzz::run_fuzz_input(vkstark::fuzz::check_vk_air_input, data, size);
}
