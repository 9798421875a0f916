// The AIRs' kernels a prover's proofs use (architecture.md, "Generated kernels"): per AIR of a key,
// its interactions' kernels (LogUp GKR's input layer) and its functionals' kernels (the batch
// constraint sumcheck), made on first use and kept: compiled, or loaded from the SPIR-V cache.
// With Round0Kernels::Auto, an AIR whose generated round-0 kernels are not ready proves on the
// interpreter while they compile in the background; the proofs planned once they are ready use them.
//
// The phases reach it through ProverContext::kernels. Thread-compatible: one thread plans with it
// (its own background tasks aside). The key and the executor must outlive it.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "runtime/executor.hpp"
#include "stages/air/keygen.hpp"
#include "stages/batch_constraint/functionals.hpp"
#include "stages/gkr/input.hpp"

namespace vkstark {

// Round 0's constraint kernels (the batch sumcheck's base-field evaluation of every AIR's
// constraints over the coset points). Every choice gives the same proof bytes.
enum class Round0Kernels {
  Auto,         // the executor's choice (ProverOptions::round0_kernels)
  Generated,    // per-AIR kernels, compiled before the first proof that needs them
  Interpreted,  // the base-field fused interpreter: nothing compiled per AIR
};

class AirKernels {
 public:
  // `round0` unset: VKSTARK_ROUND0_KERNELS=auto|generated|fused when set (InputError for another
  // value), else Generated on the CPU executor and a CPU implementation of Vulkan, Auto elsewhere.
  // `background`: Auto compiles the generated kernels in the background (start_background), else
  // keeps such AIRs on the interpreter.
  AirKernels(const ProvingKey& pk, Executor& exec, std::optional<Round0Kernels> round0 = std::nullopt,
             bool background = true);
  // Stops the background compilation: waits for the pipelines being compiled, starts no other.
  ~AirKernels();
  AirKernels(const AirKernels&) = delete;
  AirKernels& operator=(const AirKernels&) = delete;

  // AIR `air`'s interactions' kernels. compact: the kernels that read compact copies of the parts,
  // for parts that lie in pieces of their commitment (make_interaction_kernels).
  const InteractionKernels& interaction_kernels(uint32_t air, bool compact = false);
  // AIR `air`'s functionals' kernels as proofs planned now use them: round 0 generated or
  // interpreted (Round0Kernels), what the background compilation made taken from now on.
  const AirFunctionalKernels& functional_kernels(uint32_t air);

  // Compiles the generated round-0 kernels of the AIRs that prove on the interpreter (Auto), in
  // the background; after a prepare, so that they do not slow its own compilation.
  void start_background();
  // Waits until the background compilation started so far has finished (StarkProver::wait_for_kernels).
  void wait_for_kernels();
  // Whether proofs planned now evaluate AIR `air`'s round 0 with generated kernels.
  [[nodiscard]] bool round0_generated(uint32_t air);

 private:
  const ProvingKey& pk_;
  Executor& exec_;
  Round0Kernels round0_;  // the option's or the environment's; Auto only on a GPU
  bool background_kernels_;
  // Per AIR, the kernels its proofs use now.
  std::map<uint32_t, std::shared_ptr<const AirFunctionalKernels>> functionals_;
  // Auto: AIRs on the interpreter whose generated kernels are not compiling yet.
  std::vector<uint32_t> pending_;
  struct Background;  // the background compilation (a TBB task group) and what it made
  std::unique_ptr<Background> background_;
  std::map<uint32_t, std::shared_ptr<const InteractionKernels>> interactions_, compact_interactions_;
};

}  // namespace vkstark
