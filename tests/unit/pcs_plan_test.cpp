// Golden counts of the PCS proof plan at the keccakf shape (42 columns of 2^21,
// app_params_with_100_bits_security(21)), the plan bench/pcs_bench runs: a change to the PCS
// stages or to the scheduler that adds dispatches, barriers or syncs fails here; and the dependent
// dispatches of one WHIR sumcheck round, counted from the barriers in the compiled plan. The tests
// only build and compile graphs (milliseconds): no executor, no data.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "runtime/plan.hpp"
#include "stages/opening/opening.hpp"
#include "stages/pcs/merkle.hpp"

using namespace vkstark;

// 284 dispatches / 247 barriers (242 memory, 5 execution) before the WHIR sumcheck rounds became
// partials + scalar program + fold (245 / 216), the WHIR commitments' observe + z0 and ood sums
// scalar programs too (239 / 207), and the PCS opening's last root observed and u sampled by one
// fused dispatch (238 / 206; 2026-11-23, docs/decisions.md), and the Merkle trees' layers of 2^12
// compressions and fewer made 4 at a time by MerkleCompressLevels (211 / 179; 2026-11-27), and the
// grinds' scratch words reset together when the transcript is made (196 / 178), and grinds of
// folding_pow_bits one TranscriptGrindCoop dispatch each (184 / 166), and the codeword's NTT in six
// register passes at 16 bytes instead of three in shared memory (187 / 169; 2026-11-29).
TEST(PcsPlan, KeccakfShapeIsOneSubmissionOf187DispatchesWith169Barriers) {
  PcsMatrixProof m = build_pcs_matrix_proof(42, 21, app_params_with_100_bits_security(21));
  Plan p = compile(std::move(m.graph));
  PlanCounts expected;
  expected.dispatches = 187;
  expected.barriers = 169;
  expected.memory_barriers = 169;
  expected.execution_barriers = 0;
  expected.submissions = 1;
  expected.host_syncs = 1;
  expected.host_tasks = 0;
  // Poseidon2 permutations: the commitment's 2^22 rows of 42 values (6 each: 25,165,824) and its
  // tree (2^22 - 1 compressions), WHIR's codewords' rows and trees (6,291,454).
  expected.permutations = 25165824 + 4194303 + 6291454;
  EXPECT_EQ(p.counts, expected) << p.to_text();
}

namespace {
// The steps of WHIR sumcheck round `idx` in a compiled plan: from its first task to its last (tasks
// named "whir.sumcheck<idx>" or "whir.sumcheck<idx>.<...>", with the transcript tasks between).
// Dependent dispatches = the barriers after its first step + 1.
struct RoundSteps {
  uint32_t dispatches = 0, barriers = 0, memory_barriers = 0;
  std::vector<std::string> names;
};
RoundSteps sumcheck_round_steps(const Plan& p, uint32_t idx) {
  const std::string name = "whir.sumcheck" + std::to_string(idx);
  auto in_round = [&](const Task& t) { return t.name == name || t.name.rfind(name + ".", 0) == 0; };
  std::vector<const Step*> steps;
  for (const Segment& s : p.segments)
    for (const Step& st : s.steps) steps.push_back(&st);
  size_t first = steps.size(), last = 0;
  for (size_t i = 0; i < steps.size(); ++i)
    if (in_round(p.tasks[steps[i]->task])) {
      first = std::min(first, i);
      last = i;
    }
  RoundSteps r;
  for (size_t i = first; i <= last && first < steps.size(); ++i) {
    const Task& t = p.tasks[steps[i]->task];
    EXPECT_EQ(p.spans[t.span].path.rfind("prover.openings/whir", 0), 0u) << t.name << " in " << p.spans[t.span].path;
    ++r.dispatches;
    r.names.push_back(t.name);
    if (i > first && steps[i]->barrier != BarrierKind::None) {
      ++r.barriers;
      r.memory_barriers += steps[i]->barrier == BarrierKind::Memory;
    }
  }
  return r;
}
std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += x + " ";
  return s;
}
}  // namespace

