// libFuzzer target: proof file bytes through decode_proof_file and the verifier (fuzz/checks.hpp).
#include "fuzz/checks.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return vkstark::fuzz::run_fuzz_input(vkstark::fuzz::check_proof_file_input, data, size);
}
