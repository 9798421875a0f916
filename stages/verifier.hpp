// The STARK verifier (protocol.md 13), on the host: the proof's shape against the verifying key,
// the trace-height constraints, the transcript preamble, LogUp's GKR, the batch constraint
// sumcheck, the stacked opening reduction and WHIR, each phase's verifier in its own folder
// (stages/gkr, stages/batch_constraint, stages/stacked_reduction, stages/whir).
//
// A result, never an exception, for anything about the proof: malformed, truncated or tampered
// proofs are rejected with a code naming the check (its phase's enum, stages/common/verify_result.hpp) and
// a reason with the details; nothing reads out of bounds or allocates more than a small multiple of
// the input. InputError only for a verifying key whose params are
// outside the supported range (SystemParams::validate). Thread-compatible; pure.
#pragma once

#include <cstdint>
#include <span>

#include "stages/air/verifying_key.hpp"
#include "stages/common/verify_result.hpp"
#include "stages/proof/proof.hpp"

namespace vkstark {

VerifyResult verify(const MultiStarkVerifyingKey& vk, const Proof& proof);
// Decodes with the vk's shape (a DecodeError becomes a rejection with its code and message), then
// verifies.
VerifyResult verify_bytes(const MultiStarkVerifyingKey& vk, std::span<const uint8_t> bytes);

}  // namespace vkstark
