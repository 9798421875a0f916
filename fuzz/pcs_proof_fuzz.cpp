// libFuzzer target: PCS proof bytes through decode_pcs_proof (without and with the shape),
// verify_pcs_proof and verify_pcs_proof_bytes against a fixed claim (fuzz/checks.hpp).
#include "fuzz/checks.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return vkstark::fuzz::run_fuzz_input(vkstark::fuzz::check_pcs_proof_input, data, size);
}
