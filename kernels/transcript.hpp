// The device transcript (architecture.md, "The prover is one static graph"): the sponge state
// lives in a one-element SpongeState buffer; these kernels advance it exactly as DuplexSponge
// (kernels/hash/transcript.hpp) does. All but the grind search run as one workgroup of 16
// invocations that share the sequential sponge work, one state lane each (grid.x = 16;
// kernels/glsl/sponge_coop.glsl: subgroup shuffles where a subgroup holds the 16 lanes, shared
// memory otherwise), on a t of one SpongeState.
#pragma once

#include "kernels/types.hpp"
#include "runtime/kernel.hpp"

namespace vkstark {

// The grid of the cooperative transcript kernels: one workgroup of 16 invocations.
inline constexpr Grid kTranscriptGrid{16};

// observe(values[i]) for every element in order. observe_ext / observe_commit: bitcast the Fp4 or
// Digest view to Fp.
struct TranscriptObserve {
  static constexpr std::string_view name = "transcript_observe";
  static constexpr uint32_t workgroup_size = 16;  // one cooperating workgroup: a state lane each
  static constexpr KernelConstant constants[] = {sponge_coop_groups(workgroup_size)};
  struct Args {
    InOut<SpongeState> t;
    In<Fp> values;
  };
  static Grid grid(const Args&) { return kTranscriptGrid; }
  static std::string check(const Args& a);
  static void cpu(const Args& a, const CpuContext& ctx);
};

// out[i] = sample() for every element in order. sample_ext: bitcast an Fp4 view to Fp (4 samples
// per element give a0..a3).
struct TranscriptSample {
  static constexpr std::string_view name = "transcript_sample";
  static constexpr uint32_t workgroup_size = 16;  // one cooperating workgroup: a state lane each
  static constexpr KernelConstant constants[] = {sponge_coop_groups(workgroup_size)};
  struct Args {
    InOut<SpongeState> t;
    Out<Fp> out;
  };
  static Grid grid(const Args&) { return kTranscriptGrid; }
  static std::string check(const Args& a);
  static void cpu(const Args& a, const CpuContext& ctx);
};

// observe(values[i]) for every element in order, then out[i] = sample() for every element in
// order: TranscriptObserve and TranscriptSample in one dispatch (a challenge drawn right after an
// observation). Bitcast Fp4 or Digest views to Fp, as for those.
struct TranscriptObserveSample {
  static constexpr std::string_view name = "transcript_observe_sample";
  static constexpr uint32_t workgroup_size = 16;  // one cooperating workgroup: a state lane each
  static constexpr KernelConstant constants[] = {sponge_coop_groups(workgroup_size)};
  struct Args {
    InOut<SpongeState> t;
    In<Fp> values;
    Out<Fp> out;
  };
  static Grid grid(const Args&) { return kTranscriptGrid; }
  static std::string check(const Args& a);
  static void cpu(const Args& a, const CpuContext& ctx);
};

// out[i] = sample_bits(bits) for every element in order (bits <= DuplexSponge::MAX_SAMPLE_BITS = 30).
struct TranscriptSampleBits {
  static constexpr std::string_view name = "transcript_sample_bits";
  static constexpr uint32_t workgroup_size = 16;  // one cooperating workgroup: a state lane each
  static constexpr KernelConstant constants[] = {sponge_coop_groups(workgroup_size)};
  struct Args {
    InOut<SpongeState> t;
    Out<uint32_t> out;
    uint32_t bits = 0;
  };
  static Grid grid(const Args&) { return kTranscriptGrid; }
  static std::string check(const Args& a);
  static void cpu(const Args& a, const CpuContext& ctx);
};

// Parallel proof-of-work search: best[0] = min(best[0], smallest w in [0, p) with
// check_witness(bits, w) on a copy of t). Invocation j tests j, j + grid.x, j + 2 grid.x, ... and
// stops once its candidate exceeds the best found so far, so the search is deterministic: the
// smallest valid witness, whatever the grid. best[0] must hold 0xFFFFFFFF before (FillU32).
// No grid(): the number of searching invocations is a free parallelism choice.
struct TranscriptGrindSearch {
  static constexpr std::string_view name = "transcript_grind_search";
  static constexpr uint32_t workgroup_size = 256;
  struct Args {
    In<SpongeState> t;
    InOut<uint32_t> best;
    uint32_t bits = 0;
  };
  static std::string check(const Args& a);
  static void cpu(const Args& a, const CpuContext& ctx);
};

// Applies the witness found by TranscriptGrindSearch: observe(w), one sample; witness[0] = w.
// bits == 0 leaves t untouched and writes w = 0 (protocol.md 2.6).
struct TranscriptGrindFinish {
  static constexpr std::string_view name = "transcript_grind_finish";
  static constexpr uint32_t workgroup_size = 16;  // one cooperating workgroup: a state lane each
  static constexpr KernelConstant constants[] = {sponge_coop_groups(workgroup_size)};
  struct Args {
    InOut<SpongeState> t;
    In<uint32_t> best;
    Out<Fp> witness;
    uint32_t bits = 0;
  };
  static Grid grid(const Args&) { return kTranscriptGrid; }
  static std::string check(const Args& a);
  static void cpu(const Args& a, const CpuContext& ctx);
};

// The whole grind for few bits in one dispatch: TranscriptGrindSearch and TranscriptGrindFinish
// without the grid-wide search. One workgroup of 8 or 16 groups of 16 invocations (its
// workgroup_size, or what the device allows) tests candidates 0, 1, 2, ... a group each, a round at
// a time, until a round holds a valid one; the smallest of that round is the smallest valid witness.
// Then observe(w), one sample, witness[0] = w, as TranscriptGrindFinish. bits == 0: witness 0, t
// untouched. For folding_pow_bits-sized grinds (about 2^bits / 16 rounds of one cooperative
// permutation each) where the search and finish kernels cost more in dispatches than in candidates.
struct TranscriptGrindCoop {
  static constexpr std::string_view name = "transcript_grind_coop";
  static constexpr uint32_t workgroup_size = 256;  // 16 candidates a round (128 on a device with less)
  static constexpr KernelConstant constants[] = {sponge_coop_groups(workgroup_size)};
  struct Args {
    InOut<SpongeState> t;
    Out<Fp> witness;
    uint32_t bits = 0;
  };
  static Grid grid(const Args&) { return {workgroup_size}; }
  static std::string check(const Args& a);
  static void cpu(const Args& a, const CpuContext& ctx);
};

}  // namespace vkstark
