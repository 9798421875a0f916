// LogUp's GKR input layer on the device (stages/gkr/input.hpp, protocol.md 8.1-8.2): on both
// executors, the leaves of every interaction of every test AIR equal the leaves computed on the
// host from the trace rows with the plain DAG evaluator: p = count * 2^-max(l - h, 0) and
// q = alpha + sum_j beta^j message_j + beta^len (bus + 1), repeated over the slot of a trace shorter
// than 2^l_skip, at the slot's row_start; padding leaves (0, alpha). Heights below 2^l_skip (l = 4)
// and repeated message nodes are covered; the leaves' fractions sum to zero for balanced traces.
#include <gtest/gtest.h>

#include <bit>

#include "executors/executors.hpp"
#include "product/airs/test_airs.hpp"
#include "stages/air/eval.hpp"
#include "stages/gkr/input.hpp"
#include "tests/parity/executor_fixture.hpp"

using namespace vkstark;
using namespace vkstark::testing;

namespace {

struct Leaves {
  std::vector<Fp4> p, q;
};

// The leaves from the host evaluator (protocol.md 8.2).
Leaves host_leaves(const ProvingKey& pk, const std::vector<AirWithTraces>& airs, const ProofShape& s, uint32_t l,
                   Fp4 alpha, Fp4 beta) {
  const uint64_t n = uint64_t(1) << (l + s.logup.n_logup);
  Leaves out{std::vector<Fp4>(n), std::vector<Fp4>(n, alpha)};
  for (size_t T = 0; T < s.order.size(); ++T) {
    const AirWithTraces& a = airs[s.order[T]];
    const AirProvingKey& k = pk.per_air[s.order[T]];
    const std::vector<TraceMatrix> parts = a.row_view_parts();
    TraceRows rows(parts, a.public_values);
    const uint32_t h = a.common.height;
    const uint64_t slot = std::max<uint64_t>(h, uint64_t(1) << l);
    const Fp norm = Fp::from_canonical_unchecked(uint32_t(slot / h)).inverse();
    std::vector<Fp> values;
    for (uint32_t r = 0; r < h; ++r) {
      rows.set_row(r);
      eval_nodes(k.dag, k.shape, rows, values);
      for (size_t sigma = 0; sigma < k.dag.interactions.size(); ++sigma) {
        const DagInteraction& in = k.dag.interactions[sigma];
        Fp4 hv, bj = Fp4::one();
        for (uint32_t m : in.message) {
          hv += bj * values[m];
          bj *= beta;
        }
        hv += bj * Fp::from_canonical_unchecked(uint32_t(in.bus) + 1);
        for (uint64_t t = r; t < slot; t += h) {
          out.p[s.logup.row_start[T][sigma] + t] = Fp4(values[in.count] * norm);
          out.q[s.logup.row_start[T][sigma] + t] = alpha + hv;
        }
      }
    }
  }
  return out;
}

// One column a; sends (a, a, a a, 7) with count 1 and receives the same with count 1 - 2 = -1 on
// bus 3: repeated message nodes (one root standing for two positions) and a constant field.
class RepeatedFieldsAir final : public Air {
 public:
  std::string name() const override { return "repeated_fields"; }
  AirShape shape() const override { return {.common_width = 1}; }
  void eval(AirBuilder& b) const override {
    const Expr a = b.main().local(0);
    b.send(3, {a, a, a * a, Expr(7)}, Expr(1));
    b.receive(3, {a, a, a * a, Expr(7)}, Expr(1));
  }
};

std::vector<AirWithTraces> repeated_fields(uint32_t height) {
  AirWithTraces t;
  t.air = std::make_shared<RepeatedFieldsAir>();
  t.common = TraceMatrix(1, height);
  for (uint32_t r = 0; r < height; ++r) t.common.at(r, 0) = Fp::from_canonical_unchecked(3 * r + 1);
  return {t};
}

class LogupInput : public ExecutorTest {
 protected:
  // compact: the kernels of parts in pieces (make_interaction_kernels(.., compact)), over host
  // copies of the columns they read. Returns the columns of all parts and those read.
  std::pair<size_t, size_t> check(const std::vector<AirWithTraces>& airs, const SystemParams& params,
                                  bool compact = false) {
    std::vector<std::shared_ptr<const Air>> list;
    std::vector<std::optional<uint32_t>> heights;
    for (const AirWithTraces& a : airs) {
      list.push_back(a.air);
      heights.push_back(uint32_t(std::countr_zero(a.common.height)));
    }
    const ProvingKey pk = keygen(list, params, exec());
    const ProofShape s = proof_shape(pk.vk, heights);
    EXPECT_GT(s.logup.total_interactions, 0u);
    std::vector<std::shared_ptr<const InteractionKernels>> kernels;
    for (const AirProvingKey& k : pk.per_air) kernels.push_back(make_interaction_kernels(k, {}, compact));
    std::pair<size_t, size_t> columns{0, 0};

    Graph g;
    DeviceTranscript t(g, "transcript");
    auto challenges = g.input<Fp4>("challenges", 2);
    std::vector<LogupInputTrace> traces;
    std::vector<std::pair<Buffer<Fp>, std::vector<Fp>>> uploads;
    for (size_t T = 0; T < s.order.size(); ++T) {
      const AirWithTraces& a = airs[s.order[T]];
      LogupInputTrace tr;
      tr.kernels = kernels[s.order[T]].get();
      tr.log_height = uint32_t(std::countr_zero(a.common.height));
      size_t p = 0;
      for (const TraceMatrix& m : a.row_view_parts()) {
        std::vector<Fp> values = m.values.to_vector();
        if (compact) {  // the columns the kernels read, one after another (column-major)
          const std::vector<uint32_t>& cols = tr.kernels->columns.at(p);
          EXPECT_TRUE(std::is_sorted(cols.begin(), cols.end()));
          columns.first += m.width;
          columns.second += cols.size();
          std::vector<Fp> picked;
          for (uint32_t c : cols) {
            EXPECT_LT(c, m.width);
            picked.insert(picked.end(), values.begin() + uint64_t(c) * m.height,
                          values.begin() + uint64_t(c + 1) * m.height);
          }
          values = std::move(picked);
        }
        auto b = g.input<Fp>(fmt::format("t{}.part{}", T, p++), values.size());
        uploads.push_back({b, std::move(values)});
        tr.parts.push_back(b.all());
      }
      if (!a.public_values.empty()) {
        auto b = g.input<Fp>(fmt::format("t{}.pvs", T), a.public_values.size());
        uploads.push_back({b, a.public_values});
        tr.public_values = b.all();
      }
      traces.push_back(std::move(tr));
    }
    const uint64_t n = uint64_t(1) << (params.l_skip + s.logup.n_logup);
    auto p = g.output<Fp4>("p", n), q = g.output<Fp4>("q", n);
    add_logup_input_layer(g, t, traces, s.logup, params.l_skip, challenges.slice(0, 1), challenges.slice(1, 1), p.all(),
                          q.all());
    const std::vector<Fp4> ch = ext_values(2, 7);
    auto plan = run(g, [&](PreparedPlan& pp) {
      pp.upload(challenges, ch);
      for (const auto& [b, v] : uploads) pp.upload(b, v);
    });
    const Leaves want = host_leaves(pk, airs, s, params.l_skip, ch[0], ch[1]);
    const std::vector<Fp4> got_p = plan->download(p), got_q = plan->download(q);
    for (uint64_t i = 0; i < n; ++i) {
      EXPECT_EQ(got_p[i], want.p[i]) << "leaf " << i;
      EXPECT_EQ(got_q[i], want.q[i]) << "leaf " << i;
      if (got_p[i] != want.p[i] || got_q[i] != want.q[i]) return columns;
    }
    // Balanced interactions: sum p / q = 0.
    std::vector<Fp4> inv = got_q;
    batch_inverse(inv);
    Fp4 sum;
    for (uint64_t i = 0; i < n; ++i) sum += got_p[i] * inv[i];
    EXPECT_TRUE(sum.is_zero());
    return columns;
  }
};
VKSTARK_INSTANTIATE_FOR_EXECUTORS(LogupInput);

TEST_P(LogupInput, InteractionsFixtureLeavesMatchTheHost) {
  for (uint32_t l : {2u, 4u}) check(interactions_fixture_11(), test_system_params_small(l, 6, 3));
}

TEST_P(LogupInput, CachedAndSelfInteractionLeavesMatchTheHost) {
  check(cached_fixture_11(), test_system_params_small(2, 6, 3));
  const uint32_t widths[] = {2, 5};
  check(self_interaction_fixture(widths, 3, 5), test_system_params_small(2, 6, 3));
}

TEST_P(LogupInput, RepeatedMessageNodesShareOneRoot) {
  check(repeated_fields(8), test_system_params_small(2, 6, 3));
  check(repeated_fields(2), test_system_params_small(2, 6, 3));  // shorter than 2^l_skip
}

TEST_P(LogupInput, MixtureLeavesMatchTheHost) { check(mixture_fixture_standard(3), test_system_params_small(4, 6, 3)); }

// The compact kernels (for parts in pieces of their commitment) read only the columns some
// interaction reads, copied one after another: the same leaves; the mixture's AIRs read few of theirs.
TEST_P(LogupInput, CompactKernelsOverTheColumnsTheyReadGiveTheSameLeaves) {
  const auto [all, read] = check(mixture_fixture_standard(3), test_system_params_small(4, 6, 3), true);
  EXPECT_LT(read, all) << "no AIR of the mixture leaves a column unread";
  check(interactions_fixture_11(), test_system_params_small(2, 6, 3), true);
  const uint32_t widths[] = {2, 5};
  check(self_interaction_fixture(widths, 3, 5), test_system_params_small(2, 6, 3), true);
  check(repeated_fields(2), test_system_params_small(2, 6, 3), true);
}

}  // namespace
