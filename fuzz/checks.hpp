// What the fuzz targets check on one input, shared by the libFuzzer targets (fuzz/*_fuzz.cpp, built
// with clang) and the replay test of the committed inputs (tests/negative/fuzz_replay_test.cpp, g++).
//
// An input is one selector byte (the shape: fuzz_shapes()[input[0] % count]) followed by the bytes
// given to the decoders and verifiers. For each input every decoder and verifier entry point of
// the target runs; a violation is any of
// - a decoder accepting bytes that are not encode() of what it returned (one canonical encoding),
//   or the decoder with a shape accepting what the one without rejects, or the two decoding the
//   same bytes to different proofs;
// - a verifier accepting anything but the seed proof of the shape's claim (compared by hash), or
//   rejecting the seed itself (a stale corpus), or rejecting without a reason or a code (RejectCode,
//   stages/common/verify_result.hpp), or with a code of a phase it does not run: the decoder's own code
//   when the decoder with the verifier's shape rejects the bytes, a code of the verifier's phases
//   (never "decode") when it accepts them, a WHIR code from whir_verify;
// and an exception other than DecodeError from a decoder, or any exception from a verifier, is
// let through (the fuzzer reports it as a crash). Thread-compatible.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "stages/air/verifying_key.hpp"
#include "stages/common/params.hpp"
#include "stages/opening/opening.hpp"

namespace vkstark::fuzz {

// One fixed shape: params, the traces of each commitment (width, log_height; sorted), and the
// claim its seed proof proves (fuzz/claims.inc, written by fuzz_make_corpus with the seeds).
struct FuzzShape {
  std::string name;
  SystemParams params;
  std::vector<std::vector<std::pair<uint32_t, uint32_t>>> traces;
  PcsClaim claim;
  uint64_t pcs_seed_hash = 0;   // of the seed's encode(PcsProof)
  uint64_t whir_seed_hash = 0;  // of the seed's encode(WhirProof)
};

// The shapes without their claims (what fuzz_make_corpus proves) ...
std::vector<FuzzShape> fuzz_shape_list();
// ... and with them (built once; aborts if claims.inc does not match the list).
const std::vector<FuzzShape>& fuzz_shapes();

// FNV-1a, 64 bits: tells a seed from other bytes (not a security hash; the fuzzer does not
// search for collisions).
uint64_t fuzz_hash(std::span<const uint8_t> bytes);

struct FuzzOutcome {
  bool accepted = false;  // a verifier accepted the bytes
  std::string violation;  // empty: none
  RejectCode rejected;    // the last verifier's rejection code ({} when none rejected)
};

// Target pcs_proof: decode_pcs_proof without and with the shape, verify_pcs_proof on what the
// shape-free decoder returns, verify_pcs_proof_bytes.
FuzzOutcome check_pcs_proof_input(std::span<const uint8_t> input);
// Target whir_proof: decode_whir_proof without and with the shape, whir_verify on either result
// from the transcript state the PCS verifier reaches before WHIR.
FuzzOutcome check_whir_proof_input(std::span<const uint8_t> input);

// Target stark_proof: whole proofs (protocol.md 12, 13) of the test AIRs. A fixture is a verifying
// key and the hash of its seed proof (fuzz/stark_fixtures.inc, written by fuzz_make_corpus with the
// seeds tests/fuzz_corpus/stark_proof/<name>); the input's first byte selects it.
struct StarkFuzzFixture {
  std::string name;
  MultiStarkVerifyingKey vk;
  uint64_t seed_hash = 0;
};
const std::vector<StarkFuzzFixture>& stark_fuzz_fixtures();
// decode_proof without and with the vk (one canonical encoding, the same proof), verify on the
// shape-free result, verify_bytes.
FuzzOutcome check_stark_proof_input(std::span<const uint8_t> input);

// Target vk_file: verifying-key files (the stark_proof fixtures' vks as seeds) through
// decode_vk_file. The decoder must accept only the one canonical encoding of what it returns
// (encode_vk_file gives the bytes back) and recompute the pre-hash from the postcard bytes; any
// exception but DecodeError is a crash. "Accepted" means decoded to a seed's verifying key: a
// mutation that decodes to another valid key is neither accepted nor a violation.
FuzzOutcome check_vk_file_input(std::span<const uint8_t> input);
// Target proof_file: the first byte picks a fixture, the rest is a proof file (product/proof_file.hpp)
// through decode_proof_file (one canonical encoding: encode_proof_file gives the bytes back), then
// verify_bytes with the file's own key. "Accepted" must mean the fixture's key and seed proof (the
// AIR names are free); any exception but DecodeError is a crash.
FuzzOutcome check_proof_file_input(std::span<const uint8_t> input);

// Target batch_inputs: the hostile inputs of vkstark prove-batch. The first byte mod 3 picks: 0, the
// rest is a trace file (product/trace_file.hpp) through decode_trace_file (one canonical encoding)
// and trace_file_air (InputError only; to_trace_file gives the file back); 1, a manifest's text
// through parse_manifest (InputError only; names and outs unique, each job a shipped AIR with its
// size, a trace file, or a vk file with an input); 2, a proving input (product/proving_input.hpp)
// through decode_proving_input (one canonical encoding). "Accepted": decoded or parsed.
FuzzOutcome check_batch_input(std::span<const uint8_t> input);

// Target vk_air: a verifying key taken as AIRs given as data (stages/air/dag_air.hpp), the path of
// `vkstark prove --vk`. The rest after the selector byte is a vk file; when it decodes, every entry
// must make a DagAir (with a zero preprocessed trace) that keygen's checks take (keygen_air) and
// whose verifying key entry is the key's own (but for the preprocessed commitment, which needs an
// executor), and the debug checker must evaluate every constraint and interaction of every AIR on
// zero traces of 2^(selector % 4) rows without refusing them. An entry the decoder accepts and the
// AIR path refuses is a violation; any exception but DecodeError is a crash. "Accepted": decoded.
FuzzOutcome check_vk_air_input(std::span<const uint8_t> input);

// Target spirv: SPIR-V words as a run-time kernel's file may hold them (make_runtime_kernel) through
// what reads them: spirv_needs (capabilities, shared memory with its specialization constants
// evaluated, descriptors, push constants; the workgroup size 2^(input[0] % 9)),
// spirv_interface_mismatch against a three-view ABI, and spirv_reads_num_workgroups. The rest of
// the input, little-endian words (a partial last word dropped). "Accepted" means spirv_needs read
// it without an error; a violation is two readings of the same words that differ. Any exception is
// a crash (these return what is wrong, they never throw).
FuzzOutcome check_spirv_input(std::span<const uint8_t> input);

// The libFuzzer entry points' body: aborts with the violation on stderr.
int run_fuzz_input(FuzzOutcome (*check)(std::span<const uint8_t>), const uint8_t* data, size_t size);

}  // namespace vkstark::fuzz
