// libFuzzer target: verifying-key file bytes through decode_vk_file (fuzz/checks.hpp).
#include "fuzz/checks.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return vkstark::fuzz::run_fuzz_input(vkstark::fuzz::check_vk_file_input, data, size);
}