// The target of the scalar-program work: a round costs at most 4 dependent dispatches. Today 3:
// partials | program (sum, proof, observe, alpha) | fold. (Before: 9 to 11 dispatches, 6 to 9
// barriers: partials, 1 to 3 reduce stages, observe, grind reset / search / finish, sample, two folds.)
TEST(PcsPlan, AWhirSumcheckRoundWithoutGrindingIsAtMostFourDependentDispatches) {
  SystemParams params = app_params_with_100_bits_security(21);
  params.whir.folding_pow_bits = 0;
  PcsMatrixProof m = build_pcs_matrix_proof(42, 21, params);
  Plan p = compile(std::move(m.graph));
  ASSERT_EQ(params.num_whir_sumcheck_rounds(), 12u);
  for (uint32_t idx = 0; idx < params.num_whir_sumcheck_rounds(); ++idx) {
    RoundSteps r = sumcheck_round_steps(p, idx);
    EXPECT_LE(r.barriers + 1, 4u) << "round " << idx << ": " << joined(r.names);
    EXPECT_EQ(r.dispatches, 3u) << "round " << idx << ": " << joined(r.names);
    EXPECT_EQ(r.memory_barriers, 2u) << "round " << idx << ": " << joined(r.names);
  }
}

// folding_pow_bits > 0 (the keccakf params: 5) splits the program around the grind, one
// TranscriptGrindCoop dispatch at 5 bits; the second part samples alpha. 5 dispatches, all
// dependent.
TEST(PcsPlan, AWhirSumcheckRoundWithFoldingGrindingIsFiveDependentDispatches) {
  SystemParams params = app_params_with_100_bits_security(21);
  ASSERT_GT(params.whir.folding_pow_bits, 0u);
  PcsMatrixProof m = build_pcs_matrix_proof(42, 21, params);
  Plan p = compile(std::move(m.graph));
  for (uint32_t idx = 0; idx < params.num_whir_sumcheck_rounds(); ++idx) {
    RoundSteps r = sumcheck_round_steps(p, idx);
    EXPECT_EQ(r.dispatches, 5u) << "round " << idx << ": " << joined(r.names);
    EXPECT_EQ(r.barriers, 4u) << "round " << idx << ": " << joined(r.names);
  }
}

// PlanCounts::permutations over the hashing kernels: a tree of 2^n rows of width w hashes each row
// in ceil(w / 8) permutations and compresses 2^n - 1 times, whether its columns come in one view
// or in tiles whose sponges absorb across tile edges (HashRowsAbsorb), whatever its leaf groups.
TEST(PcsPlan, CountsEveryRowBlockAndCompressionOfAMerkleTree) {
  for (uint32_t width : {1u, 8u, 9u, 42u})
    for (uint32_t log_rows : {3u, 10u, 13u})
      for (uint32_t k : {0u, 2u}) {
        const uint64_t rows = uint64_t(1) << log_rows;
        const uint64_t want = rows * ((width + 7) / 8) + (rows - 1);
        {
          Graph g;
          auto m = g.input<Fp>("m", rows * width);
          (void)build_merkle_tree(g, "t", MatrixView{m.all(), width, log_rows, 1, rows}, k);
          EXPECT_EQ(compile(std::move(g)).counts.permutations, want) << width << " x 2^" << log_rows << " k " << k;
        }
        if (width < 3) continue;
        Graph g;
        std::vector<MatrixView> tiles;
        const uint32_t edges[] = {0, width / 3, width / 3 + 5 < width ? width / 3 + 5 : width - 1, width};
        for (int t = 0; t < 3; ++t) {
          const uint32_t w = edges[t + 1] - edges[t];
          auto b = g.input<Fp>(fmt::format("tile{}", t), rows * w);
          tiles.push_back(MatrixView{b.all(), w, log_rows, 1, rows});
        }
        (void)build_merkle_tree(g, "t", tiles, k);
        EXPECT_EQ(compile(std::move(g)).counts.permutations, want) << "tiles: " << width << " x 2^" << log_rows;
      }
}
