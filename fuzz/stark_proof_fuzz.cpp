// libFuzzer target: whole proof bytes through decode_proof (without and with the vk), verify and
// verify_bytes, for the verifying keys of the test AIRs (fuzz/checks.hpp).
#include "fuzz/checks.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return vkstark::fuzz::run_fuzz_input(vkstark::fuzz::check_stark_proof_input, data, size);
}
