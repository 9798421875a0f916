// Specifies keygen and the verifying key (protocol.md 4.4-4.6): the Fibonacci AIR's vk field by
// field, every keygen rejection with its message, the postcard encoding of a hand-made vk byte by
// byte (the expected bytes are written out from the rules of 4.6, not produced by the encoder),
// the pre-hash, the vk file round trip, hostile encodings (truncations, mutations, huge lengths),
// and a preprocessed AIR whose commitment equals stacked_commit's on the CPU executor.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <bit>
#include <functional>
#include <random>

#include "executors/executors.hpp"
#include "kernels/basic.hpp"
#include "product/airs/fibonacci.hpp"
#include "runtime/error.hpp"
#include "stages/air/keygen.hpp"
#include "stages/common/ntt.hpp"
#include "stages/encoding/codec.hpp"
#include "stages/pcs/stacked.hpp"

using namespace vkstark;

namespace {

Executor& cpu() {
  static std::unique_ptr<Executor> e = make_executor("cpu");
  return *e;
}

// An AIR made of a shape, an eval function and an optional preprocessed trace.
class TestAir final : public Air {
 public:
  TestAir(std::string name, AirShape shape, std::function<void(AirBuilder&)> eval,
          std::optional<TraceMatrix> preprocessed = std::nullopt)
      : name_(std::move(name)), shape_(std::move(shape)), eval_(std::move(eval)), prep_(std::move(preprocessed)) {}
  std::string name() const override { return name_; }
  AirShape shape() const override { return shape_; }
  void eval(AirBuilder& b) const override { eval_(b); }
  std::optional<TraceMatrix> preprocessed_trace() const override { return prep_; }

