// The MLE tables of the batch constraint sumcheck (kernels/mle_tables.hpp, protocol.md 9.4, 9.6):
//   * EqUniWeights is the Lagrange basis on D^(L) at r (eval_eq_uni of stages/common/poly.hpp), both
//     executors bit-identical, L = 0..5, r random or in D;
//   * PleFoldColumns is the column's PLE folded at r_0, chunk by chunk (eval_ple on each chunk's
//     slice), local and rotated, traces taller and shorter than 2^l_skip (lifted by repetition);
//   * folding those tables at r_1 .. r_n gives exactly the column openings of the naive host model
//     of the batch sumcheck (tests/support/model_batch_prover.hpp) for the test AIRs: the device
//     tables are the ones the MLE rounds will fold.
#include <gtest/gtest.h>

#include <bit>

#include "executors/executors.hpp"
#include "kernels/field/simd_level.hpp"
#include "kernels/mle_tables.hpp"
#include "kernels/whir.hpp"
#include "product/airs/test_airs.hpp"
#include "stages/common/poly.hpp"
#include "tests/parity/executor_fixture.hpp"
#include "tests/support/model_batch_prover.hpp"

using namespace vkstark;
using namespace vkstark::testing;

namespace {

std::vector<Fp> roots_of_unity(uint32_t L) {
  std::vector<Fp> v(size_t(1) << L);
  const Fp w = two_adic_generator(L);
  Fp x = Fp::one();
  for (Fp& e : v) {
    e = x;
    x *= w;
  }
  return v;
}

class MleTables : public ExecutorTest {
 protected:
  // Device: weights at r, then the PLE fold of `cols` columns of 2^log_height rows.
  // All chunks, or the 2^log_block from `first` (a row tile of the table).
  std::vector<Fp4> fold(const std::vector<Fp>& in, uint32_t cols, uint32_t log_height, uint32_t l, uint32_t shift,
                        const Fp4& r, std::vector<Fp4>* weights = nullptr, int log_block = -1, uint32_t first = 0) {
    Graph g;
    auto rb = g.input<Fp4>("r", 1);
    auto inb = g.input<Fp>("in", in.size());
    auto w = g.output<Fp4>("w", size_t(1) << l);
    const uint32_t log_chunks = log_block >= 0 ? uint32_t(log_block) : (log_height > l ? log_height - l : 0);
    auto out = g.output<Fp4>("out", uint64_t(cols) << log_chunks);
    g.dispatch<EqUniWeights>("weights",
                             {.r = rb, .roots = g.constant<Fp>("roots", roots_of_unity(l)), .out = w, .log_n = l});
    g.dispatch<PleFoldColumns>("fold", {.in = inb,
                                        .weights = w,
                                        .out = out,
                                        .log_height = log_height,
                                        .log_n = l,
                                        .shift = shift,
                                        .first_chunk = first,
                                        .log_chunks = log_chunks});
    auto p = run(g, [&](PreparedPlan& pp) {
      pp.upload(rb, std::vector<Fp4>{r});
      pp.upload(inb, in);
    });
    if (weights) *weights = p->download(w);
    return p->download(out);
  }
};
VKSTARK_INSTANTIATE_FOR_EXECUTORS(MleTables);

TEST_P(MleTables, WeightsAreTheLagrangeBasisOnD) {
  for (uint32_t L = 0; L <= 5; ++L) {
    const Fp4 r = ext_values(1, 20 + L)[0];
    std::vector<Fp4> w;
    (void)fold(std::vector<Fp>(size_t(1) << L), 1, L, L, 0, r, &w);
    const std::vector<Fp> roots = roots_of_unity(L);
    for (size_t i = 0; i < w.size(); ++i) ASSERT_EQ(w[i], eval_eq_uni(L, r, Fp4(roots[i]))) << "L " << L << " i " << i;
    // At a point of D the weights are an indicator.
    (void)fold(std::vector<Fp>(size_t(1) << L), 1, L, L, 0, Fp4(roots.back()), &w);
    for (size_t i = 0; i < w.size(); ++i) EXPECT_EQ(w[i], i + 1 == w.size() ? Fp4::one() : Fp4()) << "L " << L;
  }
}

// A row tile of the table (B chunks from `first`) is those chunks of the whole table.
TEST_P(MleTables, FoldOfARowTileIsThoseRowsOfTheTable) {
  const uint32_t cols = 3, l = 2, h = 6;
  const std::vector<Fp> in = field_values(cols << h, 5);
  const Fp4 r = ext_values(1, 6)[0];
  for (uint32_t shift : {0u, 1u}) {
    const std::vector<Fp4> whole = fold(in, cols, h, l, shift, r);
    const uint64_t X = 16;
    for (uint32_t b : {0u, 2u, 3u})
      for (uint32_t first : {0u, uint32_t(X - (1u << b))}) {
        const std::vector<Fp4> got = fold(in, cols, h, l, shift, r, nullptr, int(b), first);
        for (uint32_t c = 0; c < cols; ++c)
          for (uint64_t x = 0; x < (1u << b); ++x)
            ASSERT_EQ(got[c * (1u << b) + x], whole[c * X + first + x]) << "block 2^" << b << " from " << first;
      }
  }
}

// Chunks of 1 to 128 rows, fewer chunks than a CPU block holds and several blocks; on the CPU at
// every SIMD level the processor has.
TEST_P(MleTables, FoldIsEachChunksPleAtR0) {
  const SimdLevel saved = cpu_simd_level();
  for (SimdLevel level : {SimdLevel::Scalar, SimdLevel::Avx2, SimdLevel::Avx512}) {
    if (level > detected_simd_level() || (GetParam() != "cpu" && level != saved)) continue;
    set_cpu_simd_level(level);
    SCOPED_TRACE(std::string(to_string(level)));
    for (uint32_t l : {0u, 2u, 3u, 4u, 6u, 7u})
      for (uint32_t h : {0u, 1u, 3u, 6u, 9u})
        for (uint32_t shift : {0u, 1u}) {
          const uint32_t cols = 3;
          const std::vector<Fp> in = field_values(cols << h, 100 + h);
          const Fp4 r = ext_values(1, 7 + l)[0];
          const std::vector<Fp4> got = fold(in, cols, h, l, shift, r);
          const uint64_t H = uint64_t(1) << h, N = uint64_t(1) << l, X = h > l ? H / N : 1;
          ASSERT_EQ(got.size(), cols * X);
          for (uint32_t c = 0; c < cols; ++c)
            for (uint64_t x = 0; x < X; ++x) {
              // The chunk (rotated by shift, lifted by repetition) as a column of 2^l rows.
              std::vector<Fp> chunk(N);
              for (uint64_t i = 0; i < N; ++i) chunk[i] = in[c * H + ((x * N + i + shift) % H)];
              const Fp4 point[] = {r};
              ASSERT_EQ(got[c * X + x], eval_ple(chunk, l, point)) << "l " << l << " h " << h << " shift " << shift;
            }
        }
  }
  set_cpu_simd_level(saved);
}

// The model's column openings from the device tables: PLE fold at r_0, then fold at r_1 .. r_n.
TEST_P(MleTables, FoldedTablesAreTheModelsColumnOpenings) {
  for (uint32_t l : {2u, 4u}) {
    const std::vector<AirWithTraces> airs = mixture_fixture_standard(4);
    const SystemParams params = test_system_params_small(l, 6, 3);
    std::vector<std::shared_ptr<const Air>> list;
    std::vector<std::optional<uint32_t>> heights;
    for (const AirWithTraces& a : airs) {
      list.push_back(a.air);
      heights.push_back(uint32_t(std::countr_zero(a.common.height)));
    }
    const ProvingKey pk = keygen(list, params, exec());
    const ProofShape s = proof_shape(pk.vk, heights);
    ModelBatchInput in;
    in.pk = &pk;
    in.order = s.order;
    for (uint32_t a : s.order) {
      in.parts.push_back(airs[a].row_view_parts());
      in.public_values.push_back(airs[a].public_values);
    }
    in.row_start = s.logup.row_start;
    in.n_logup = s.logup.n_logup;
    DuplexSponge t;
    in.beta = t.sample_ext();
    for (uint32_t i = 0; i < l + std::max(s.batch.n_max, s.logup.n_logup); ++i) in.xi.push_back(t.sample_ext());
    const ModelBatchOutput out = model_batch_prove(t, in);

    for (size_t T = 0; T < s.order.size(); ++T) {
      const StarkVerifyingKey& vk = pk.vk.per_air[s.order[T]];
      const uint32_t h = heights[s.order[T]].value(), n = h > l ? h - l : 0;
      const std::vector<TraceMatrix>& parts = in.parts[T];
      for (size_t rv = 0; rv < parts.size(); ++rv) {
        // Row-view part rv (preprocessed?, cached..., common) -> opening part (common, preprocessed?,
        // cached...): the common main first, the others one later.
        const size_t opening_part = rv + 1 == parts.size() ? 0 : 1 + rv;
        for (uint32_t shift = 0; shift < (vk.params.need_rot ? 2u : 1u); ++shift) {
          std::vector<Fp4> table = fold(parts[rv].values.to_vector(), parts[rv].width, h, l, shift, out.r[0]);
          for (uint32_t j = 1; j <= n; ++j) {  // fold at r_j (pairs never cross a column: even lengths)
            std::vector<Fp4> next(table.size() / 2);
            for (size_t y = 0; y < next.size(); ++y)
              next[y] = table[2 * y] + out.r[j] * (table[2 * y + 1] - table[2 * y]);
            table = next;
          }
          ASSERT_EQ(table.size(), parts[rv].width);
          const std::vector<Fp4>& want = out.proof.column_openings[T][opening_part];
          const uint32_t stride = vk.params.need_rot ? 2 : 1;
          for (uint32_t c = 0; c < parts[rv].width; ++c)
            ASSERT_EQ(table[c], want[c * stride + shift])
                << "l " << l << " trace " << T << " part " << rv << " column " << c << " shift " << shift;
        }
      }
    }
  }
}

}  // namespace
