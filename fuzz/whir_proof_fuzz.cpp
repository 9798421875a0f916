// libFuzzer target: WHIR proof bytes through decode_whir_proof (without and with the shape) and
// whir_verify from the transcript state of a fixed PCS claim (fuzz/checks.hpp).
#include "fuzz/checks.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return vkstark::fuzz::run_fuzz_input(vkstark::fuzz::check_whir_proof_input, data, size);
}