 private:
  std::string name_;
  AirShape shape_;
  std::function<void(AirBuilder&)> eval_;
  std::optional<TraceMatrix> prep_;
};

ProvingKey keygen_all(std::vector<std::shared_ptr<const Air>> airs, const SystemParams& params) {
  return keygen(airs, params, cpu());
}
ProvingKey keygen_of(std::shared_ptr<const Air> air, const SystemParams& params = default_test_params_small()) {
  return keygen_all({std::move(air)}, params);
}

// The message of the InputError keygen throws (fails the test if it throws none or another type).
std::string keygen_error(std::shared_ptr<const Air> air, const SystemParams& params = default_test_params_small()) {
  try {
    keygen_of(std::move(air), params);
  } catch (const DecodeError& e) {
    return std::string("unexpected DecodeError: ") + e.what();
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

std::string decode_error(std::span<const uint8_t> bytes) {
  try {
    decode_vk_postcard(bytes);
  } catch (const DecodeError& e) {
    return e.what();
  }
  return "no error";
}

std::shared_ptr<const Air> air_with(AirShape shape, std::function<void(AirBuilder&)> eval, std::string name = "test") {
  return std::make_shared<TestAir>(std::move(name), std::move(shape), std::move(eval));
}

Expr var(EntryKind entry, uint32_t part, uint32_t offset, uint32_t index) {
  return Expr::variable({entry, part, offset, index});
}

std::vector<uint8_t> cat(std::initializer_list<std::vector<uint8_t>> parts) {
  std::vector<uint8_t> out;
  for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

// A one-column preprocessed selector s and two main columns (a, b): s * (a - b) = 0 and, on
// transitions, next a = a + s.
TraceMatrix selector_trace(uint32_t height) {
  TraceMatrix t(1, height);
  for (uint32_t r = 0; r < height; ++r) t.at(r, 0) = Fp::from_canonical(r % 3 == 0 ? 1 : 0);
  return t;
}
std::shared_ptr<const Air> preprocessed_air(uint32_t height) {
  return std::make_shared<TestAir>(
      "selector", AirShape{.preprocessed_width = 1, .common_width = 2},
      [](AirBuilder& b) {
        const Window p = b.preprocessed(), m = b.main();
        b.assert_zero(p.local(0) * (m.local(0) - m.local(1)));
        b.when_transition().assert_eq(m.next(0), m.local(0) + p.local(0));
      },
      selector_trace(height));
}

}  // namespace

// ------------------------------------------------------------------------------------------------
// The Fibonacci AIR's verifying key.

TEST(Keygen, FibonacciVerifyingKeyFields) {
  const SystemParams params = default_test_params_small();
  ProvingKey pk = keygen_of(std::make_shared<FibonacciAir>(), params);
  ASSERT_EQ(pk.per_air.size(), 1u);
  ASSERT_EQ(pk.vk.per_air.size(), 1u);
  EXPECT_EQ(pk.vk.params, params);
  const StarkVerifyingKey& vk = pk.vk.per_air[0];
  EXPECT_FALSE(vk.preprocessed_data.has_value());
  EXPECT_FALSE(vk.params.width.preprocessed.has_value());
  EXPECT_TRUE(vk.params.width.cached_mains.empty());
  EXPECT_EQ(vk.params.width.common_main, 2u);
  EXPECT_EQ(vk.params.num_public_values, 3u);
  EXPECT_TRUE(vk.params.need_rot);
  EXPECT_EQ(vk.max_constraint_degree, 2);
  EXPECT_FALSE(vk.is_required);
  // Both columns are read at offsets 0 and 1: nothing unused.
  EXPECT_TRUE(vk.unused_variables.empty());
  // Constraint 0: is_first_row, left, a, left - a, product (nodes 0-4); 1: right, b, right - b,
  // product (5-8); 2: is_transition, next[0], right - next[0], product (9-12); 3: left + right,
  // next[1], difference, product (13-16); 4: is_last_row, x, right - x, product (17-20).
  EXPECT_EQ(vk.symbolic_constraints.nodes.size(), 21u);
  EXPECT_EQ(vk.symbolic_constraints.constraint_idx, (std::vector<uint32_t>{4, 8, 12, 16, 20}));
  EXPECT_TRUE(vk.symbolic_constraints.interactions.empty());
  // No interactions: no bus constraint, only the global one, with coefficient 0.
  ASSERT_EQ(pk.vk.trace_height_constraints.size(), 1u);
  EXPECT_EQ(pk.vk.trace_height_constraints[0].coefficients, (std::vector<uint32_t>{0}));
  EXPECT_EQ(pk.vk.trace_height_constraints[0].threshold, params.logup.max_interaction_count);
  // The proving key carries the same DAG and no preprocessed data.
  EXPECT_EQ(pk.per_air[0].name, "fibonacci");
  EXPECT_EQ(pk.per_air[0].dag, vk.symbolic_constraints);
  EXPECT_EQ(pk.per_air[0].symbolic.constraints.size(), 5u);
  EXPECT_FALSE(pk.per_air[0].preprocessed_trace.has_value());
  EXPECT_FALSE(pk.per_air[0].preprocessed_root.has_value());
  EXPECT_EQ(pk.vk.pre_hash, vk_pre_hash(encode_vk_postcard(pk.vk)));
}

TEST(Keygen, UnusedVariablesFollowTheReferenceOrder) {
  // Widths: preprocessed 2, cached [1], common 3. Reads: preprocessed[1] local, cached col 0 next,
  // common col 2 local and next. need_rot (a next-row read exists), so offset-1 entries are listed.
  TraceMatrix prep(2, 4);
  auto air = std::make_shared<TestAir>(
      "unused", AirShape{.preprocessed_width = 2, .cached_widths = {1}, .common_width = 3},
      [](AirBuilder& b) {
        b.assert_zero(b.preprocessed().local(1) * b.cached(0).next(0) + b.main().local(2) - b.main().next(2));
      },
      prep);
  const StarkVerifyingKey vk = keygen_of(air).vk.per_air[0];
  using E = EntryKind;
  const std::vector<Variable> want = {
      {E::Preprocessed, 0, 0, 0}, {E::Preprocessed, 0, 1, 0}, {E::Preprocessed, 0, 1, 1},  // preprocessed
      {E::Main, 0, 0, 0},                                                                  // cached part 0
      {E::Main, 1, 0, 0},         {E::Main, 1, 1, 0},         {E::Main, 1, 0, 1},
      {E::Main, 1, 1, 1},  // common main (part 1), column 2 fully read
  };
  EXPECT_EQ(vk.unused_variables, want);
  // Without a next-row read only offset-0 variables are listed.
  auto local_only = air_with({.common_width = 3}, [](AirBuilder& b) { b.assert_zero(b.main().local(1)); });
  const StarkVerifyingKey vk2 = keygen_of(local_only).vk.per_air[0];
  EXPECT_FALSE(vk2.params.need_rot);
  EXPECT_EQ(vk2.unused_variables, (std::vector<Variable>{{E::Main, 0, 0, 0}, {E::Main, 0, 0, 2}}));
}

TEST(Keygen, TraceHeightConstraintsPerBusThenGlobalAndMinimised) {
  // AIR 0: bus 7 weight 2 and weight 3, bus 2 weight 1. AIR 1: bus 2 weight 4.
  auto a0 = air_with({.common_width = 1}, [](AirBuilder& b) {
    const Expr x = b.main().local(0);
    b.push_interaction(7, {x}, x, 2);
    b.push_interaction(7, {x, x}, x, 3);
    b.push_interaction(2, {x}, x, 1);
  });
  auto a1 =
      air_with({.common_width = 1}, [](AirBuilder& b) { b.push_interaction(2, {b.main().local(0)}, Expr(1), 4); });
  SystemParams params = default_test_params_small();
  ProvingKey pk = keygen_all({a0, a1}, params);
  // bus 2: [1, 4] p; bus 7: [5, 0] p; global: [3, 1] 2^30. Nothing is implied by another: the
  // global's threshold is lower than p, and [1, 4] has the largest second coefficient.
  const std::vector<LinearConstraint> want = {
      {{1, 4}, Fp::P}, {{5, 0}, Fp::P}, {{3, 1}, params.logup.max_interaction_count}};
  EXPECT_EQ(pk.vk.trace_height_constraints, want);
  params.logup.max_interaction_count = UINT32_MAX;
  auto a2 = air_with({.common_width = 1}, [](AirBuilder& b) {
    const Expr x = b.main().local(0);
    b.push_interaction(1, {x}, x, 1);
    b.push_interaction(1, {x}, x, 1);
  });
  // bus 1: [2] p, then global: [2] 2^32 - 1, implied by bus 1's (a threshold >= p, the same
  // coefficient): dropped.
  EXPECT_EQ(keygen_of(a2, params).vk.trace_height_constraints, (std::vector<LinearConstraint>{{{2}, Fp::P}}));
  params.logup.max_interaction_count = 1000;
  // Now global [2] 1000 implies bus 1's [2] p, which is removed when the global one is added.
  EXPECT_EQ(keygen_of(a2, params).vk.trace_height_constraints, (std::vector<LinearConstraint>{{{2}, 1000}}));
}

TEST(Keygen, RegistersEveryAirAsNotRequiredInOrder) {
  ProvingKey pk = keygen_all({std::make_shared<FibonacciAir>(), preprocessed_air(8)}, default_test_params_small());
  ASSERT_EQ(pk.per_air.size(), 2u);
  EXPECT_EQ(pk.per_air[0].name, "fibonacci");
  EXPECT_EQ(pk.per_air[1].name, "selector");
  for (const auto& k : pk.vk.per_air) EXPECT_FALSE(k.is_required);
}

// ------------------------------------------------------------------------------------------------
// Keygen errors: InputError naming the AIR and the constraint, interaction or column.

TEST(KeygenErrors, DegreeAboveTheParamsNamesTheConstraintAndItsExpression) {
  SystemParams params = default_test_params_small();
  params.max_constraint_degree = 1;
  EXPECT_EQ(keygen_error(std::make_shared<FibonacciAir>(), params),
            "AIR fibonacci: constraint 0 has degree 2, above params.max_constraint_degree = 1: "
            "is_first_row * (main[0][0] - public[0])");
  // Degrees are those of the trees: x * y * 0 has degree 2 though it folds to 0.
  auto folded = air_with({.common_width = 2}, [](AirBuilder& b) {
    b.assert_zero(b.main().local(0));
    b.assert_zero(b.main().local(0) * b.main().local(1) * Expr(0));
  });
  EXPECT_EQ(
      keygen_error(folded, params),
      "AIR test: constraint 1 has degree 2, above params.max_constraint_degree = 1: (main[0][0] * main[0][1]) * 0");
  auto count = air_with({.common_width = 2}, [](AirBuilder& b) {
    const Window m = b.main();
    b.push_interaction(3, {m.local(0)}, m.local(0) * m.local(1));
  });
  EXPECT_EQ(keygen_error(count, params),
            "AIR test: interaction 0 (bus 3) count has degree 2, above params.max_constraint_degree = 1: "
            "main[0][0] * main[0][1]");
  auto field = air_with({.common_width = 2}, [](AirBuilder& b) {
    const Window m = b.main();
    b.push_interaction(3, {m.local(0), m.local(1) * m.local(1)}, Expr(1));
  });
  EXPECT_EQ(keygen_error(field, params),
            "AIR test: interaction 0 (bus 3) message field 1 has degree 2, above params.max_constraint_degree = 1: "
            "main[0][1] * main[0][1]");
}

TEST(KeygenErrors, ZeroCommonMainWidth) {
  auto air =
      air_with({.cached_widths = {2}, .common_width = 0}, [](AirBuilder& b) { b.assert_zero(b.cached(0).local(0)); });
  EXPECT_EQ(keygen_error(air),
            "AIR test: the common main width is 0 (every AIR needs a common main part), even with 1 cached parts");
}

TEST(KeygenErrors, ZeroCachedPartWidth) {
  auto air = air_with({.cached_widths = {2, 0}, .common_width = 1},
                      [](AirBuilder& b) { b.assert_zero(b.cached(0).local(0)); });
  EXPECT_EQ(keygen_error(air), "AIR test: cached part 1 has width 0 (nothing to commit)");
}

TEST(KeygenErrors, NoConstraintsAndNoInteractions) {
  EXPECT_EQ(keygen_error(air_with({.common_width = 1}, [](AirBuilder&) {})),
            "AIR test: no constraints and no interactions");
}

TEST(KeygenErrors, EmptyInteractionMessage) {
  auto air = air_with({.common_width = 1}, [](AirBuilder& b) {
    b.send(4, {b.main().local(0)}, Expr(1));
    b.send(5, {}, Expr(1));
  });
  EXPECT_EQ(keygen_error(air), "AIR test: interaction 1 (bus 5) has an empty message");
}

TEST(KeygenErrors, MessageLengthPlusOneAboveTheMaximum) {
  // log_max_message_length = 7: with the bus, at most 128 fields in all.
  auto air_of = [](size_t len) {
    return air_with({.common_width = 1},
                    [len](AirBuilder& b) { b.send(9, std::vector<Expr>(len, b.main().local(0)), Expr(1)); });
  };
  EXPECT_NO_THROW(keygen_of(air_of(127)));
  EXPECT_EQ(keygen_error(air_of(128)),
            "AIR test: interaction 0 (bus 9) has a message of 128 fields; with the bus, 129 > 2^7 "
            "(params.logup.log_max_message_length)");
}

TEST(KeygenErrors, VariablesOutsideTheShape) {
  const AirShape shape{.cached_widths = {3}, .common_width = 2, .num_public_values = 1};
  auto reading = [&](Expr v) {
    return air_with(shape, [v](AirBuilder& b) {
      b.assert_zero(b.main().local(0));
      b.when_first_row().assert_zero(v - b.main().local(1));
    });
  };
  EXPECT_EQ(keygen_error(reading(var(EntryKind::Main, 1, 0, 5))),
            "AIR test: constraint 1 (is_first_row * (main[1][5] - main[1][1])) reads main[1][5]: column 5 is past the "
            "width 2 of the common main (part 1)");
  EXPECT_EQ(keygen_error(reading(var(EntryKind::Main, 0, 1, 3))),
            "AIR test: constraint 1 (is_first_row * (main[0].next[3] - main[1][1])) reads main[0].next[3]: column 3 is "
            "past the width 3 of cached part 0");
  EXPECT_EQ(keygen_error(reading(var(EntryKind::Main, 2, 0, 0))),
            "AIR test: constraint 1 (is_first_row * (main[2][0] - main[1][1])) reads main[2][0]: main part 2 does not "
            "exist (the AIR has 1 cached parts, so the common main is part 1)");
  EXPECT_EQ(keygen_error(reading(var(EntryKind::Main, 1, 2, 0))),
            "AIR test: constraint 1 (is_first_row * (main[1].next[0] - main[1][1])) reads main[1].next[0]: row offset "
            "2; only 0 (local) and 1 (next) exist");
  EXPECT_EQ(keygen_error(reading(var(EntryKind::Preprocessed, 0, 0, 0))),
            "AIR test: constraint 1 (is_first_row * (preprocessed[0] - main[1][1])) reads preprocessed[0]: the AIR "
            "has no preprocessed part");
  EXPECT_EQ(keygen_error(reading(var(EntryKind::Preprocessed, 4, 0, 0))),
            "AIR test: constraint 1 (is_first_row * (preprocessed[0] - main[1][1])) reads preprocessed[0]: a "
            "preprocessed variable with part 4 (only main variables have one)");
  EXPECT_EQ(keygen_error(reading(var(EntryKind::Public, 0, 0, 1))),
            "AIR test: constraint 1 (is_first_row * (public[1] - main[1][1])) reads public[1]: public value 1 is past "
            "the 1 public values");
  EXPECT_EQ(keygen_error(reading(var(EntryKind::Public, 0, 1, 0))),
            "AIR test: constraint 1 (is_first_row * (public[0] - main[1][1])) reads public[0]: a public-value "
            "variable with part 0 and row offset 1 (public values have neither)");
  // A variable only in a subexpression the DAG folds away (x * 0) is still a DAG node.
  auto folded = air_with(
      shape, [](AirBuilder& b) { b.assert_zero(b.main().local(0) + var(EntryKind::Main, 1, 0, 9) * Expr(0)); });
  EXPECT_EQ(keygen_error(folded),
            "AIR test: constraint 0 (main[1][0] + (main[1][9] * 0)) reads main[1][9]: column 9 is past the width 2 of "
            "the common main (part 1)");
  // In an interaction.
  auto in_message = air_with(shape, [](AirBuilder& b) {
    b.send(1, {b.main().local(0), var(EntryKind::Main, 0, 0, 7)}, Expr(1));
  });
  EXPECT_EQ(keygen_error(in_message),
            "AIR test: interaction 0 (bus 1) message field 1 (main[0][7]) reads main[0][7]: column 7 is past the width "
            "3 of cached part 0");
  // Reads through a Window are checked by the builder already.
  EXPECT_EQ(keygen_error(air_with(shape, [](AirBuilder& b) { b.assert_zero(b.main().local(2)); })),
            "AIR test: main part 1: column 2 is past the width 2");
}

TEST(KeygenErrors, ChallengeVariablesAreNotSupported) {
  auto air = air_with({.common_width = 1},
                      [](AirBuilder& b) { b.assert_zero(b.main().local(0) * var(EntryKind::Challenge, 0, 0, 0)); });
  EXPECT_EQ(keygen_error(air),
            "AIR test: constraint 0 (main[0][0] * challenge[0]) reads challenge[0]: challenge variables are not "
            "supported");
}

TEST(KeygenErrors, PreprocessedTraceMustMatchTheShape) {
  auto with_trace = [](uint32_t declared_width, std::optional<TraceMatrix> t) {
    return std::make_shared<TestAir>(
        "prep", AirShape{.preprocessed_width = declared_width, .common_width = 1},
        [](AirBuilder& b) { b.assert_zero(b.main().local(0)); }, std::move(t));
  };
  EXPECT_EQ(keygen_error(with_trace(2, TraceMatrix(1, 4))),
            "AIR prep: the preprocessed trace has 1 columns, the shape declares 2");
  EXPECT_EQ(keygen_error(with_trace(1, TraceMatrix(1, 6))),
            "AIR prep: the preprocessed trace height 6 is not a power of two");
  EXPECT_EQ(keygen_error(with_trace(1, TraceMatrix(1, 0))),
            "AIR prep: the preprocessed trace height 0 is not a power of two");
  EXPECT_EQ(keygen_error(with_trace(1, std::nullopt)),
            "AIR prep: the shape declares a preprocessed part of width 1 but preprocessed_trace() returns none");
  EXPECT_EQ(keygen_error(with_trace(0, TraceMatrix(1, 4))),
            "AIR prep: preprocessed_trace() returns a trace but the shape declares no preprocessed part "
            "(preprocessed_width 0)");
  TraceMatrix short_values(1, 4);
  short_values.values.pop_back();
  EXPECT_EQ(keygen_error(with_trace(1, short_values)),
            "AIR prep: the preprocessed trace holds 3 values, not 1 columns x 4 rows");
  // default_test_params_small: stacked height 2^10.
  EXPECT_EQ(keygen_error(with_trace(1, TraceMatrix(1, 1u << 11))),
            "AIR prep: the preprocessed trace height 2^11 exceeds the stacked height 2^(l_skip + n_stack) = 2^10");
}

TEST(KeygenErrors, MorePartsThanAKernelReads) {
  AirShape shape{
      .preprocessed_width = 1, .cached_widths = std::vector<uint32_t>(kMaxViewArray - 1, 1), .common_width = 1};
  auto air = std::make_shared<TestAir>(
      "wide", shape, [](AirBuilder& b) { b.assert_zero(b.main().local(0)); }, TraceMatrix(1, 4));
  EXPECT_EQ(keygen_error(air),
            fmt::format("AIR wide: {} trace parts (1 preprocessed, {} cached, 1 common main), more than the {} a "
                        "constraint kernel reads",
                        kMaxViewArray + 1, kMaxViewArray - 1, kMaxViewArray));
  shape.preprocessed_width = 0;  // exactly kMaxViewArray parts
  EXPECT_NO_THROW(keygen_of(air_with(shape, [](AirBuilder& b) { b.assert_zero(b.main().local(0)); })));
}

TEST(KeygenErrors, ParamsThatFailValidation) {
  SystemParams params = default_test_params_small();
  params.whir.rounds.clear();
  const std::string msg = keygen_error(std::make_shared<FibonacciAir>(), params);
  EXPECT_EQ(msg.rfind("params: whir.rounds is empty", 0), 0u) << msg;
  params = default_test_params_small();
  params.log_blowup = 0;
  EXPECT_EQ(keygen_error(std::make_shared<FibonacciAir>(), params), "params: log_blowup = 0 is outside 1..4");
}

TEST(KeygenErrors, CountWeightsOverflowingATraceHeightCoefficient) {
  auto air = air_with({.common_width = 1}, [](AirBuilder& b) {
    const Expr x = b.main().local(0);
    b.push_interaction(6, {x}, x, 1u << 31);
    b.push_interaction(5, {x}, x, 1u << 31);
    b.push_interaction(6, {x}, x, 1u << 31);
  });
  EXPECT_EQ(keygen_error(air),
            "AIR test: the count weights of its interactions on bus 6 sum to more than 2^32 - 1 at interaction 2, the "
            "largest trace-height coefficient (protocol.md 4.5)");
}

TEST(KeygenErrors, NoAirOrANullAir) {
  EXPECT_THROW(keygen_all({}, default_test_params_small()), InputError);
  try {
    keygen_all({std::make_shared<FibonacciAir>(), nullptr}, default_test_params_small());
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "keygen: AIR 1 is null");
  }
}

// ------------------------------------------------------------------------------------------------
// Postcard encoding of a hand-made vk, byte by byte (protocol.md 4.6).
//
// Montgomery forms (R = 2^32): mont(1) = R mod p = 268435454 = 0x0FFFFFFE, LEB128 FE FF FF 7F;
// mont(p - 1) = p - R mod p = 0x68000003, LEB128 83 80 80 C0 06; p = 0x78000001 as a plain varint
// is 81 80 80 C0 07; 2^30 is 80 80 80 80 04; 4096 is 80 20; 300 is AC 02.

namespace {

SystemParams hand_params() {
  SystemParams p;
  p.l_skip = 2;
  p.n_stack = 8;
  p.w_stack = 4096;
  p.log_blowup = 1;
  p.whir.k = 3;
  p.whir.rounds = {{10}, {4}, {2}};
  p.whir.mu_pow_bits = 3;
  p.whir.query_phase_pow_bits = 1;
  p.whir.folding_pow_bits = 2;
  p.whir.proximity = {WhirProximity::Kind::SplitUniqueList, 3, 1};
  p.logup = {1u << 30, 7, 2};
  p.max_constraint_degree = 3;
  return p;
}

DagNode leaf(NodeKind k) {
  DagNode n;
  n.kind = k;
  return n;
}
DagNode variable_node(Variable v) {
  DagNode n;
  n.kind = NodeKind::Variable;
  n.var = v;
  return n;
}
DagNode constant_node(Fp c) {
  DagNode n;
  n.kind = NodeKind::Constant;
  n.constant = c;
  return n;
}
DagNode op(NodeKind k, uint32_t l, uint32_t r, uint32_t degree) {
  DagNode n;
  n.kind = k;
  n.left = l;
  n.right = r;
  n.degree = degree;
  return n;
}

// AIR 0: preprocessed (width 1, a height-1 trace: hypercube_dim -2), cached [1], common 2, one
// public value; every node kind; interactions on buses 300 and 5. AIR 1: common 1, bus 5.
MultiStarkVerifyingKey hand_vk() {
  using E = EntryKind;
  using K = NodeKind;
  MultiStarkVerifyingKey vk;
  vk.params = hand_params();
  StarkVerifyingKey a;
  Digest commit{};
  commit[0] = Fp::one();
  commit[7] = -Fp::one();
  a.preprocessed_data = PreprocessedVerifierData{commit, -2, 1};
  a.params = {{1, {1}, 2}, 1, true};
  a.symbolic_constraints.nodes = {
      variable_node({E::Preprocessed, 0, 0, 0}),  // 0
      variable_node({E::Main, 1, 1, 1}),          // 1: common main, next row
      op(K::Mul, 0, 1, 2),                        // 2
      constant_node(Fp::one()),                   // 3
      leaf(K::IsFirstRow),                        // 4
      variable_node({E::Public, 0, 0, 0}),        // 5
      op(K::Sub, 1, 5, 1),                        // 6
      op(K::Mul, 4, 6, 2),                        // 7
      op(K::Neg, 0, 0, 1),                        // 8
      op(K::Add, 2, 3, 2),                        // 9
      leaf(K::IsLastRow),                         // 10
      leaf(K::IsTransition),                      // 11
      variable_node({E::Main, 0, 0, 0}),          // 12: cached part 0
      op(K::Mul, 11, 12, 2),                      // 13
  };
  a.symbolic_constraints.constraint_idx = {7, 9, 13};
  a.symbolic_constraints.interactions = {{{8, 3}, 10, 300, 2}, {{12}, 4, 5, 1}};
  a.max_constraint_degree = 2;
  a.is_required = false;
  a.unused_variables = {
      {E::Preprocessed, 0, 1, 0}, {E::Main, 0, 1, 0}, {E::Main, 1, 0, 0}, {E::Main, 1, 1, 0}, {E::Main, 1, 0, 1}};
  StarkVerifyingKey b;
  b.params = {{std::nullopt, {}, 1}, 0, false};
  b.symbolic_constraints.nodes = {variable_node({E::Main, 0, 0, 0}), op(K::Mul, 0, 0, 2), op(K::Sub, 1, 0, 2)};
  b.symbolic_constraints.constraint_idx = {2};
  b.symbolic_constraints.interactions = {{{0}, 0, 5, 3}};
  b.max_constraint_degree = 2;
  vk.per_air = {a, b};
  // bus 5: [1, 3] p; bus 300: [2, 0] p; global [2, 1] 2^30. The global one implies bus 300's
  // (2^30 <= p, 2 <= 2, 0 <= 1) and removes it; bus 5's stays (3 > 1).
  vk.trace_height_constraints = {{{1, 3}, Fp::P}, {{2, 1}, 1u << 30}};
  return vk;
}

const std::vector<uint8_t> kParamsBytes = {
    0x02,                          // l_skip
    0x08,                          // n_stack
    0x80, 0x20,                    // w_stack 4096
    0x01,                          // log_blowup
    0x03,                          // whir.k
    0x03, 0x0A, 0x04, 0x02,        // rounds: length 3, num_queries 10, 4, 2
    0x03,                          // mu_pow_bits
    0x01,                          // query_phase_pow_bits
    0x02,                          // folding_pow_bits
    0x01, 0x03, 0x01,              // proximity: SplitUniqueList (1) { m 3, list_start_round 1 }
    0x80, 0x80, 0x80, 0x80, 0x04,  // logup.max_interaction_count 2^30
    0x07,                          // logup.log_max_message_length
    0x02,                          // logup.pow_bits
    0x03,                          // max_constraint_degree
};
const std::vector<uint8_t> kAir0Head = {
    0x01,                                // preprocessed_data: Some
    0xFE, 0xFF, 0xFF, 0x7F,              //   commit[0] = 1 (Montgomery)
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  //   commit[1..7] = 0
    0x83, 0x80, 0x80, 0xC0, 0x06,        //   commit[7] = p - 1 (Montgomery)
    0x03,                                //   hypercube_dim -2, zig-zag 3
    0x01,                                //   stacking_width
    0x01, 0x01,                          // width.preprocessed: Some(1)
    0x01, 0x01,                          // width.cached_mains [1]
    0x02,                                // width.common_main
    0x01,                                // num_public_values
    0x01,                                // need_rot
    0x0E,                                // nodes: 14
};
const std::vector<uint8_t> kAir0Nodes = {
    0x00, 0x00, 0x00, 0x00,        // 0 Variable, Preprocessed{offset 0}, index 0
    0x00, 0x01, 0x01, 0x01, 0x01,  // 1 Variable, Main{part 1, offset 1}, index 1
    0x08, 0x00, 0x01, 0x02,        // 2 Mul{0, 1, degree 2}
    0x04, 0xFE, 0xFF, 0xFF, 0x7F,  // 3 Constant(1)
    0x01,                          // 4 IsFirstRow
    0x00, 0x02, 0x00,              // 5 Variable, Public, index 0
    0x06, 0x01, 0x05, 0x01,        // 6 Sub{1, 5, 1}
    0x08, 0x04, 0x06, 0x02,        // 7 Mul{4, 6, 2}
    0x07, 0x00, 0x01,              // 8 Neg{0, 1}
    0x05, 0x02, 0x03, 0x02,        // 9 Add{2, 3, 2}
    0x02,                          // 10 IsLastRow
    0x03,                          // 11 IsTransition
    0x00, 0x01, 0x00, 0x00, 0x00,  // 12 Variable, Main{part 0, offset 0}, index 0
    0x08, 0x0B, 0x0C, 0x02,        // 13 Mul{11, 12, 2}
};
const std::vector<uint8_t> kAir0Tail = {
    0x03, 0x07, 0x09, 0x0D,                    // constraint_idx [7, 9, 13]
    0x02,                                      // interactions: 2
    0x02, 0x08, 0x03, 0x0A, 0xAC, 0x02, 0x02,  //   message [8, 3], count 10, bus 300, count_weight 2
    0x01, 0x0C, 0x04, 0x05, 0x01,              //   message [12], count 4, bus 5, count_weight 1
    0x02,                                      // max_constraint_degree (u8)
    0x00,                                      // is_required
    0x05,                                      // unused_variables: 5
    0x00, 0x01, 0x00,                          //   Preprocessed{offset 1}, index 0
    0x01, 0x00, 0x01, 0x00,                    //   Main{0, 1}, 0
    0x01, 0x01, 0x00, 0x00,                    //   Main{1, 0}, 0
    0x01, 0x01, 0x01, 0x00,                    //   Main{1, 1}, 0
    0x01, 0x01, 0x00, 0x01,                    //   Main{1, 0}, 1
};
const std::vector<uint8_t> kAir1 = {
    0x00,                                // preprocessed_data: None
    0x00,                                // width.preprocessed: None
    0x00,                                // width.cached_mains []
    0x01,                                // width.common_main
    0x00,                                // num_public_values
    0x00,                                // need_rot
    0x03,                                // nodes: 3
    0x00, 0x01, 0x00, 0x00, 0x00,        //   0 Variable, Main{0, 0}, 0
    0x08, 0x00, 0x00, 0x02,              //   1 Mul{0, 0, 2}
    0x06, 0x01, 0x00, 0x02,              //   2 Sub{1, 0, 2}
    0x01, 0x02,                          // constraint_idx [2]
    0x01, 0x01, 0x00, 0x00, 0x05, 0x03,  // interactions: 1: message [0], count 0, bus 5, count_weight 3
    0x02,                                // max_constraint_degree
    0x00,                                // is_required
    0x00,                                // unused_variables: none
};
const std::vector<uint8_t> kTraceHeightBytes = {
    0x02,                                            // 2 constraints
    0x02, 0x01, 0x03, 0x81, 0x80, 0x80, 0xC0, 0x07,  // [1, 3], threshold p
    0x02, 0x02, 0x01, 0x80, 0x80, 0x80, 0x80, 0x04,  // [2, 1], threshold 2^30
};
std::vector<uint8_t> hand_vk_bytes() {
  return cat({kParamsBytes, {0x02} /* per_air: 2 */, kAir0Head, kAir0Nodes, kAir0Tail, kAir1, kTraceHeightBytes});
}
// Offset of AIR 0's node list in hand_vk_bytes().
size_t air0_nodes_offset() { return kParamsBytes.size() + 1 + kAir0Head.size(); }

}  // namespace

TEST(VkPostcard, HandMadeKeyEncodesByteByByte) {
  const MultiStarkVerifyingKey vk = hand_vk();
  ASSERT_NO_THROW(vk.params.validate());
  const std::vector<uint8_t> want = hand_vk_bytes();
  const std::vector<uint8_t> got = encode_vk_postcard(vk);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(got[i], want[i]) << "byte " << i;
  // The hand-made key is one keygen could make: the derived parts agree with it.
  EXPECT_EQ(compute_trace_height_constraints(vk.per_air, vk.params), vk.trace_height_constraints);
  for (const StarkVerifyingKey& k : vk.per_air) {
    EXPECT_EQ(k.params.need_rot, k.symbolic_constraints.need_rot());
    EXPECT_EQ(find_unused_variables(k.symbolic_constraints, k.params.width, k.params.need_rot), k.unused_variables);
  }
}

TEST(VkPostcard, HandMadeKeyDecodes) {
  MultiStarkVerifyingKey want = hand_vk();
  want.pre_hash = vk_pre_hash(hand_vk_bytes());
  EXPECT_EQ(decode_vk_postcard(hand_vk_bytes()), want);
}

TEST(VkPostcard, PreHashHashesVersionLengthAndBytesOneElementPerByte) {
  const std::vector<uint8_t> bytes = hand_vk_bytes();
  std::vector<Fp> elems;
  for (uint32_t b : {3u, 0u, 0u, 0u}) elems.push_back(Fp::from_canonical(b));  // u32_le(3)
  const uint64_t len = bytes.size();
  for (int i = 0; i < 8; ++i) elems.push_back(Fp::from_canonical((len >> (8 * i)) & 0xff));  // u64_le(len)
  for (uint8_t b : bytes) elems.push_back(Fp::from_canonical(b));
  EXPECT_EQ(vk_pre_hash(bytes), hash_slice(std::span<const Fp>(elems)));
  // Of nothing: still the 12 header bytes, so not the zero digest.
  EXPECT_NE(vk_pre_hash({}), Digest{});
}

// ------------------------------------------------------------------------------------------------
// Pre-hash and round trips through keygen.

TEST(Keygen, PreHashIsDeterministicAndChangesWithAConstraint) {
  const SystemParams params = default_test_params_small();
  const Digest h1 = keygen_of(std::make_shared<FibonacciAir>(), params).vk.pre_hash;
  const Digest h2 = keygen_of(std::make_shared<FibonacciAir>(), params).vk.pre_hash;
  EXPECT_EQ(h1, h2);
  // Fibonacci with its last constraint on `left` instead of `right`.
  auto changed =
      std::make_shared<TestAir>("fibonacci", AirShape{.common_width = 2, .num_public_values = 3}, [](AirBuilder& b) {
        const Window m = b.main();
        const Expr left = m.local(0), right = m.local(1);
        b.when_first_row().assert_eq(left, b.public_value(0));
        b.when_first_row().assert_eq(right, b.public_value(1));
        b.when_transition().assert_eq(right, m.next(0));
        b.when_transition().assert_eq(left + right, m.next(1));
        b.when_last_row().assert_eq(left, b.public_value(2));
      });
  EXPECT_NE(keygen_of(changed, params).vk.pre_hash, h1);
  // The same AIR under other params: the params are hashed too.
  EXPECT_NE(keygen_of(std::make_shared<FibonacciAir>(), test_system_params_small(2, 9, 3)).vk.pre_hash, h1);
}

TEST(VkFile, RoundTripsAndReencodesIdentically) {
  ProvingKey pk = keygen_all({std::make_shared<FibonacciAir>(), preprocessed_air(8)}, default_test_params_small());
  const std::vector<uint8_t> file = encode_vk_file(pk.vk);
  ASSERT_GT(file.size(), kVkFileMagic.size() + 4);
  EXPECT_TRUE(std::equal(kVkFileMagic.begin(), kVkFileMagic.end(), file.begin()));
  EXPECT_EQ(file[10], kVkFileVersion & 0xff);
  const MultiStarkVerifyingKey vk = decode_vk_file(file);
  EXPECT_EQ(vk, pk.vk);
  EXPECT_EQ(encode_vk_file(vk), file);
  EXPECT_EQ(decode_vk_postcard(encode_vk_postcard(pk.vk)), pk.vk);
}

TEST(VkFile, RejectsAWrongMagicOrVersion) {
  std::vector<uint8_t> file = encode_vk_file(hand_vk());
  std::vector<uint8_t> bad = file;
  bad[0] = 'V';
  EXPECT_THROW(decode_vk_file(bad), DecodeError);
  bad = file;
  bad[10] = 2;
  try {
    decode_vk_file(bad);
    ADD_FAILURE() << "no error";
  } catch (const DecodeError& e) {
    EXPECT_STREQ(e.what(), "vk file: format version: 2, this build reads version 1");
  }
  bad = file;
  bad.push_back(0);
  try {
    decode_vk_file(bad);
    ADD_FAILURE() << "no error";
  } catch (const DecodeError& e) {
    EXPECT_STREQ(e.what(), "verifying key: end: 1 trailing bytes");
  }
}

// ------------------------------------------------------------------------------------------------
// Hostile encodings.

TEST(VkDecode, EveryTruncationIsRejected) {
  ProvingKey pk = keygen_all({std::make_shared<FibonacciAir>(), preprocessed_air(4)}, default_test_params_small());
  for (const std::vector<uint8_t>& bytes : {encode_vk_file(pk.vk), encode_vk_file(hand_vk())}) {
    for (size_t n = 0; n < bytes.size(); ++n)
      EXPECT_THROW(decode_vk_file(std::span<const uint8_t>(bytes.data(), n)), DecodeError) << "prefix " << n;
  }
}

TEST(VkDecode, RandomMutationsNeverCrashAndWhatDecodesReencodesIdentically) {
  ProvingKey pk = keygen_all({std::make_shared<FibonacciAir>(), preprocessed_air(4)}, default_test_params_small());
  std::mt19937_64 rng(9);
  size_t accepted = 0;
  for (const std::vector<uint8_t>& valid : {encode_vk_postcard(pk.vk), hand_vk_bytes()}) {
    for (int trial = 0; trial < 4000; ++trial) {
      std::vector<uint8_t> m = valid;
      const int edits = 1 + int(rng() % 3);
      for (int e = 0; e < edits; ++e) {
        const size_t at = rng() % m.size();
        switch (rng() % 4) {
          case 0:
            m[at] = static_cast<uint8_t>(rng());
            break;
          case 1:
            m[at] ^= static_cast<uint8_t>(1u << (rng() % 8));
            break;
          case 2:
            m.insert(m.begin() + at, static_cast<uint8_t>(rng()));
            break;
          default:
            if (m.size() > 1) m.erase(m.begin() + at);
        }
      }
      try {
        const MultiStarkVerifyingKey vk = decode_vk_postcard(m);
        ++accepted;
        EXPECT_EQ(encode_vk_postcard(vk), m) << "trial " << trial;
      } catch (const DecodeError&) {
      }
    }
  }
  // Most mutations break an invariant; a few (a digest byte, a count weight that keeps its
  // constraint) are other valid keys.
  EXPECT_LT(accepted, 8000u);
}

TEST(VkDecode, HugeLengthsAreRejectedBeforeAllocating) {
  const std::vector<uint8_t> valid = hand_vk_bytes();
  auto with_varint_at = [&](size_t offset, size_t old_len, uint64_t value) {
    std::vector<uint8_t> m(valid.begin(), valid.begin() + offset);
    ByteWriter(m).varint(value);
    m.insert(m.end(), valid.begin() + offset + old_len, valid.end());
    return m;
  };
  const size_t nodes_len = air0_nodes_offset() - 1;
  EXPECT_EQ(
      decode_error(with_varint_at(nodes_len, 1, uint64_t(1) << 62)).rfind("verifying key: air 0 nodes length: ", 0),
      0u);
  EXPECT_EQ(decode_error(with_varint_at(nodes_len, 1, UINT64_MAX)),
            fmt::format("verifying key: air 0 nodes length: 18446744073709551615 items of 1 bytes: {} bytes left, {} "
                        "needed",
                        valid.size() - nodes_len - 1, UINT64_MAX));
  const size_t per_air_len = kParamsBytes.size();
  EXPECT_EQ(decode_error(with_varint_at(per_air_len, 1, uint64_t(1) << 40)).rfind("verifying key: per_air length: ", 0),
            0u);
  const size_t constraints_len = valid.size() - kTraceHeightBytes.size();
  EXPECT_EQ(decode_error(with_varint_at(constraints_len, 1, uint64_t(1) << 50))
                .rfind("verifying key: trace_height_constraints length: ", 0),
            0u);
  // A width claiming far more columns than the nodes and unused_variables name.
  const size_t common_main = kParamsBytes.size() + 1 + 22;  // AIR 0's width.common_main byte
  ASSERT_EQ(valid[common_main], 0x02);
  EXPECT_EQ(decode_error(with_varint_at(common_main, 1, uint64_t(1) << 31)),
            "verifying key: air 0 width: 2147483650 columns, but the nodes and unused_variables name at most 19");
}

TEST(VkDecode, NamesTheFieldOfEachInvalidValue) {
  const std::vector<uint8_t> valid = hand_vk_bytes();
  const size_t nodes = air0_nodes_offset();
  auto mutated = [&](size_t at, uint8_t value) {
    std::vector<uint8_t> m = valid;
    m[at] = value;
    return decode_error(m);
  };
  // Node 2 = Mul{0, 1, 2} at bytes nodes + 9 ..: its left child made 5.
  EXPECT_EQ(mutated(nodes + 10, 0x05), "verifying key: air 0 node 2: left child 5 is not below 2");
  EXPECT_EQ(mutated(nodes + 11, 0x02), "verifying key: air 0 node 2: right child 2 is not below 2");
  EXPECT_EQ(mutated(nodes + 9, 0x09), "verifying key: air 0 node 2: variant 9 is not a node kind (0..8)");
  // Node 0's entry made Challenge (3), then 4.
  EXPECT_EQ(mutated(nodes + 1, 0x03), "verifying key: air 0 node 0: challenge variables are not supported");
  EXPECT_EQ(mutated(nodes + 1, 0x04),
            "verifying key: air 0 node 0: entry variant 4 is not one of Preprocessed (0), Main (1), Public (2)");
  // Node 0's offset 2; its index 1 (the preprocessed width is 1).
  EXPECT_EQ(mutated(nodes + 2, 0x02), "verifying key: air 0 node 0: row offset 2 is neither 0 (local) nor 1 (next)");
  EXPECT_EQ(mutated(nodes + 3, 0x01),
            "verifying key: air 0 node 0: preprocessed[1]: column 1 is past the preprocessed width 1");
  // A non-canonical varint: node 2's left child 0 written 80 00 (one byte longer, same value).
  {
    std::vector<uint8_t> m = valid;
    m[nodes + 10] = 0x80;
    m.insert(m.begin() + nodes + 11, 0x00);
    EXPECT_EQ(decode_error(m), "verifying key: air 0 node 2: varint is not in its shortest form");
  }
  // Constant 1's Montgomery form made p (0x78000001 = 81 80 80 C0 07).
  {
    std::vector<uint8_t> m = valid;
    const uint8_t p_bytes[] = {0x81, 0x80, 0x80, 0xC0, 0x07};
    std::copy(std::begin(p_bytes), std::end(p_bytes), m.begin() + nodes + 14);
    EXPECT_EQ(decode_error(m), "verifying key: air 0 node 3: Montgomery form 2013265921 is not below p");
  }
  const size_t tail = nodes + kAir0Nodes.size();
  // constraint_idx [7, 9, 13] -> [7, 7, 13], then [7, 9, 14].
  EXPECT_EQ(mutated(tail + 2, 0x07),
            "verifying key: air 0 constraint_idx[1]: node 7 does not follow 7 (the list is sorted, without repeats)");
  EXPECT_EQ(mutated(tail + 3, 0x0E), "verifying key: air 0 constraint_idx[2]: node 14 is not below the 14 nodes");
  // The max degree 2 -> 4 (above params 3), -> 1 (below node 7's degree 2).
  const size_t degree = tail + 4 + 13;
  ASSERT_EQ(valid[degree], 0x02);
  EXPECT_EQ(mutated(degree, 0x04),
            "verifying key: air 0 max_constraint_degree: 4 is above params.max_constraint_degree 3");
  EXPECT_EQ(mutated(degree, 0x01),
            "verifying key: air 0 max_constraint_degree: 1 is below the degree 2 of a constraint or interaction node");
  EXPECT_EQ(mutated(degree + 1, 0x02), "verifying key: air 0 is_required: bool byte 2 is neither 0 nor 1");
  // need_rot false while node 1 reads the next row.
  const size_t need_rot = nodes - 2;
  ASSERT_EQ(valid[need_rot], 0x01);
  EXPECT_EQ(mutated(need_rot, 0x00), "verifying key: air 0 need_rot: false but a variable node reads the next row");
  // An unused variable listed that node 0 reads.
  EXPECT_EQ(mutated(degree + 4, 0x00),
            "verifying key: air 0 unused_variables: not the trace variables that no node reads (in the order of "
            "protocol.md 4.4)");
  // Params: an unknown proximity variant, then params that fail validate().
  EXPECT_EQ(mutated(13, 0x03),
            "verifying key: params whir.proximity: variant 3 is not one of UniqueDecoding (0), SplitUniqueList (1), "
            "ListDecoding (2)");
  EXPECT_EQ(mutated(4, 0x00), "verifying key: params: log_blowup = 0 is outside 1..4");
  // The stacking width of the preprocessed commitment, and its hypercube dim below -l_skip.
  const size_t air0 = kParamsBytes.size() + 1;
  EXPECT_EQ(mutated(air0 + 17, 0x02),
            "verifying key: air 0 preprocessed_data stacking_width: 2, but 1 columns of 2^2 rows stack into 1");
  EXPECT_EQ(mutated(air0 + 16, 0x05),
            "verifying key: air 0 preprocessed_data hypercube_dim: -3 is outside -l_skip..n_stack = -2..8");
  // Widths: preprocessed, cached part 0, common main made 0; cached_mains length 7 (9 parts).
  EXPECT_EQ(mutated(air0 + 19, 0x00), "verifying key: air 0 width.preprocessed: a preprocessed part of width 0");
  EXPECT_EQ(mutated(air0 + 21, 0x00), "verifying key: air 0 width.cached_mains[0]: width 0");
  EXPECT_EQ(mutated(air0 + 22, 0x00), "verifying key: air 0 width.common_main: the common main width is 0");
  EXPECT_EQ(mutated(air0 + 20, 0x07),
            fmt::format("verifying key: air 0 width.cached_mains length: 7 cached parts make 9 parts, more than the {} "
                        "supported",
                        kMaxViewArray));
  // The trace-height constraints must be those the interactions give.
  const size_t th = valid.size() - kTraceHeightBytes.size();
  EXPECT_EQ(mutated(th + 3, 0x04),
            "verifying key: trace_height_constraints[0]: not the constraint the interactions give (protocol.md 4.5)");
  EXPECT_EQ(mutated(th + 1, 0x03),
            "verifying key: trace_height_constraints[0] coefficients: 3 coefficients for 2 AIRs");
}

// ------------------------------------------------------------------------------------------------
// Preprocessed traces.

TEST(Keygen, PreprocessedCommitmentIsTheStackedCommitOfTheTrace) {
  const SystemParams params = default_test_params_small();
  for (uint32_t height : {1u, 8u, 64u}) {
    ProvingKey pk = keygen_of(preprocessed_air(height), params);
    const AirProvingKey& apk = pk.per_air[0];
    ASSERT_TRUE(apk.preprocessed_trace.has_value());
    ASSERT_TRUE(apk.preprocessed_root.has_value());
    const StarkVerifyingKey& vk = pk.vk.per_air[0];
    ASSERT_TRUE(vk.preprocessed_data.has_value());
    EXPECT_EQ(vk.params.width.preprocessed, std::optional<uint32_t>(1));
    const int64_t log_height = std::countr_zero(height);
    EXPECT_EQ(vk.preprocessed_data->hypercube_dim, log_height - int64_t(params.l_skip));
    EXPECT_EQ(vk.preprocessed_data->stacking_width, 1u);
    EXPECT_EQ(vk.preprocessed_data->commit, *apk.preprocessed_root);
    const AirShape shape = vk.shape();
    EXPECT_EQ(shape.row_view_widths(), apk.shape.row_view_widths());
    EXPECT_EQ(shape.num_public_values, apk.shape.num_public_values);

    // The same trace through stacked_commit alone on the CPU executor.
    const uint32_t log_codeword = params.log_stacked_height() + params.log_blowup;
    prepare_ntt_twiddles(cpu(), log_codeword);
    Graph g;
    Ntt ntt(g, log_codeword);
    Buffer<Fp> trace = g.input<Fp>("trace", height);
    Buffer<Digest> root = g.output<Digest>("root", 1);
    const TraceView view{trace.all(), 1, uint32_t(log_height)};
    StackedCommitment c = commit_stacked(g, ntt, "prep", std::span<const TraceView>(&view, 1), params);
    g.dispatch<CopyU32>("save_root", {.src = c.root().bitcast<uint32_t>(), .dst = root.all().bitcast<uint32_t>()});
    auto plan = cpu().prepare(compile(std::move(g)));
    plan->upload(trace, selector_trace(height).values.span());
    Trace t;
    plan->run(t);
    EXPECT_EQ(plan->download(root)[0], vk.preprocessed_data->commit) << "height " << height;
  }
}

TEST(Keygen, PreprocessedCommitmentDependsOnTheTrace) {
  const SystemParams params = default_test_params_small();
  TraceMatrix other = selector_trace(8);
  other.at(5, 0) = Fp::from_canonical(7);
  auto changed = std::make_shared<TestAir>(
      "selector", AirShape{.preprocessed_width = 1, .common_width = 2},
      [](AirBuilder& b) {
        const Window p = b.preprocessed(), m = b.main();
        b.assert_zero(p.local(0) * (m.local(0) - m.local(1)));
        b.when_transition().assert_eq(m.next(0), m.local(0) + p.local(0));
      },
      other);
  const ProvingKey a = keygen_of(preprocessed_air(8), params), b = keygen_of(changed, params);
  EXPECT_NE(a.vk.per_air[0].preprocessed_data->commit, b.vk.per_air[0].preprocessed_data->commit);
  EXPECT_NE(a.vk.pre_hash, b.vk.pre_hash);
  // The DAGs are the same: only the commitment differs.
  EXPECT_EQ(a.vk.per_air[0].symbolic_constraints, b.vk.per_air[0].symbolic_constraints);
}
